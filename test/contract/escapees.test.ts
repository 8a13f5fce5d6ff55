// A stopped agent step leaves nothing running: a process the real CLI's shell tool started in a
// session of its own (out of the step's process group, which the group's signal cannot reach) is
// ended by the mark every process of the step carries (src/core/exec/marked.ts). Each CLI, at
// `permission: full`, is told by the loopback model to start `setsid sleep` and wait; the run is
// interrupted once all three have started it.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentHome } from './harness/agentHome';
import { buildCli, CLI, makeWorkspace } from './harness/braidRun';
import { withModelAndHome } from './harness/suite';
import { scenarios, type Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { isGone, goneSoon } from '../helpers/processes';
import { plan } from '../helpers/planText';
import { until } from '../helpers/until';

const CLIS = ['claude', 'codex', 'gemini'] as const;

/** The command lines of the processes whose working folder is `dir`. */
function workingIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e)))
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === dir)
        found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  return found;
}

describe('a stopped agent step leaves no process behind (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;
  withModelAndHome({ scenario: scenarios.answer('unused') }, (s, h) => {
    server = s;
    home = h;
  });

  it("claude's, codex's and gemini's shell tools' setsid children end with the interrupted run", async () => {
    server.serve((req: RecordedRequest): Scenario => {
      const cli = CLIS.find((c) => req.userTexts.some((t) => t.includes(`[${c}]`)));
      if (!cli) return scenarios.answer('?');
      return scenarios.shell(`setsid sleep 300 >/dev/null 2>&1 & echo $! > ${cli}.pid; sleep 120`, 'Done.');
    });
    const ws = await makeWorkspace(home.dir, { git: true });
    await ws.write(
      'stop.braid.yaml',
      plan`
        version: 1
        steps:
          claude: { agent: claude, isolation: shared, permission: full, prompt: "[claude] Start the daemon." }
          codex: { agent: codex, isolation: shared, permission: full, prompt: "[codex] Start the daemon." }
          gemini: { agent: gemini, isolation: shared, permission: full, prompt: "[gemini] Start the daemon." }
      `,
    );
    buildCli();
    const braid = spawn(process.execPath, [CLI, 'run', 'stop.braid.yaml'], {
      cwd: ws.dir,
      env: home.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    braid.stdout.on('data', (d: Buffer) => (said += d.toString()));
    braid.stderr.on('data', (d: Buffer) => (said += d.toString()));
    const ended = new Promise<number | null>((resolve) => braid.on('close', resolve));
    const pidOf = (cli: string): number => Number(readFileSync(join(ws.dir, `${cli}.pid`), 'utf8').trim());
    const pids: number[] = [];
    try {
      const started = () => CLIS.every((c) => existsSync(join(ws.dir, `${c}.pid`)) && pidOf(c) > 0);
      await until(async () => started(), Boolean, "each CLI's shell to start its daemon", 90_000);
      pids.push(...CLIS.map(pidOf));
      assert.ok(
        pids.every((p) => !isGone(p)),
        'each daemon runs while its step does',
      );
      assert.ok(workingIn(ws.dir).length >= CLIS.length, 'the shell tools work in the workspace while the steps run');
      braid.kill('SIGINT');
      assert.equal(await ended, 130, said);
      for (const [i, cli] of CLIS.entries())
        assert.ok(await goneSoon(pids[i]!), `${cli}'s setsid child ${pids[i]} outlived its stopped step`);
      // Nor the shell tools' own shells (claude's left its bash running before): nothing works in the workspace.
      await until(
        async () => workingIn(ws.dir),
        (left) => left.length === 0,
        'no process working in the workspace',
        5_000,
      );
    } finally {
      braid.kill('SIGKILL');
      for (const p of pids) if (!isGone(p)) process.kill(p, 'SIGKILL');
    }
  });
});
