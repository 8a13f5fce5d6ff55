// Planning by competition with the real CLIs: `braid plan GOAL --best-of 3 --agent
// claude,codex,gemini` has each CLI draft a plan at once through its own file tool, into its own
// scratch file (the model writes whatever file the prompt names); then a kept draft by --keep, and
// a real claude judging the drafts of codex and gemini. That the drafts run at once is proven in
// test/integration/planningBestOf.test.ts (a barrier each draft waits at): the CLIs' start-up times
// differ by seconds, so their requests here need not overlap.
import { strict as assert } from 'node:assert';
import { readdir } from 'node:fs/promises';
import { type AgentHome } from './harness/agentHome';
import { braid, makeWorkspace } from './harness/braidRun';
import type { Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { plan } from '../helpers/planText';

const WRITE_LINE = /^Write the plan to this file: (.+)$/m;

/** A valid plan naming the draft it was written for, so the kept file says which one it was. */
const planFor = (file: string): string =>
  plan`
    version: 1
    name: drafted into ${file}
    steps:
      lint:
        run: echo lint
      test:
        run: echo test
      build:
        needs: [lint, test]
        run: echo build
    `;

/** Drafters write the file their prompt names; the judge picks draft 2. */
function planning(req: RecordedRequest): Scenario {
  const texts = req.userTexts.join('\n');
  if (texts.includes('You are judging drafts'))
    return {
      turns: [{ text: 'Both are sound; the second is clearer.\nPICK: 2\nREASON: Draft 2 names its steps plainly.' }],
    };
  const file = WRITE_LINE.exec(texts)?.[1]?.trim();
  if (!file) return { turns: [{ text: 'no file named' }] };
  return { turns: [{ write: { path: file, content: planFor(file) } }, { text: `Wrote ${file}.` }] };
}

describe('braid plan --best-of with the real agent CLIs (contract)', function () {
  this.timeout(240_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: planning }, (s, h) => {
    server = s;
    home = h;
  });

  it("claude, codex and gemini each draft a plan at once into their own file; --keep 1 keeps claude's and removes the others", async () => {
    const ws = await makeWorkspace(home.dir, { git: true });
    const since = server.requests.length;
    const r = await braid(
      [
        'plan',
        'Lint and test, then build',
        '--best-of',
        '3',
        '--agent',
        'claude,codex,gemini',
        '--keep',
        '1',
        '--workspace',
        ws.dir,
      ],
      ws.dir,
      home.env,
      200_000,
    );
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal(r.stdout.trim(), `${ws.dir}/plan.braid.yaml`);
    assert.match(await ws.read('plan.braid.yaml'), /^name: drafted into plan\.draft-1\.braid\.yaml$/m);
    for (const [n, cli] of [
      [1, 'claude'],
      [2, 'codex'],
      [3, 'gemini'],
    ] as const) {
      assert.match(
        r.stderr,
        new RegExp(`^${n}\\s+${cli}\\s+3\\s+2\\s+≈ 1\\.5\\s+yes\\s+`, 'm'),
        `draft ${n} by ${cli} is valid in the table:\n${r.stderr}`,
      );
    }
    assert.deepEqual(
      (await readdir(ws.dir)).filter((n) => n.includes('.draft-')),
      [],
      'the other drafts are removed',
    );
    const providers = new Set(
      server.requests
        .slice(since)
        .filter((q) => q.conversation && q.userTexts.some((t) => WRITE_LINE.test(t)))
        .map((q) => q.provider),
    );
    assert.deepEqual(
      [...providers].sort(),
      ['anthropic', 'gemini', 'openai'],
      'each CLI asked its model with the planning prompt',
    );
  });

  it('--judge claude: a real claude reads the drafts of codex and gemini and its pick is kept with its reason', async () => {
    const ws = await makeWorkspace(home.dir, { git: true });
    const r = await braid(
      [
        'plan',
        'Lint and test, then build',
        '--best-of',
        '2',
        '--agent',
        'codex,gemini',
        '--judge',
        'claude',
        '--workspace',
        ws.dir,
      ],
      ws.dir,
      home.env,
      200_000,
    );
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /the judge \(claude\) picks draft 2: Draft 2 names its steps plainly\./);
    assert.match(await ws.read('plan.braid.yaml'), /^name: drafted into plan\.draft-2\.braid\.yaml$/m);
    const judged = server.requests.filter(
      (q) =>
        q.provider === 'anthropic' && q.conversation && q.userTexts.some((t) => t.includes('You are judging drafts')),
    );
    assert.ok(judged.length > 0, 'the judge prompt reached the model');
    const text = judged[0]!.userTexts.join('\n');
    assert.match(text, /## Draft 1 \(by codex: 3 steps, critical path 2, parallel ≈ 1\.5\)/);
    assert.match(text, /name: drafted into plan\.draft-2\.braid\.yaml/);
  });
});
