// Agent CLIs through the engine process, as the extension drives it: `compile.permission` of run
// and retry reaches the agent's argv, and a missing CLI refuses the run request with every
// missing executable in its message and as diagnostics, before any record.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectEngine, EngineRequestError, type EngineClient } from '../../src/extension/engine/engineClient';
import { makeAgentScratch, type AgentScratch } from '../helpers/agentScratch';
import { plan } from '../helpers/planText';

const q = (s: string) => JSON.stringify(s);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('engine process and agent CLIs', function () {
  this.timeout(60_000);
  // Our own bundle of the CLI, a PATH without agents, and a bin/ with the fake claude.
  let scratch = '',
    CLI = '',
    empty = '',
    bin = '';
  let made: AgentScratch | undefined;
  const clients: EngineClient[] = [];

  before(async () => {
    made = await makeAgentScratch('braid-engine-agents-');
    ({ dir: scratch, cli: CLI, empty, bin } = made);
  });
  after(async () => {
    for (const c of clients) {
      const pid = c.pid;
      c.dispose();
      if (alive(pid)) process.kill(pid, 'SIGTERM');
    }
    // A stopping engine writes its records and removes its socket on the way out: wait for it to
    // be gone before the folders go, or the removal races its last writes.
    for (const c of clients) {
      for (let i = 0; i < 100 && alive(c.pid); i++) await new Promise((res) => setTimeout(res, 50));
    }
    rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  });

  async function connect(dir: string): Promise<EngineClient> {
    const c = await connectEngine({
      workspace: dir,
      cliPath: CLI,
      clientName: 'engineAgents.test',
      env: { BRAID_ENGINE_IDLE_MS: '30000' },
    });
    clients.push(c);
    return c;
  }

  const workspace = (text: string) => made!.workspace(text);

  it('compile.permission of run and retry reaches the agent’s argv', async () => {
    const argvFile = join(scratch, 'argv.json');
    const w = workspace(plan`
      version: 1
      env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude, FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }
      steps:
        a:
          prompt: go
          check: test -f done
      `);
    const mode = () => {
      const argv = (JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[] }).argv;
      return argv[argv.indexOf('--permission-mode') + 1];
    };
    const c = await connect(w.dir);
    const { runId } = await c.run({ planFile: 'p.braid.yaml', compile: { permission: 'read-only' } });
    assert.equal((await c.whenEnded(runId)).status, 'failed');
    assert.equal(mode(), 'default');
    writeFileSync(join(w.dir, 'done'), '');
    await c.retry({ runId, compile: { permission: 'full' } });
    assert.equal((await c.whenEnded(runId)).status, 'succeeded');
    assert.equal(mode(), 'bypassPermissions');
  });

  it('a missing agent CLI refuses the run request: each missing one in the message and the diagnostics, no record', async () => {
    const w = workspace(plan`
      version: 1
      env: { PATH: ${q(empty)} }
      steps:
        a:
          prompt: one
        b:
          agent: gemini
          prompt: two
      `);
    const c = await connect(w.dir);
    await assert.rejects(c.run({ planFile: w.plan }), (e: unknown) => {
      assert.ok(e instanceof EngineRequestError);
      assert.deepEqual(
        e.diagnostics.map((d) => [d.code, d.file, d.range.start.line]),
        [
          ['agent-missing', w.plan, 3],
          ['agent-missing', w.plan, 5],
        ],
      );
      assert.equal(
        e.message,
        [
          `${w.plan}:4:3: error: claude is not installed; install it with npm install -g @anthropic-ai/claude-code; needed by step a`,
          `${w.plan}:6:3: error: gemini is not installed; install it with npm install -g @google/gemini-cli; needed by step b`,
        ].join('\n'),
      );
      return true;
    });
    assert.equal(existsSync(join(w.dir, '.braid', 'runs')), false);
  });
});
