// Which steps the locks will keep apart, as the graph panel draws them before a run.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import { lockPairs } from '../../src/core/plan/lockPairs';
import { toMermaid } from '../../src/core/plan/mermaid';
import { plan } from '../helpers/planText';

const graphOf = (yaml: string, isGit = false) => {
  const { graph, diagnostics } = compilePlan('/ws/p.braid.yaml', yaml, { isGit });
  assert.ok(graph, JSON.stringify(diagnostics));
  return graph;
};

const PLAN = `version: 1
name: Locks
steps:
  api:
    run: echo api
    writes: [src/**]
  ui:
    run: echo ui
    writes: [src/ui/button.ts]
  docs:
    run: echo docs
    writes: [docs/**]
  reader:
    run: echo read
    reads: [docs/guide.md]
  after:
    needs: [api]
    run: echo after
    writes: [src/**]
`;

describe('lockPairs', () => {
  it('pairs steps that may run at once and whose locks conflict, naming the globs', () => {
    const pairs = lockPairs(graphOf(PLAN));
    // In graph order: api, ui, docs, reader, after.
    assert.deepEqual(
      pairs.map((p) => [p.a, p.b, ...p.paths]),
      [
        ['api', 'ui', 'src/**', 'src/ui/button.ts'],
        ['ui', 'after', 'src/ui/button.ts', 'src/**'],
        ['docs', 'reader', 'docs/**', 'docs/guide.md'],
      ],
    );
  });

  it('leaves out a pair ordered by needs (after needs api), and readers among themselves', () => {
    const pairs = lockPairs(graphOf(PLAN));
    assert.ok(!pairs.some((p) => (p.a === 'api' && p.b === 'after') || (p.a === 'after' && p.b === 'api')));
    const readers = graphOf(plan`
      version: 1
      steps:
        a:
          run: x
          reads: [f]
        b:
          run: y
          reads: [f]
      `);
    assert.deepEqual(lockPairs(readers), []);
  });

  it('leaves out a pair of worktree steps (they run at once), not a worktree step against a shared one', () => {
    const graph = graphOf(
      `version: 1
steps:
  one:
    run: echo one
    isolation: worktree
    writes: [src/**]
  two:
    run: echo two
    isolation: worktree
    writes: [src/a.ts]
  here:
    run: echo here
    isolation: shared
    writes: [src/b.ts]
`,
      true,
    );
    assert.deepEqual(
      lockPairs(graph).map((p) => [p.a, p.b, ...p.paths]),
      [['one', 'here', 'src/**', 'src/b.ts']],
    );
  });

  it('is drawn as dotted lock links between the two nodes', () => {
    const graph = graphOf(PLAN);
    const { text, nodeIds } = toMermaid(graph, { lockPairs: lockPairs(graph) });
    assert.ok(text.includes(`  ${nodeIds.get('api')} -. lock .- ${nodeIds.get('ui')}\n`), text);
    assert.equal((text.match(/-\. lock \.-/g) ?? []).length, 3);
    assert.ok(!toMermaid(graph).text.includes('lock'), 'no lock links unless asked');
  });
});
