// What users write and where they run, with the real CLIs through `braid run`: a prompt that
// starts with a YAML bullet list, a prompt of exactly `--help`, a workspace that is not a git
// repository (codex refuses one unless told), and `--permission full` as root (claude's
// bypassPermissions refuses root unless told the machine is a sandbox). One run covers all:
// six agent steps at once, in a plain folder, with full permission.
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { withModelAndHome } from './harness/suite';

const CLIS = ['claude', 'codex', 'gemini'] as const;
const BULLETS = '- add a unit test for parse()\n- keep the public API as it is\n';

describe('prompts and places users give the real agent CLIs (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('Done.') }, (s, h) => {
    server = s;
    home = h;
  });

  it('a bullet-list prompt and a prompt of exactly --help reach the model on every preset, outside git, with --permission full (as root here)', async () => {
    const ws = await makeWorkspace(home.dir, { git: false });
    const steps: string[] = [];
    for (const cli of CLIS) {
      steps.push(
        `  bullets-${cli}:`,
        `    agent: ${cli}`,
        '    prompt: |',
        ...BULLETS.trimEnd()
          .split('\n')
          .map((l) => `      ${l}`),
      );
      steps.push(`  help-${cli}:`, `    agent: ${cli}`, "    prompt: '--help'");
    }
    const r = await runPlan(ws, ['version: 1', 'concurrency: 6', 'steps:', ...steps].join('\n') + '\n', home.env, [
      '--permission',
      'full',
    ]);
    const seen = (prompt: string) =>
      server.requests
        .filter((q) => q.conversation && q.userTexts.some((t) => t.trim() === prompt.trim()))
        .map((q) => q.provider);
    for (const cli of CLIS) {
      for (const id of [`bullets-${cli}`, `help-${cli}`]) {
        const s = stepOf(r, id);
        assert.equal(s.status, 'succeeded', `${id}: ${s.message ?? ''}\n${await r.log(id)}`);
        assert.equal((await ws.read(`.braid/runs/${r.status.id}/outputs/${id}`)).trim(), 'Done.');
      }
    }
    const provider = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' } as const;
    for (const cli of CLIS) {
      assert.ok(seen(BULLETS).includes(provider[cli]), `${cli}: the bullet list reached the model as the prompt`);
      assert.ok(seen('--help').includes(provider[cli]), `${cli}: "--help" reached the model as the prompt`);
    }
  });
});
