// The real agent CLIs with Braid as their MCP server, configured as the README says (claude's
// `claude mcp add braid -- braid mcp`, codex's `[mcp_servers.braid]` in config.toml, gemini's
// `mcpServers` in settings.json), against the loopback model server, which answers the CLI's
// first turn with a call of Braid's `run_plan`: the CLI starts `braid mcp`, calls the tool, and the
// run it starts is recorded and runs to its end in the workspace's engine, after the CLI is gone.
import { strict as assert } from 'node:assert';
import { appendFile, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectEngine } from '../../src/extension/engine/engineClient';
import {
  buildCli,
  CLI,
  makeWorkspace,
  runProcess,
  statusOf,
  type CliResult,
  type StatusJson,
  type Workspace,
} from './harness/braidRun';
import { withModelAndHome } from './harness/suite';
import type { AgentHome } from './harness/agentHome';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { plan } from '../helpers/planText';
import { until } from '../helpers/until';

const PLAN = plan`
    version: 1
    steps:
      hello:
        run: echo "hello from braid" > hello.txt; cat hello.txt
      after:
        needs: [hello]
        run: wc -c < hello.txt
    `;

const PROMPT = 'Run the Braid plan p.braid.yaml with the run_plan tool.';

/** An agent CLI to its end, with exactly `env`. */
const cli = (command: string, args: readonly string[], cwd: string, env: Record<string, string>) =>
  runProcess(command, args, cwd, env, 90_000);

/** A `braid` on PATH, as `npm link` makes one: the built bundle. */
async function braidOnPath(home: AgentHome): Promise<Record<string, string>> {
  const bin = join(home.dir, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'braid'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, 'braid'), 0o755);
  return { ...home.env, PATH: `${bin}:${home.env.PATH}` };
}

/** `braid status RUN --json` once the run has ended. */
const ended = (ws: Workspace, env: Record<string, string>, run: string): Promise<StatusJson | undefined> =>
  until(
    () => statusOf(ws, env, run),
    (s) => s !== undefined && s.status !== 'running',
    `run ${run} to end`,
    60_000,
  );

/** The run id Braid's run_plan answered, as the CLI sent it back to the model in the tool's result. */
function runIdSentBack(server: ModelServer, since: number): string | undefined {
  for (const r of server.requests.slice(since)) {
    for (const t of r.userTexts) {
      const m = /"run"\s*:\s*"(\d{8}-\d{6}-[0-9a-f]{4})"/.exec(t.replace(/\\"/g, '"'));
      if (m) return m[1];
    }
  }
  return undefined;
}

describe('agent CLIs drive Braid through MCP (loopback model)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;
  withModelAndHome(
    { scenario: scenarios.callTool('run_plan', { file: 'p.braid.yaml' }, 'The run started.') },
    (s, h) => {
      server = s;
      home = h;
    },
  );
  before(() => buildCli());

  const stopEngine = async (ws: Workspace, env: Record<string, string>) => {
    const e = await connectEngine({ workspace: ws.dir, cliPath: CLI, env }).catch(() => undefined);
    await e?.shutdown().catch(() => undefined);
    e?.dispose();
  };

  const expectRun = async (ws: Workspace, env: Record<string, string>, since: number, out: CliResult) => {
    const diag = () =>
      `\n--- CLI exit ${out.code}\n${out.stdout.slice(-4000)}\n${out.stderr.slice(-4000)}\n--- requests: ${JSON.stringify(server.requests.slice(since).map((r) => [r.path, r.status, r.position, r.conversation]))}`;
    const run = runIdSentBack(server, since);
    assert.ok(run, `the tool's result (a run id) reached the model${diag()}`);
    const s = (await ended(ws, env, run))!;
    assert.equal(s.status, 'succeeded', JSON.stringify(s));
    assert.deepEqual(
      Object.values(s.steps).map((x) => [x.id, x.status]),
      [
        ['hello', 'succeeded'],
        ['after', 'succeeded'],
      ],
    );
    assert.equal(await ws.read('hello.txt'), 'hello from braid\n');
    const recorded = JSON.parse(await readFile(join(ws.dir, '.braid', 'runs', run, 'run.json'), 'utf8')) as {
      planFile: string;
    };
    assert.equal(recorded.planFile, join(ws.dir, 'p.braid.yaml'));
  };

  it("claude: `claude mcp add braid -- braid mcp`, then a prompt; the model's run_plan call starts a run that Braid records and runs", async () => {
    const env = await braidOnPath(home);
    const ws = await makeWorkspace(home.dir, { git: true, files: { 'p.braid.yaml': PLAN } });
    try {
      const add = await cli('claude', ['mcp', 'add', 'braid', '--', 'braid', 'mcp'], ws.dir, env);
      assert.equal(add.code, 0, add.stdout + add.stderr);
      const since = server.requests.length;
      const out = await cli(
        'claude',
        ['-p', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'mcp__braid__run_plan', '--', PROMPT],
        ws.dir,
        { ...env, MCP_CONNECTION_NONBLOCKING: '0' },
      );
      await expectRun(ws, env, since, out);
    } finally {
      await stopEngine(ws, env);
    }
  });

  it("codex: `[mcp_servers.braid]` in config.toml, then `codex exec`; the model's run_plan call starts a run that Braid records and runs", async () => {
    const env = await braidOnPath(home);
    const ws = await makeWorkspace(home.dir, { git: true, files: { 'p.braid.yaml': PLAN } });
    const config = join(env.CODEX_HOME!, 'config.toml');
    const before = await readFile(config, 'utf8');
    try {
      await appendFile(
        config,
        '\n[mcp_servers.braid]\ncommand = "braid"\nargs = ["mcp"]\ndefault_tools_approval_mode = "approve"\n',
      );
      const since = server.requests.length;
      const out = await cli('codex', ['exec', '--json', '--skip-git-repo-check', '--', PROMPT], ws.dir, env);
      await expectRun(ws, env, since, out);
    } finally {
      await writeFile(config, before);
      await stopEngine(ws, env);
    }
  });

  it("gemini: `mcpServers.braid` in settings.json, then `gemini -p`; the model's run_plan call starts a run that Braid records and runs", async () => {
    const env = await braidOnPath(home);
    const ws = await makeWorkspace(home.dir, { git: true, files: { 'p.braid.yaml': PLAN } });
    const settings = join(env.HOME!, '.gemini', 'settings.json');
    const before = await readFile(settings, 'utf8');
    try {
      await writeFile(
        settings,
        JSON.stringify(
          { ...JSON.parse(before), mcpServers: { braid: { command: 'braid', args: ['mcp'], trust: true } } },
          null,
          2,
        ),
      );
      const since = server.requests.length;
      const out = await cli(
        'gemini',
        ['--prompt', PROMPT, '--output-format', 'stream-json', '--skip-trust'],
        ws.dir,
        env,
      );
      await expectRun(ws, env, since, out);
    } finally {
      await writeFile(settings, before);
      await stopEngine(ws, env);
    }
  });
});
