// `on-conflict` (plan-format.md, "Conflicts"): what the plan compiles to, what answers a conflict
// and how often, what a resolution's agent is told and how it runs, and how the views say it.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import { conflictAnswer, conflictAnswerMessage } from '../../src/core/engine/scheduling/conflictAnswer';
import { resolutionInvocation } from '../../src/core/engine/steps/resolutionInvocation';
import { conflictNote } from '../../src/core/agents/conflictPrompt';
import { changedBy } from '../../src/core/engine/isolation/conflictMerge';
import { foldStep } from '../../src/core/engine/records/stepFold';
import { stepDescription } from '../../src/extension/runs/treeText';
import { nodeUpdate } from '../../src/extension/graph/graphNodes';
import type { StepView } from '../../src/extension/runs/runView';
import type { AttemptResult } from '../../src/core/engine/types';
import { makeGraph } from '../helpers/graph';
import { PRESETS } from '../../src/core/agents/presets';
import { plan } from '../helpers/planText';

const compile = (text: string) => compilePlan('/ws/p.braid.yaml', text, { isGit: true });
const conflict: AttemptResult = {
  status: 'conflict',
  exitCode: 0,
  signal: null,
  reason: 'conflict',
  message: 'x',
  durationMs: 1,
};

describe('on-conflict', () => {
  it('defaults to resolve for agent steps and stop for run steps; defaults.on-conflict: resolve leaves run steps alone', () => {
    const r = compile(plan`
      version: 1
      defaults: { on-conflict: resolve, resolve-attempts: 2 }
      steps:
        a: { prompt: p }
        b: { run: echo, isolation: worktree }
        c: { run: echo, isolation: worktree, on-conflict: rerun }
      `);
    assert.deepEqual(r.diagnostics, []);
    const s = (id: string) => r.graph!.steps.get(id)!;
    assert.deepEqual([s('a').onConflict, s('b').onConflict, s('c').onConflict], ['resolve', 'stop', 'rerun']);
    assert.equal(s('a').resolveAttempts, 2);
    const plain = compile(plan`
      version: 1
      steps:
        a: { prompt: p }
        b: { run: echo }
      `);
    assert.deepEqual(
      [plain.graph!.steps.get('a')!.onConflict, plain.graph!.steps.get('b')!.onConflict],
      ['resolve', 'stop'],
    );
  });

  it('refuses resolve on a run step, where it is written, naming rerun and braid resolve --agent', () => {
    const r = compile(plan`
      version: 1
      steps:
        b:
          run: echo
          on-conflict: resolve
      `);
    const d = r.diagnostics.find((x) => x.code === 'on-conflict');
    assert.ok(d && d.severity === 'error', JSON.stringify(r.diagnostics));
    assert.equal(d.range.start.line, 4);
    assert.match(d.message, /rerun.*braid resolve RUN STEP --agent NAME/);
    assert.ok(
      compile(plan`
        version: 1
        steps:
          b: { run: echo, on-conflict: bogus }
        `).diagnostics.some((x) => /expected resolve, rerun or stop/.test(x.message)),
    );
  });

  it('answers a conflict while attempts remain and the run goes on; never a best-of step, a shared one or a stop', () => {
    const g = makeGraph([
      { id: 'a', prompt: 'p', isolation: 'worktree', onConflict: 'resolve', resolveAttempts: 2 },
      { id: 'r', run: 'x', isolation: 'worktree', onConflict: 'rerun' },
      { id: 's', run: 'x', isolation: 'worktree' },
      { id: 'sh', prompt: 'p', isolation: 'shared', onConflict: 'resolve' },
      {
        id: 'bo',
        prompt: 'p',
        isolation: 'worktree',
        onConflict: 'resolve',
        bestOf: { pick: 'first', alternatives: [] },
      },
    ]);
    const a = g.steps.get('a')!;
    assert.deepEqual(conflictAnswer(a, { sessionId: 'S' }, conflict, true), { mode: 'resolve', sessionId: 'S' });
    assert.ok(conflictAnswer(a, { resolutions: 1 }, conflict, true));
    assert.equal(conflictAnswer(a, { resolutions: 2 }, conflict, true), undefined, 'resolve-attempts: 2 spent');
    assert.equal(conflictAnswer(a, {}, conflict, false), undefined, 'not once the run is canceled or at its budget');
    assert.equal(conflictAnswer(a, {}, { ...conflict, reason: 'out-of-set' }, true), undefined);
    assert.deepEqual(conflictAnswer(g.steps.get('r')!, { sessionId: 'S' }, conflict, true), { mode: 'rerun' });
    for (const id of ['s', 'sh', 'bo'])
      assert.equal(conflictAnswer(g.steps.get(id)!, {}, conflict, true), undefined, id);
    assert.equal(
      conflictAnswerMessage({ mode: 'resolve' }, ['f.txt', 'g.txt']),
      'resolving the conflict in f.txt, g.txt with its agent',
    );
  });

  it('tells the agent each file and who changed it: the steps that landed there, else the user', () => {
    const by = changedBy(
      ['f.txt', 'g.txt', 'h.txt'],
      new Map([
        ['b', { files: [{ path: 'f.txt' }] }],
        ['c', { files: [{ path: 'f.txt' }, { path: 'x', from: 'g.txt' }] }],
      ]),
    );
    const note = conflictNote(['f.txt', 'g.txt', 'h.txt'], by);
    assert.match(
      note,
      /- f\.txt \(changed by steps b, c\)\n- g\.txt \(changed by step c\)\n- h\.txt \(edited in the workspace by the user, not by a step\)/,
    );
    assert.match(note, /BRAID_CONFLICT_FILES/);
  });

  it("a resolution continues the step's claude session with the note alone; a custom agent gets its prompt and the note; both get BRAID_CONFLICT_FILES", () => {
    const g = makeGraph(
      [
        { id: 'a', prompt: 'do the task', agent: 'claude', isolation: 'worktree' },
        { id: 'c', prompt: 'do the task', agent: 'mine', isolation: 'worktree' },
        { id: 'k', prompt: 'do the task', agent: 'code', isolation: 'worktree' },
      ],
      {
        agents: {
          ...PRESETS,
          mine: {
            name: 'mine',
            command: ['mine', '--', '${{ prompt }}'],
            env: {},
            context: true,
            format: 'text',
            input: 'text',
          } as never,
          code: {
            name: 'code',
            command: ['bash', '-c', 'mytool "$BRAID_PROMPT"'],
            env: {},
            context: true,
            format: 'text',
          } as never,
        },
      },
    );
    const scope = (id: string) => ({
      graph: g,
      step: g.steps.get(id)!,
      runId: 'r',
      outputs: new Map(),
      statuses: new Map(),
      baseEnv: {},
    });
    const resolving = { files: ['f.txt', 'sub/g.txt'], changedBy: new Map([['f.txt', ['b']]]), sessionId: 'sess-1' };
    const claude = resolutionInvocation(scope('a'), resolving);
    assert.equal(claude.resumed, 'sess-1');
    assert.deepEqual(claude.argv.slice(claude.argv.indexOf('--resume'), claude.argv.indexOf('--resume') + 2), [
      '--resume',
      'sess-1',
    ]);
    const prompt = claude.argv[claude.argv.length - 1]!;
    assert.match(prompt, /^Your change could not land/);
    assert.doesNotMatch(prompt, /do the task/, 'the resumed session holds the task already');
    assert.equal(claude.env.BRAID_CONFLICT_FILES, 'f.txt\nsub/g.txt');
    const { sessionId: _unreported, ...noSession } = resolving;
    const custom = resolutionInvocation(scope('c'), noSession);
    assert.equal(custom.resumed, undefined);
    assert.match(custom.argv[2]!, /^do the task\n\nYour change could not land/);
    assert.equal(custom.env.BRAID_CONFLICT_FILES, 'f.txt\nsub/g.txt');
    // A command that may run its prompt gets the note only as a value, never in its argv.
    const code = resolutionInvocation(scope('k'), noSession);
    assert.deepEqual(code.argv, ['bash', '-c', 'mytool "$BRAID_PROMPT"']);
    assert.match(code.env.BRAID_PROMPT!, /^do the task\n\nYour change could not land/);
    assert.equal(code.env.BRAID_CONFLICT_FILES, 'f.txt\nsub/g.txt');
  });

  it('records the conflicted attempt as conflict, and the resolution as an attempt of its own with reason conflict', () => {
    const at = { run: '20261206-100000-abcd', type: 'step' as const, id: 'a' };
    const waiting = foldStep(
      { id: 'a', status: 'running', attempts: [{ attempt: 1, startedAt: new Date(0).toISOString() }] },
      {
        ...at,
        time: new Date(0).toISOString(),
        status: 'waiting',
        attempt: 1,
        reason: 'conflict',
        message: 'f.txt does not merge',
      },
    );
    assert.equal(waiting.attempts[0]!.status, 'conflict');
    const running = foldStep(waiting, {
      ...at,
      time: new Date(1).toISOString(),
      status: 'running',
      attempt: 2,
      reason: 'conflict',
      message: 'resolving the conflict in f.txt with its agent',
    });
    assert.deepEqual(
      [running.attempts[1]!.reason, running.attempts[1]!.message],
      ['conflict', 'resolving the conflict in f.txt with its agent'],
    );
  });

  it('the tree and the graph say a running resolution is one', () => {
    const step = {
      id: 'a',
      status: 'running',
      attempt: 2,
      reason: 'conflict',
      message: 'resolving the conflict in f.txt with its agent',
      attemptStartedAt: 0,
      startedAt: 0,
    } as unknown as StepView;
    assert.match(stepDescription(step, 1000), /attempt 2 · resolving the conflict in f\.txt with its agent/);
    assert.match(nodeUpdate(step, 1000).detail ?? '', /^resolving the conflict in f\.txt/);
  });
});
