// `on-conflict: resolve` with the real claude, codex and gemini CLIs through `braid run`: each
// agent's change conflicts with the user's edit made while it worked; Braid merges the workspace
// into the step's worktree (markers there), resumes the agent's session with the conflict note,
// the model answers with an edit that removes the markers (modelServer/conflictScenario.ts), and it lands.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf, type Workspace } from './harness/braidRun';
import { scenarios } from './modelServer/scenario';
import type { ModelServer, Provider } from './modelServer/server';
import { CONFLICT_NOTE, conflictScenario } from './modelServer/conflictScenario';
import { withModelAndHome } from './harness/suite';

const CLI_OF: Record<Provider, string> = { anthropic: 'claude', openai: 'codex', gemini: 'gemini' };
const lines = (two: string[]) => ['line 1', ...two, 'line 3', 'line 4'].join('\n') + '\n';

describe('on-conflict: resolve with the real agent CLIs (contract)', function () {
  this.timeout(240_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('Answered.') }, (s, h) => {
    server = s;
    home = h;
  });

  it("claude, codex and gemini each resolve their conflict with the user's edit in their own session, and it lands", async () => {
    const files = Object.fromEntries(Object.values(CLI_OF).map((cli) => [`f-${cli}.txt`, lines(['line 2'])]));
    const ws: Workspace = await makeWorkspace(home.dir, { git: true, files });
    server.serve(
      conflictScenario({
        first: (p) => ({ shell: `sed -i 's/^line 2$/line 2 by ${CLI_OF[p]}/' f-${CLI_OF[p]}.txt` }),
        // Keeps both sides: deletes the marker lines Braid's merge left in the file.
        resolved: (p) => ({ shell: `sed -i -E '/^(<{7}|={7}|>{7})/d' f-${CLI_OF[p]}.txt` }),
        // The user saves the same line while the agent works (after the run's base was taken).
        onFirst: (p) => writeFileSync(join(ws.dir, `f-${CLI_OF[p]}.txt`), lines(['line 2 by the user'])),
      }),
    );
    const steps = Object.values(CLI_OF).flatMap((cli) => [
      `  s-${cli}:`,
      `    agent: ${cli}`,
      `    prompt: Mark line 2 of f-${cli}.txt as yours.`,
      `    writes: [f-${cli}.txt]`,
      "    check: \"! grep -q '^<<<<<<<' f-" + cli + '.txt"',
    ]);
    // `full`: each CLI runs the model's shell edits unasked (edit refuses sed for claude and gemini).
    const r = await runPlan(ws, ['version: 1', 'concurrency: 3', 'steps:', ...steps].join('\n') + '\n', home.env, [
      '--permission',
      'full',
    ]);
    for (const cli of Object.values(CLI_OF)) {
      const s = stepOf(r, `s-${cli}`);
      assert.equal(s.status, 'succeeded', `${cli}: ${s.message}\n${await r.log(`s-${cli}`)}`);
      assert.equal(
        s.attempts.length,
        2,
        `${cli}: ${JSON.stringify(s.attempts)}\n${await r.log(`s-${cli}`)}\n${await ws.read(`f-${cli}.txt`)}`,
      );
      const [first, resolution] = [s.attempts[0]!, s.attempts[1]!];
      assert.equal(first.status, 'conflict', cli);
      assert.equal(resolution.reason, 'conflict', `${cli}: the resolution is an attempt of its own`);
      assert.match(resolution.message ?? '', new RegExp(`f-${cli}\\.txt`));
      assert.ok(first.sessionId, `${cli}: a session`);
      assert.equal(resolution.sessionId, first.sessionId, `${cli}: the resolution continues the step's session`);
      assert.ok((resolution.inputTokens ?? 0) > 0, `${cli}: the resolution's tokens are counted`);
      assert.equal(
        await ws.read(`f-${cli}.txt`),
        lines(['line 2 by the user', `line 2 by ${cli}`]),
        `${cli}: both edits in the workspace`,
      );
      assert.match(await r.log(`s-${cli}`), new RegExp(`resolving the conflict in f-${cli}\\.txt`));
    }
    const told = server.requests.filter((q) => q.userTexts.some((t) => t.includes(CONFLICT_NOTE)));
    for (const cli of Object.values(CLI_OF)) {
      assert.ok(
        told.some((q) =>
          q.userTexts.some((t) => t.includes(`f-${cli}.txt (edited in the workspace by the user, not by a step)`)),
        ),
        `${cli}: the prompt names the file and who changed it`,
      );
    }
    const claude = stepOf(r, 's-claude');
    assert.ok(
      (claude.costUsd ?? 0) > (claude.attempts[0]!.costUsd ?? 0),
      "the resolution's cost is counted in the step's",
    );
  });
});
