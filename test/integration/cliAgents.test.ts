// The CLI and agent CLIs end to end: a missing one refuses `run` (and `--dry-run`) with exit 2
// and one line naming its install command; `--permission` reaches the agent's argv, on `run`,
// `retry` and in the dry run's listing; a bad value is a usage error.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeAgentScratch, type AgentScratch } from '../helpers/agentScratch';
import { plan } from '../helpers/planText';

const q = (s: string) => JSON.stringify(s);

describe('braid CLI with agent CLIs', function () {
  this.timeout(60_000);
  // Our own bundle of the CLI, a PATH without agents, and a bin/ with the fake claude.
  let scratch = '',
    CLI = '',
    empty = '',
    bin = '';
  let made: AgentScratch | undefined;
  const braid = (args: string[], cwd: string) =>
    spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

  before(async () => {
    made = await makeAgentScratch('braid-cli-agents-');
    ({ dir: scratch, cli: CLI, empty, bin } = made);
  });
  after(() => made?.remove());

  const workspace = (text: string) => made!.workspace(text);
  // The fake agent as `claude` on the plan's PATH, recording the argv it was started with.
  const withClaude = (argvFile: string) =>
    `env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude, FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }`;
  const permissionMode = (argvFile: string) => {
    const argv = (JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[] }).argv;
    return argv[argv.indexOf('--permission-mode') + 1];
  };

  it('a missing agent CLI: exit 2 before the run, one line naming the install command, no events, no record', () => {
    const w = workspace(plan`
      version: 1
      env: { PATH: ${q(empty)} }
      steps:
        a:
          prompt: one
        b:
          prompt: two
        c:
          run: "true"
      `);
    const r = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '', 'no events: the run never started');
    // The plan's warnings come first (as before any run); the refusal is one error line.
    assert.deepEqual(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !/: warning: /.test(l)),
      [
        `${w.plan}:4:3: error: claude is not installed; install it with npm install -g @anthropic-ai/claude-code; needed by steps a, b`,
      ],
    );
    assert.equal(existsSync(join(w.dir, '.braid', 'runs')), false);
    // The human view says the same, once.
    const human = braid(['run', w.plan], w.dir);
    assert.equal(human.status, 2);
    assert.equal(human.stderr.match(/is not installed/g)?.length, 1, human.stderr);
    // The dry run reports it too (and fails as the run would); --only leaves it out.
    const dry = braid(['run', w.plan, '--dry-run'], w.dir);
    assert.equal(dry.status, 2);
    assert.match(
      dry.stderr,
      /claude is not installed; install it with npm install -g @anthropic-ai\/claude-code; needed by steps a, b/,
    );
    assert.match(dry.stdout, /would run 3 steps/);
    const onlyShell = braid(['run', w.plan, '--only', 'c', '--json'], w.dir);
    assert.equal(onlyShell.status, 0, onlyShell.stderr);
  });

  it('a run that reaches its max-cost-usd stops: the steps not started are canceled for the budget, exit 1', () => {
    const argvFile = join(scratch, 'argv-budget.json');
    // Each fake claude attempt reports $0.0123; the budget is reached as the second ends (a step
    // whose own stream passes it is stopped instead: budgets.test.ts).
    const w = workspace(plan`
      version: 1
      max-cost-usd: 0.0246
      ${withClaude(argvFile)}
      steps:
        a:
          prompt: one
          isolation: shared
        b:
          needs: [a]
          prompt: two
          isolation: shared
        c:
          needs: [b]
          prompt: three
          isolation: shared
      `);
    const r = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(r.status, 1, r.stderr);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id?: string; status?: string; reason?: string; decision?: string });
    assert.ok(
      events.some((e) => e.type === 'budget'),
      'a budget event',
    );
    const end = events.at(-1)!;
    assert.deepEqual([end.type, end.status, end.reason], ['run', 'failed', 'budget']);
    const runId = (events[0] as unknown as { run: string }).run;
    const record = JSON.parse(readFileSync(join(w.dir, '.braid', 'runs', runId, 'run.json'), 'utf8')) as {
      steps: Record<string, { status: string; reason?: string }>;
    };
    assert.deepEqual(Object.fromEntries(Object.entries(record.steps).map(([id, st]) => [id, st.status])), {
      a: 'succeeded',
      b: 'succeeded',
      c: 'canceled',
    });
    assert.equal(record.steps.c!.reason, 'budget');
  });

  it('--permission reaches the agent’s argv on run and retry (default edit); the dry run lists it', () => {
    const argvFile = join(scratch, 'argv-permission.json');
    const w = workspace(plan`
      version: 1
      ${withClaude(argvFile)}
      steps:
        a:
          prompt: go
          check: test -f done
      `);
    const first = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(first.status, 1, first.stderr); // the check fails: something to retry
    assert.equal(permissionMode(argvFile), 'acceptEdits');
    const runId = JSON.parse(first.stdout.split('\n')[0]!).run as string;
    // Options before the run id work too.
    const retry = braid(['retry', '--permission', 'read-only', runId, '--json'], w.dir);
    assert.equal(retry.status, 1, retry.stderr);
    assert.equal(permissionMode(argvFile), 'default');
    writeFileSync(join(w.dir, 'done'), '');
    const full = braid(['run', w.plan, '--json', '--permission', 'full'], w.dir);
    assert.equal(full.status, 0, full.stderr);
    assert.equal(permissionMode(argvFile), 'bypassPermissions');

    const dry = braid(['run', w.plan, '--dry-run', '--permission', 'read-only'], w.dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(
      dry.stdout,
      /^agents:\n {2}claude: claude -p --output-format stream-json --verbose --permission-mode default -- \$\{\{ prompt \}\}$/m,
    );
  });

  it('an unknown --permission is a usage error naming the choices and the value', () => {
    const w = workspace(plan`
      version: 1
      steps:
        a:
          prompt: go
      `);
    for (const args of [
      ['run', w.plan, '--permission', 'sudo'],
      ['retry', 'some-run', '--permission', 'sudo'],
    ]) {
      const r = braid(args, w.dir);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^braid: --permission must be one of read-only, edit, full, got sudo\n/);
      assert.match(r.stderr, /--permission P {4}what agent CLIs may do unasked/, 'then the help');
    }
    assert.equal(existsSync(join(w.dir, '.braid', 'runs')), false);
  });
});
