// Retries that learn: an agent step's next attempt is told why the one before failed (the reason
// and the end of its check's output), appended to a fresh prompt or as the whole prompt of the
// continued session; `${{ attempt.previous.* }}` places it; `retry-context` turns it off. At the
// renderer (test/integration/retryContext.test.ts runs it with real processes).
import { strict as assert } from 'node:assert';
import { RESUME_PROMPT } from '../../src/core/agents/resume';
import { failureTail, retryNote } from '../../src/core/agents/retryPrompt';
import { attemptHeader, checkHeader, lastAttemptOutput } from '../../src/core/engine/records/stepLog';
import { stepInvocation, type RenderScope } from '../../src/core/engine/steps/render';
import type { PreviousAttempt } from '../../src/core/engine/types';
import { compilePlan } from '../../src/core/plan/compile';
import type { Graph } from '../../src/core/plan/types';

const SESSION = '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f';

describe('failureTail and retryNote', () => {
  it('keeps the last 40 lines without colours or blank ends', () => {
    const text = `${Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\r\n')}\n\x1b[31mFAIL\x1b[0m x\n\n`;
    const tail = failureTail(text);
    assert.equal(tail.split('\n').length, 40);
    assert.ok(tail.startsWith('line 21\n'));
    assert.ok(tail.endsWith('line 59\nFAIL x'));
    assert.equal(failureTail('x'.repeat(10_000)).length, 4000);
  });

  it('fences the output with more backticks than it holds, and says what became of the changes', () => {
    const note = retryNote(
      { attempt: 2, reason: 'check failed (exit 1): npm test', output: 'a ``` b' },
      { resumed: true, isolation: 'worktree' },
    );
    assert.equal(
      note,
      [
        'The previous attempt (attempt 2) failed: check failed (exit 1): npm test',
        'The end of its output:\n````\na ``` b\n````',
        'The working folder was reset to where you started: your earlier changes are gone.',
        'Find the cause, take a different approach where it failed, and finish the task.',
      ].join('\n\n'),
    );
    const shared = retryNote(
      { attempt: 1, reason: 'timed out after 1s', output: '' },
      { resumed: false, isolation: 'shared' },
    );
    assert.equal(
      shared,
      'The previous attempt (attempt 1) failed: timed out after 1s\n\nIts changes are still in the working folder.\n\n' +
        'Find the cause and take a different approach where it failed.',
    );
  });
});

describe("lastAttemptOutput: what a step log's last attempt printed", () => {
  it('after the last attempt header, and after its check header when it ran a check', () => {
    const log = [
      attemptHeader(1, 'a', new Date(0)) + 'first try\n' + checkHeader('npm test') + 'old failure\n',
      attemptHeader(2, 'a', new Date(0)) + 'agent words\n' + checkHeader('npm test') + '1 failing\n',
    ].join('');
    assert.equal(lastAttemptOutput(log), '1 failing\n');
    assert.equal(lastAttemptOutput(attemptHeader(1, 'a') + 'exited badly\n'), 'exited badly\n');
    assert.equal(lastAttemptOutput('a tail cut mid-attempt\n'), 'a tail cut mid-attempt\n');
  });
});

describe('a retry’s prompt (stepInvocation)', () => {
  const previous: PreviousAttempt = {
    attempt: 1,
    reason: 'check failed (exit 1): npm test',
    output: '1 failing: expected 4, got 5',
    sessionId: SESSION,
  };
  const graphOf = (step: string[]): Graph => {
    const r = compilePlan(
      '/w/p.braid.yaml',
      ['version: 1', 'context: CTX', 'steps:', '  a:', ...step.map((l) => `    ${l}`)].join('\n') + '\n',
      { isGit: false },
    );
    assert.ok(r.graph, JSON.stringify(r.diagnostics));
    return r.graph;
  };
  const invoke = (g: Graph, prev: PreviousAttempt | undefined, resume?: string) => {
    const scope: RenderScope = {
      graph: g,
      step: g.steps.get('a')!,
      runId: 'r1',
      outputs: new Map(),
      statuses: new Map(),
      baseEnv: {},
      ...(prev ? { previous: prev } : {}),
    };
    return stepInvocation(scope, resume);
  };
  // The prompt is the one argument after `--` (presets put it last so no prompt reads as an option).
  const promptOf = (argv: string[]) => argv[argv.indexOf('--') + 1]!;

  it('a first attempt gets its prompt alone; a fresh retry gets the note after it', () => {
    const g = graphOf(['prompt: fix the sum']);
    assert.equal(promptOf(invoke(g, undefined).argv), 'CTX\n\nfix the sum');
    const p = promptOf(invoke(g, previous).argv);
    assert.ok(
      p.startsWith(
        'CTX\n\nfix the sum\n\nThe previous attempt (attempt 1) failed: check failed (exit 1): npm test\n\n',
      ),
      p,
    );
    assert.match(p, /```\n1 failing: expected 4, got 5\n```/);
  });

  it('a resumed retry is the note itself; with retry-context: false, the plain continuation', () => {
    const resumed = invoke(graphOf(['prompt: fix the sum', 'isolation: shared']), previous, SESSION);
    assert.deepEqual(resumed.argv.slice(0, 3), ['claude', '--resume', SESSION]);
    assert.match(
      promptOf(resumed.argv),
      /^The previous attempt \(attempt 1\) failed: .*\n[^]*Its changes are still in the working folder\.[^]*finish the task\.$/,
    );
    const quiet = invoke(graphOf(['prompt: fix the sum', 'retry-context: false']), previous, SESSION);
    assert.equal(promptOf(quiet.argv), RESUME_PROMPT);
    assert.equal(
      promptOf(invoke(graphOf(['prompt: fix the sum', 'retry-context: false']), previous).argv),
      'CTX\n\nfix the sum',
    );
  });

  it('a prompt that places ${{ attempt.previous.* }} gets the values there and no note (empty on a first attempt)', () => {
    const g = graphOf(['prompt: "fix it. Last time: ${{ attempt.previous.reason }} / ${{ attempt.previous.output }}"']);
    assert.equal(
      promptOf(invoke(g, previous).argv),
      'CTX\n\nfix it. Last time: check failed (exit 1): npm test / 1 failing: expected 4, got 5',
    );
    assert.equal(promptOf(invoke(g, undefined).argv), 'CTX\n\nfix it. Last time:  / ');
  });

  it('an agent that takes no prose (shell) gets no note: its prompt is a script', () => {
    const g = graphOf(['prompt: exit 1', 'agent: shell']);
    assert.deepEqual(invoke(g, previous).argv, ['sh', '-c', 'exit 1']);
  });

  it('${{ attempt.previous.* }} outside a prompt is a validation error', () => {
    const r = compilePlan(
      '/w/p.braid.yaml',
      'version: 1\nsteps:\n  a: { run: "echo ${{ attempt.previous.output }}" }\n',
      {},
    );
    assert.deepEqual(
      r.diagnostics.map((d) => d.message),
      [
        'steps.a.run: ${{ attempt.previous.output }} is only for prompts (a retry is told why the attempt before it failed)',
      ],
    );
  });
});
