// A missing agent CLI refuses the run before it starts: one error a missing executable, naming
// its install command and the steps that need it, and nothing made (no record, worktree, event).
// With the CLI on PATH the same plan runs; what only the run can know is left to the attempt,
// which then fails once instead of once a retry.
import { strict as assert } from 'node:assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan, type RunRequest } from '../../src/core/engine/runPlan';
import { missingAgentCommands, missingAgentDiagnostics } from '../../src/core/engine/steps/missingAgents';
import { compilePlan } from '../../src/core/plan/compile';
import { RunStore } from '../../src/core/engine/records/runStore';
import type { EngineEvent } from '../../src/core/engine/types';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { worktrees } from '../helpers/runInRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';
import { plan } from '../helpers/planText';

const FAKE = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
const SESSION = '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f';
const q = (s: string) => JSON.stringify(s);

describe('agent CLIs missing before a run', function () {
  this.timeout(60_000);
  let scratch: string;
  let empty: string; // a PATH with no agent on it
  let bin: string; // a PATH with a `claude` that is the fake agent
  const repos: TestRepo[] = [];
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'braid-missing-'));
    empty = join(scratch, 'empty');
    bin = join(scratch, 'bin');
    mkdirSync(empty);
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec ${q(process.execPath)} ${q(FAKE)} "$@"\n`);
    chmodSync(join(bin, 'claude'), 0o755);
  });
  after(() => {
    rmSync(scratch, { recursive: true, force: true });
    for (const r of repos) r.cleanup();
  });

  function repo(text: string): { r: TestRepo; plan: string } {
    const r = makeRepo({ 'p.braid.yaml': text, 'README.md': 'x\n' });
    repos.push(r);
    return { r, plan: join(r.dir, 'p.braid.yaml') };
  }

  async function attempt(w: { r: TestRepo; plan: string }, extra: Partial<RunRequest> = {}) {
    const events: EngineEvent[] = [];
    let started = false;
    const outcome = await runPlan({
      planFile: w.plan,
      workspace: w.r.dir,
      graceMs: 200,
      ...extra,
      onEvent: (e) => events.push(e),
      onStart: () => {
        started = true;
      },
    });
    return { outcome, events, started };
  }

  /** Two claude steps, a codex one and a plain command, with no agent CLI on the plan's PATH. */
  const NO_AGENTS = (): string => plan`
    version: 1
    env: { PATH: ${q(empty)} }
    steps:
      design:
        prompt: design it
      build:
        needs: [design]
        prompt: build it
      review:
        agent: codex
        prompt: review it
      lint:
        run: "true"
    `;

  it('on the plan (as the editor shows it) a missing CLI is a warning on the `agent:` line, naming the install command', async () => {
    const w = repo(NO_AGENTS());
    const text = readFileSync(w.plan, 'utf8');
    const { graph, diagnostics } = compilePlan(w.plan, text, { isGit: true });
    assert.ok(graph, JSON.stringify(diagnostics));
    const missing = missingAgentCommands(graph, new Set(graph.order), w.r.dir, process.env);
    assert.deepEqual(
      missingAgentDiagnostics(graph, text, missing).map((d) => [d.severity, d.code, d.message, d.range.start.line]),
      [
        [
          'warning',
          'agent-missing',
          'claude is not installed on this machine; needed by steps design, build; install it with npm install -g @anthropic-ai/claude-code before running the plan',
          3,
        ],
        [
          'warning',
          'agent-missing',
          'codex is not installed on this machine; needed by step review; install it with npm install -g @openai/codex before running the plan',
          9,
        ],
      ],
    );
  });

  it('refuses the run with one error a missing executable, before any record, worktree or step', async () => {
    const w = repo(NO_AGENTS());
    const { outcome, events, started } = await attempt(w);
    assert.ok(!outcome.ok);
    assert.equal(outcome.usage, undefined);
    assert.deepEqual(
      outcome.diagnostics.map((d) => [d.severity, d.code, d.message, d.range.start.line]),
      [
        [
          'error',
          'agent-missing',
          'claude is not installed; install it with npm install -g @anthropic-ai/claude-code; needed by steps design, build',
          3,
        ],
        [
          'error',
          'agent-missing',
          'codex is not installed; install it with npm install -g @openai/codex; needed by step review',
          8,
        ],
      ],
    );
    assert.ok(outcome.diagnostics.every((d) => d.file === w.plan));
    assert.equal(started, false);
    assert.deepEqual(events, [], 'no run, no step event');
    assert.equal(existsSync(join(w.r.dir, '.braid', 'runs')), false, 'no run record');
    assert.equal(existsSync(join(worktreesRoot(w.r.dir))), false, 'no worktree');
    assert.deepEqual(worktrees(w.r), [`worktree ${w.r.dir}`]);
  });

  it('counts only the steps that will run (--only, --from, retry)', async () => {
    const w = repo(NO_AGENTS());
    const only = await attempt(w, { only: ['lint'] });
    assert.ok(only.outcome.ok, JSON.stringify(only.outcome));
    assert.equal(only.outcome.record.steps.lint!.status, 'succeeded');
    const from = await attempt(w, { from: 'build' });
    assert.ok(!from.outcome.ok);
    assert.deepEqual(
      from.outcome.diagnostics.map((d) => d.message),
      ['claude is not installed; install it with npm install -g @anthropic-ai/claude-code; needed by step build'],
    );
    // The retry of a run whose agent steps succeeded re-runs only what failed: no agent to find.
    const ok = repo(plan`
      version: 1
      env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude }
      steps:
        design:
          prompt: design it
        gate:
          run: test -f fixed
      `);
    const first = await attempt(ok);
    assert.ok(first.outcome.ok);
    assert.deepEqual(
      Object.values(first.outcome.record.steps).map((s) => s.status),
      ['succeeded', 'failed'],
    );
    writeFileSync(ok.plan, readFileSync(ok.plan, 'utf8').replace(bin, empty));
    writeFileSync(join(ok.r.dir, 'fixed'), '');
    const retry = await attempt(ok, { retry: { runId: first.outcome.runId } });
    assert.ok(retry.outcome.ok, JSON.stringify(retry.outcome));
    assert.equal(retry.outcome.record.steps.gate!.status, 'succeeded');
    const again = await attempt(ok, { retry: { runId: first.outcome.runId, steps: ['design'] } });
    assert.ok(!again.outcome.ok, 'naming the agent step brings its CLI back into the check');
  });

  it('with the CLI on PATH the same plan runs, in its worktree, read as claude’s stream', async () => {
    const w = repo(plan`
      version: 1
      env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude, FAKE_AGENT_ANSWER: designed }
      steps:
        design:
          prompt: design it
      `);
    const { outcome } = await attempt(w);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const design = outcome.record.steps.design!;
    assert.equal(design.status, 'succeeded');
    assert.equal(design.sessionId, SESSION);
    assert.equal(readFileSync(new RunStore(w.r.dir).paths(outcome.runId).output('design'), 'utf8'), 'designed');
  });

  it('an agent a need makes (a relative command) is not refused: it runs once it exists', async () => {
    const w = repo(plan`
      version: 1
      agents:
        made:
          command: [./made-agent, "\${{ prompt }}"]
      steps:
        make:
          run: ${q(`printf '#!/bin/sh\\necho "made: $1"\\n' > made-agent && chmod +x made-agent`)}
          writes: [made-agent]
        use:
          needs: [make]
          agent: made
          prompt: hello
          isolation: shared
      `);
    const { outcome } = await attempt(w);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.record.steps.use!.status, 'succeeded', JSON.stringify(outcome.record.steps.use));
    assert.equal(readFileSync(new RunStore(w.r.dir).paths(outcome.runId).output('use'), 'utf8'), 'made: hello');
  });

  it('what only the run knows (a PATH from a step’s output) fails at the attempt, once, not once a retry', async () => {
    const w = repo(plan`
      version: 1
      steps:
        where:
          run: printf %s ${q(empty)}
        use:
          needs: [where]
          prompt: go
          retries: 3
          retry-delay: 10ms
          isolation: shared
          env: { PATH: "\${{ steps.where.output }}" }
      `);
    const { outcome } = await attempt(w);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const use = outcome.record.steps.use!;
    assert.equal(use.status, 'failed');
    assert.equal(use.reason, 'spawn-failed');
    assert.equal(use.message, 'claude is not installed; install it with npm install -g @anthropic-ai/claude-code');
    assert.equal(use.attempts.length, 1, 'a missing executable is not retried');
  });
});
