// Costs in the workbench, with the real claude, codex and gemini CLIs against the loopback model
// server (test/contract): the graph's agent nodes show each step's cost (claude's growing live,
// an estimate until its own figure), and the status bar the run's total while it goes on.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { agentHome, type AgentHome } from '../../contract/harness/agentHome';
import { ensureAgents } from '../../contract/harness/ensureAgents';
import { startModelServer, type ModelServer } from '../../contract/modelServer/server';
import { findGraphFrame, poll, type GraphFrame } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'cost-e2e.braid.yaml';
const USAGE = { input: 100_000, cached: 40_000, output: 8_000, reasoning: 1_000 };
const statusBarTexts = (page: Page): Promise<string[]> =>
  page.locator('.part.statusbar .statusbar-item').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));

describe('costs in the workbench (real agent CLIs)', function () {
  this.bail(true);
  let server: ModelServer;
  let home: AgentHome;
  let wb: Workbench;
  let graph: GraphFrame;
  const saved = { ...process.env };

  // Before the workbench opens: code-server (and the engine it starts) inherits this environment.
  before(async function () {
    this.timeout(15 * 60_000);
    ensureAgents();
    server = await startModelServer({
      scenario: {
        // claude takes a few slow shell turns, so the run is caught going on with a cost.
        turns: [
          { shell: 'sleep 3' },
          { shell: 'sleep 3' },
          { shell: 'sleep 3' },
          { shell: 'sleep 3' },
          { text: 'Done.' },
        ],
        usage: USAGE,
      },
    });
    home = await agentHome(server.url);
    Object.assign(process.env, home.env);
    // The remote server takes its extension host's environment from a login shell, whose profile
    // resets PATH: the agent home's own profile puts the pinned CLIs back on it.
    for (const f of ['.profile', '.bash_profile'])
      writeFileSync(join(home.env.HOME!, f), `export PATH=${JSON.stringify(home.env.PATH)}\n`);
  });
  after(async () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await server?.close();
    await home?.dispose();
  });

  useWorkbench(
    {
      name: 'cost',
      settings: { 'braid.agentPermission': 'full' },
      prepare: (dir) => {
        writeFileSync(
          join(dir, PLAN_FILE),
          plan`
            version: 1
            name: Cost e2e
            concurrency: 3
            steps:
              codex-step:
                agent: codex
                prompt: Run the commands.
              gemini-step:
                agent: gemini
                prompt: Run the commands.
              claude-step:
                agent: claude
                prompt: Run the commands.
            `,
        );
      },
    },
    (b) => {
      wb = b;
    },
  );

  it("agent nodes show their cost (est. where Braid estimated it), and the status bar the run's total while it runs", async function () {
    this.timeout(180_000);
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Show Graph');
    graph = await findGraphFrame(wb.page, 60_000);
    await graph.button('run-plan').click();
    const detail = async (id: string) => (await graph.node(id).textContent()) ?? '';
    // The claude node's cost while it runs: an estimate from the tokens its messages report.
    await poll(
      'a live cost on the running claude node',
      async () => {
        const s = await graph.statuses();
        return s['claude-step'] === 'running' && /≈\$\d+\.\d\d/.test(await detail('claude-step'));
      },
      120_000,
      100,
    );
    const bar = await poll(
      "the run's total in the status bar",
      async () => (await statusBarTexts(wb.page)).find((t) => /Braid .*\$\d+\.\d+/.test(t)),
      30_000,
    );
    const shot = await wb.screenshot('cost-graph-running');
    await poll(
      'codex and gemini done with their estimated costs',
      async () => {
        const s = await graph.statuses();
        return (
          s['codex-step'] === 'succeeded' &&
          s['gemini-step'] === 'succeeded' &&
          /≈\$\d+\.\d\d/.test(await detail('codex-step')) &&
          /≈\$\d+\.\d\d/.test(await detail('gemini-step'))
        );
      },
      120_000,
      200,
    ).catch(async (e: Error) => {
      throw new Error(
        `${e.message}: ${JSON.stringify(await graph.statuses())} ${await detail('codex-step')} | ${await detail('gemini-step')}`,
      );
    });
    process.stdout.write(`    screenshot: ${shot}\n    status bar: ${bar}\n`);
    assert.match(bar, /Braid/);
    await poll('the run to end', async () => (await graph.statuses())['claude-step'] === 'succeeded', 120_000, 200);
    await poll(
      "claude's own figure once it reported it",
      async () => /· \$\d+\.\d\d/.test(await detail('claude-step')),
      15_000,
    );
    await wb.screenshot('cost-graph-finished');
  });
});
