// A best-of step in the graph's mermaid text (plan/mermaid.ts `alternatives`): one node with its
// alternatives' counts, or expanded, a subgraph of its alternatives racing into the step's node.
import { strict as assert } from 'node:assert';
import { toMermaid } from '../../src/core/plan/mermaid';
import { makeGraph } from '../helpers/graph';
import { CLASS_DEFS } from '../helpers/mermaidClassDefs';

const text = (...lines: string[]): string => `${lines.join('\n')}\n`;
const id = (s: string, i: number) => `${s}.alt${i}`;
const graph = () =>
  makeGraph([
    { id: 'plan', run: 'true' },
    {
      id: 'fix',
      prompt: 'fix',
      needs: ['plan'],
      bestOf: {
        pick: 'first',
        alternatives: [
          { index: 1, env: {} },
          { index: 2, agent: 'codex', env: {} },
        ],
      },
    },
    { id: 'ship', run: 'true', needs: ['fix'] },
  ]);

describe('a best-of step in mermaid (toMermaid alternatives)', () => {
  it('collapsed: one node saying how many alternatives; every alternative maps to it', () => {
    const r = toMermaid(graph(), { alternatives: { expanded: new Set(), id } });
    assert.equal(
      r.text,
      text(
        'flowchart LR',
        '  n0["plan"]',
        '  n1["fix<br>2 alternatives"]',
        '  n2["ship"]',
        '  n0 --> n1',
        '  n1 --> n2',
        ...CLASS_DEFS,
      ),
    );
    assert.deepEqual([r.nodeIds.get('fix.alt1'), r.nodeIds.get('fix.alt2')], ['n1', 'n1']);
    assert.equal(r.clusterIds.size, 0);
  });

  it('expanded: the alternatives in a subgraph, fed by what the step needs, racing into the step', () => {
    const r = toMermaid(graph(), { alternatives: { expanded: new Set(['fix']), id } });
    assert.equal(
      r.text,
      text(
        'flowchart LR',
        '  n0["plan"]',
        '  subgraph g0 ["fix #183; 2 alternatives"]',
        '    n2["alternative 1<br>claude"]',
        '    n3["alternative 2<br>codex"]',
        '  end',
        '  n1["fix<br>claude"]',
        '  n4["ship"]',
        '  n0 --> n2',
        '  n0 --> n3',
        '  n2 --> n1',
        '  n3 --> n1',
        '  n1 --> n4',
        ...CLASS_DEFS,
      ),
    );
    assert.equal(r.clusterIds.get('fix'), 'g0');
    assert.deepEqual([r.nodeIds.get('fix'), r.nodeIds.get('fix.alt1'), r.nodeIds.get('fix.alt2')], ['n1', 'n2', 'n3']);
  });

  it("without the option a best-of step is a plain node (the CLI's `graph`)", () => {
    assert.match(toMermaid(graph()).text, /n1\["fix<br>claude"\]/);
  });
});
