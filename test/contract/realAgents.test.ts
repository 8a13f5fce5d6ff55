// The real agent CLIs (the pinned versions of scripts/setup-agents.sh) run by `braid run` through
// Braid's presets, against the loopback model server: the happy path of each, end to end — a
// worktree step writes a file through the agent's own tool, it merges back, the answer flows to
// a dependent, session and tokens are recorded.
import { strict as assert } from 'node:assert';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { plan } from '../helpers/planText';

const CLIS = ['claude', 'codex', 'gemini'] as const;

describe('real agent CLIs through braid run (contract)', function () {
  this.timeout(120_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('unused') }, (s, h) => {
    server = s;
    home = h;
  });

  for (const cli of CLIS) {
    it(`${cli}: a worktree step writes a file with the agent's tool, it merges back, its answer reaches a dependent`, async () => {
      server.serve(scenarios.writeFile('hello.txt', 'hello from the agent', 'I wrote hello.txt.'));
      const ws = await makeWorkspace(home.dir, { git: true });
      const r = await runPlan(
        ws,
        plan`
          version: 1
          steps:
            write:
              agent: ${cli}
              isolation: worktree
              prompt: Write hello.txt.
              writes: [hello.txt]
            after:
              needs: [write]
              run: 'echo "got: \${{ steps.write.output }}"'
          `,
        home.env,
      );
      const w = stepOf(r, 'write');
      assert.equal(w.status, 'succeeded', `${r.stdout}\n${r.stderr}\n${await r.log('write')}`);
      assert.equal((await ws.read('hello.txt')).trim(), 'hello from the agent');
      assert.match(await ws.read('.braid/runs/' + r.status.id + '/outputs/after'), /got: I wrote hello\.txt\./);
      const last = w.attempts[w.attempts.length - 1]!;
      assert.ok(last.sessionId, 'a session id is recorded');
      assert.ok(
        (last.inputTokens ?? 0) > 0 && (last.outputTokens ?? 0) > 0,
        `tokens are recorded: ${JSON.stringify(last)}`,
      );
      assert.ok(
        server.requests.some((q) => q.conversation && q.userTexts.some((t) => t.includes('Write hello.txt.'))),
        'the prompt reached the model',
      );
    });
  }

  it('each CLI runs a shell command with its own shell tool (--permission full), and the model gets its result', async () => {
    server.serve(scenarios.shell('echo "ran by $0" > shell-out.txt && echo done-marker', 'The command ran.'));
    const ws = await makeWorkspace(home.dir, { git: false });
    const steps = CLIS.flatMap((cli) => [
      `  sh-${cli}:`,
      `    agent: ${cli}`,
      '    cwd: ' + cli,
      '    prompt: Run the command.',
    ]);
    for (const cli of CLIS) await ws.write(`${cli}/.keep`, '');
    const r = await runPlan(ws, ['version: 1', 'concurrency: 3', 'steps:', ...steps].join('\n') + '\n', home.env, [
      '--permission',
      'full',
    ]);
    for (const cli of CLIS) {
      const s = stepOf(r, `sh-${cli}`);
      assert.equal(s.status, 'succeeded', `sh-${cli}: ${s.message}\n${await r.log(`sh-${cli}`)}`);
      assert.match(
        await ws.read(`${cli}/shell-out.txt`),
        /^ran by /,
        `${cli}'s shell tool ran the command in its folder`,
      );
      assert.match(await r.log(`sh-${cli}`), /→ .*echo/, `${cli}: the tool call is a log line`);
    }
    assert.equal(
      server.requests.filter(
        (q) => q.conversation && q.position === 1 && q.userTexts.some((t) => t.includes('done-marker')),
      ).length,
      3,
      "each model got the command's output back",
    );
  });
});
