// Planning by competition, the pure parts: scratch file names, a draft's shape from its graph,
// the side-by-side table, the judge's prompt and the strict reading of its answer.
import { strict as assert } from 'node:assert';
import { agentList } from '../../src/cli/commands/plan';
import { compilePlan } from '../../src/core/plan/compile';
import { comparisonTable, draftShape } from '../../src/core/planning/compareDrafts';
import { draftFile } from '../../src/core/planning/draftFiles';
import { agentFor } from '../../src/core/planning/draftRace';
import { judgePrompt, parseVerdict } from '../../src/core/planning/judge';
import { plan } from '../helpers/planText';

const graphOf = (yaml: string) => {
  const r = compilePlan('/w/p.braid.yaml', yaml, { isGit: true });
  assert.ok(r.graph, JSON.stringify(r.diagnostics));
  return r.graph;
};

describe('planning by competition (pure)', () => {
  it('names drafts beside the plan, keeping its extension', () => {
    assert.equal(draftFile('/w/plan.braid.yaml', 1), '/w/plan.draft-1.braid.yaml');
    assert.equal(draftFile('/w/plans/x.braid.json', 10), '/w/plans/x.draft-10.braid.json');
    assert.equal(draftFile('/w/p.yml', 2), '/w/p.draft-2.yml');
    assert.equal(draftFile('/w/noext', 3), '/w/noext.draft-3.braid.yaml');
  });

  it('uses the agents in turn; a comma list of presets is a list, any other value one agent', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((i) => agentFor(['claude', 'codex', 'gemini'], i)),
      ['claude', 'codex', 'gemini', 'claude'],
    );
    assert.deepEqual(agentList('claude,codex, gemini'), ['claude', 'codex', 'gemini']);
    assert.deepEqual(agentList('mytool --tags a,b'), ['mytool --tags a,b']);
    assert.deepEqual(agentList('claude'), ['claude']);
  });

  it('a shape: steps, the longest chain in steps, the average width capped by the concurrency, the agents', () => {
    const s = draftShape(
      graphOf(
        plan`
          version: 1
          concurrency: 2
          steps:
            a: { run: a }
            b: { run: b }
            c: { run: c }
            d: { run: d }
            e: { needs: [a, b, c, d], agent: codex, prompt: join, isolation: shared }
            f: { needs: [e], agent: claude, prompt: check, isolation: shared }
          `,
      ),
    );
    assert.deepEqual(s, { steps: 6, criticalPath: 3, parallelism: 2, agents: ['codex', 'claude'] });
    const chain = draftShape(
      graphOf('version: 1\nsteps:\n  a: { run: a }\n  b: { needs: [a], run: b }\n  c: { needs: [b], run: c }\n'),
    );
    assert.deepEqual(chain, { steps: 3, criticalPath: 3, parallelism: 1, agents: [] });
  });

  it("the table aligns its columns and puts an invalid draft's problem under it", () => {
    const t = comparisonTable([
      {
        index: 1,
        agent: 'claude',
        file: 'plan.draft-1.braid.yaml',
        ok: true,
        shape: { steps: 12, criticalPath: 4, parallelism: 3, agents: [] },
      },
      { index: 2, agent: 'codex', file: 'plan.draft-2.braid.yaml', ok: false, problem: 'steps.x.nedds: unknown key' },
    ]);
    assert.equal(
      t,
      [
        '#  agent   steps  critical path  parallel  valid  file',
        '1  claude  12     4              ≈ 3.0     yes    plan.draft-1.braid.yaml',
        '2  codex   –      –              –         no     plan.draft-2.braid.yaml',
        '   └ steps.x.nedds: unknown key',
        '',
      ].join('\n'),
    );
  });

  it('the table has a cost column when an agent reported what its draft cost', () => {
    const t = comparisonTable([
      {
        index: 1,
        agent: 'claude',
        file: 'd1',
        ok: true,
        costUsd: 0.1234,
        shape: { steps: 2, criticalPath: 2, parallelism: 1, agents: [] },
      },
      {
        index: 2,
        agent: 'codex',
        file: 'd2',
        ok: true,
        shape: { steps: 3, criticalPath: 1, parallelism: 3, agents: [] },
      },
    ]);
    assert.match(t.split('\n')[0]!, /^#  agent   steps  critical path  parallel  valid  cost +file$/);
    assert.match(t.split('\n')[1]!, /^1  claude  2 +2 +≈ 1\.0 +yes +\$0\.1234 +d1$/);
    assert.match(t.split('\n')[2]!, /^2  codex   3 +1 +≈ 3\.0 +yes +– +d2$/);
  });

  it("the judge's prompt fences each draft beyond any backticks inside it", () => {
    const p = judgePrompt('Ship it', [
      {
        index: 2,
        agent: 'codex',
        yaml: 'run: echo ```x```\n',
        shape: { steps: 1, criticalPath: 1, parallelism: 1, agents: [] },
      },
    ]);
    assert.match(
      p,
      /## Draft 2 \(by codex: 1 steps, critical path 1, parallel ≈ 1\.0\)\n````yaml\nrun: echo ```x```\n````\n/,
    );
    assert.match(p, /one of 2>\nREASON: </);
  });

  it('reads exactly one PICK of a valid draft and its REASON; anything else is an error that says what', () => {
    assert.deepEqual(
      parseVerdict('Thinking…\n  PICK: 3  \nREASON: shortest critical path\nand tests first.\n', [1, 3]),
      { pick: 3, reason: 'shortest critical path and tests first.' },
    );
    assert.deepEqual(parseVerdict('pick: 1\nreason: ok', [1, 2]), { pick: 1, reason: 'ok' });
    const errors: Array<[string, RegExp]> = [
      ['Draft 2 is best.', /has no `PICK: N` line \(N one of 1, 2\)/],
      ['PICK: 1\nPICK: 2\nREASON: both', /has 2 PICK lines; it must have exactly one/],
      ['PICK: two\nREASON: x', /PICK must be a draft number \(one of 1, 2\), got "two"/],
      ['PICK: 1; rm -rf /\nREASON: x', /PICK must be a draft number/],
      ['PICK: 5\nREASON: x', /picked draft 5, which is not one of the valid drafts \(1, 2\)/],
      ['PICK: 2', /no `REASON: …` after its PICK line/],
      ['REASON: first\nPICK: 2', /no `REASON: …` after its PICK line/],
    ];
    for (const [answer, want] of errors) {
      const v = parseVerdict(answer, [1, 2]);
      assert.ok('error' in v, `${answer} → ${JSON.stringify(v)}`);
      assert.match(v.error, want);
    }
    const long = parseVerdict(`PICK: 1\nREASON: ${'x'.repeat(5000)}`, [1]);
    assert.ok('reason' in long && long.reason.length === 1001);
  });
});
