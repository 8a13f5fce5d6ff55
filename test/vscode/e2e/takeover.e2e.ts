// Continue in Terminal in a real workbench (issue 34): an agent step fails and keeps its worktree;
// Braid: Continue in Terminal opens a terminal named for the step, in that worktree, running
// `braid attach`, which hands the step's agent to the person there (an agent Braid cannot resume:
// a fresh session told what happened so far). Screenshot: test-artifacts/screenshots/takeover-terminal.png.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FixtureWorkspace } from '../fixtureWorkspace';
import { poll } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

const PLAN_FILE = 'takeover-e2e.braid.yaml';
// Where the agent, once a person has it, says which folder it runs in.
const MARKER = join(tmpdir(), `braid-e2e-takeover-${process.pid}`);
// First run: it fails. Handed to a person (its prompt then says what happened so far): it shows
// where it is and waits for them.
const AGENT = [
  'case "$1" in',
  `  *"earlier session"*) pwd > '${MARKER}'; printf 'agent here, in %s\\n' "$(pwd)"; read answer ;;`,
  '  *) echo "could not finish"; exit 1 ;;',
  'esac',
  '',
].join('\n');

describe('Continue in Terminal in the workbench', function () {
  this.bail(true);
  let ws: FixtureWorkspace;
  let wb: Workbench;

  useWorkbench(
    {
      name: 'takeover',
      prepare: (dir) => {
        writeFileSync(join(dir, 'agent.sh'), AGENT);
        writeFileSync(
          join(dir, PLAN_FILE),
          plan`
            version: 1
            name: Takeover e2e
            agents:
              helper:
                input: text
                command: [sh, ${JSON.stringify(join(dir, 'agent.sh'))}, "\${{ prompt }}"]
            steps:
              fix-it:
                agent: helper
                prompt: Fix the thing.
            `,
        );
      },
    },
    (b, w) => {
      wb = b;
      ws = w;
    },
  );
  after(() => rmSync(MARKER, { force: true }));

  const record = (): { steps: Record<string, { status: string; worktree?: string }> } | undefined => {
    const dir = join(ws.path, '.braid', 'runs');
    const id = existsSync(dir) ? readdirSync(dir).sort().at(-1) : undefined;
    if (!id) return undefined;
    try {
      return JSON.parse(readFileSync(join(dir, id, 'run.json'), 'utf8'));
    } catch {
      return undefined;
    }
  };

  it("a failed agent step's Continue in Terminal opens a terminal in its worktree, with its agent there", async () => {
    await openFile(wb, PLAN_FILE);
    await runCommand(wb, 'Braid: Run Plan');
    const failed = await poll(
      'fix-it failed, its worktree kept',
      async () => {
        const s = record()?.steps['fix-it'];
        return s?.status === 'failed' && s.worktree ? s : undefined;
      },
      60_000,
    );
    await runCommand(wb, 'Braid: Continue in Terminal');
    const cwd = await poll(
      'the agent in the terminal',
      async () => (existsSync(MARKER) ? readFileSync(MARKER, 'utf8').trim() : undefined),
      60_000,
    );
    assert.equal(cwd, failed.worktree, "the agent runs in the step's kept worktree");
    const tab = wb.page.locator('.part.panel', { hasText: 'Braid: fix-it' }).first();
    await tab.waitFor({ state: 'visible', timeout: 20_000 });
    // xterm's rows, where the DOM has them (the renderer may draw on a canvas instead).
    const rows = (
      await wb.page
        .locator('.part.panel .xterm-rows')
        .allTextContents()
        .catch(() => [] as string[])
    ).join('\n');
    if (rows.trim() !== '') assert.match(rows.replace(/\u00a0/g, ' '), /agent here, in /);
    await wb.screenshot('takeover-terminal');
    assert.equal(record()?.steps['fix-it']?.status, 'running', "the step runs again: its attempt is the person's");
  });
});
