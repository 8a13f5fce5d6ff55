// Captures the real CLIs' streams (stdout and stderr) against the loopback model server, as
// Braid runs them (its presets, retry bounds and budget flag), into
// test/fixtures/agents/streams/ for the parsers' unit tests (test/unit/agentStreamFixtures.test.ts).
//   node --import tsx test/contract/captureStreams.ts     (after scripts/setup-agents.sh)
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentInvocation } from '../../src/core/agents/invocation';
import { launchOptions } from '../../src/core/agents/launchOptions';
import { agentFamily, presetTable } from '../../src/core/agents/presets';
import { agentHome } from './harness/agentHome';
import { runProcess } from './harness/braidRun';
import { scenarios, type Scenario } from './modelServer/scenario';
import { startModelServer } from './modelServer/server';

const OUT = join(__dirname, '..', 'fixtures', 'agents', 'streams');

interface Capture {
  cli: 'claude' | 'codex' | 'gemini';
  name: string;
  scenario: Scenario;
  prompt?: string;
  maxCostUsd?: number;
  resume?: boolean;
  /** Codex's own retries left alone and a model it has no metadata for: its notices, on a run that succeeds. */
  notices?: boolean;
}

const CAPTURES: Capture[] = [
  ...(['claude', 'codex', 'gemini'] as const).flatMap((cli) => [
    { cli, name: 'write', scenario: scenarios.writeFile('hello.txt', 'hello') },
    { cli, name: 'rate-limit', scenario: scenarios.rateLimited(30) },
    { cli, name: 'server-error', scenario: scenarios.serverError() },
  ]),
  { cli: 'gemini', name: 'quota', scenario: scenarios.quota() },
  { cli: 'claude', name: 'budget', scenario: scenarios.shell('echo one'), maxCostUsd: 0.0001 },
  { cli: 'codex', name: 'resumed', scenario: scenarios.answer('Answered again.'), resume: true },
  {
    cli: 'codex',
    name: 'notices',
    scenario: { turns: [{ error: 'server-error', times: 6 }, { text: 'Done after reconnecting.' }] },
    notices: true,
  },
];

/** A CLI to its end (killed after two minutes), with exactly `env`. */
const run = (argv: string[], cwd: string, env: Record<string, string>) => runProcess(argv[0]!, argv.slice(1), cwd, env);

async function main(): Promise<void> {
  const server = await startModelServer({ scenario: scenarios.answer('x') });
  const home = await agentHome(server.url);
  const table = presetTable({ permission: 'full' });
  try {
    for (const c of CAPTURES) {
      server.serve(c.scenario);
      const cwd = await mkdtemp(join(home.dir, 'cap-'));
      const agent = table[c.cli]!;
      const build = async (a = agent, prompt = c.prompt ?? 'Do the task.') => {
        const inv = agentInvocation(a, (t) => t, prompt);
        return launchOptions(agentFamily(a), inv.argv, { ...home.env, ...inv.env }, c.maxCostUsd);
      };
      let inv = await build();
      if (c.notices) {
        const plain = agentInvocation(agent, (t) => t, 'Do the task.');
        inv = {
          argv: [...plain.argv.slice(0, 2), '-c', 'model="gpt-5-codex"', ...plain.argv.slice(2)],
          env: { ...home.env, ...plain.env },
        };
      }
      if (c.resume) {
        const first = await run(inv.argv, cwd, inv.env);
        const id = /"thread_id":"([^"]+)"/.exec(first.stdout)?.[1];
        const { resumeAgent } = await import('../../src/core/agents/resume');
        inv = await build(resumeAgent(agent, id!), 'Continue.');
      }
      const r = await run(inv.argv, cwd, inv.env);
      // Machine-specific paths become stable placeholders.
      const clean = (s: string) =>
        s
          .split(cwd)
          .join('/WORKDIR')
          .split(home.dir)
          .join('/HOME')
          .split(join(__dirname, '..', '..'))
          .join('/REPO')
          .replace(/\/work\/main\/\.vscode-test\/agents/g, '/AGENTS');
      await writeFile(join(OUT, `${c.cli}-${c.name}.jsonl`), clean(r.stdout));
      await writeFile(join(OUT, `${c.cli}-${c.name}.stderr`), clean(r.stderr));
      console.log(`${c.cli}-${c.name}: exit ${r.code}, ${r.stdout.split('\n').length} lines`);
    }
  } finally {
    await server.close();
    await home.dispose();
  }
}

void main();
