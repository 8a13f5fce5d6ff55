import { strict as assert } from 'node:assert';
import type { StepStatus } from '../../src/core/status';
import type { Graph } from '../../src/core/plan/types';
import { toMermaid } from '../../src/core/plan/mermaid';
import { parseHostMessage } from '../../src/protocol/webview';
import { makeGraph, matrixSteps } from '../helpers/graph';
import { CLASS_DEFS } from '../helpers/mermaidClassDefs';

const text = (...lines: string[]): string => `${lines.join('\n')}\n`;

const small = (): Graph =>
  makeGraph([
    { id: 'lint', run: 'npm run lint' },
    { id: 'test', run: 'npm test' },
    { id: 'review', prompt: 'Review', needs: ['lint', 'test'] },
  ]);
const matrix = (): Graph =>
  makeGraph([
    { id: 'plan', prompt: 'p' },
    ...matrixSteps('pkg', 'name', ['core', 'ui', 'cli'], { prompt: 'review', needs: ['plan'] }),
    { id: 'merge', run: 'true', needs: ['pkg-core', 'pkg-ui', 'pkg-cli'] },
  ]);
const matrixStatuses = new Map<string, StepStatus>([
  ['plan', 'succeeded'],
  ['pkg-core', 'succeeded'],
  ['pkg-ui', 'failed'],
  ['pkg-cli', 'running'],
  ['merge', 'pending'],
]);

describe('mermaid text snapshots', () => {
  it('a small graph with statuses', () => {
    const statuses = new Map<string, StepStatus>([
      ['lint', 'succeeded'],
      ['test', 'running'],
      ['review', 'pending'],
    ]);
    assert.equal(
      toMermaid(small(), { statuses }).text,
      text(
        'flowchart LR',
        '  n0["lint"]',
        '  n1["test"]',
        '  n2["review<br>claude"]',
        '  n0 --> n2',
        '  n1 --> n2',
        ...CLASS_DEFS,
        '  class n2 pending',
        '  class n1 running',
        '  class n0 succeeded',
      ),
    );
  });

  it('a matrix graph, its group drawn as a subgraph', () => {
    assert.equal(
      toMermaid(matrix(), { statuses: matrixStatuses }).text,
      text(
        'flowchart LR',
        '  n0["plan<br>claude"]',
        '  subgraph g0 ["pkg"]',
        '    n1["pkg-core<br>claude"]',
        '    n2["pkg-ui<br>claude"]',
        '    n3["pkg-cli<br>claude"]',
        '  end',
        '  n4["merge"]',
        '  n0 --> n1',
        '  n0 --> n2',
        '  n0 --> n3',
        '  n3 --> n4',
        '  n1 --> n4',
        '  n2 --> n4',
        ...CLASS_DEFS,
        '  class n4 pending',
        '  class n3 running',
        '  class n0,n1 succeeded',
        '  class n2 failed',
      ),
    );
  });

  it('the same matrix collapsed: one node for the group, showing its most urgent status', () => {
    const { text: t, nodeIds } = toMermaid(matrix(), { statuses: matrixStatuses, collapseMatrix: true });
    assert.equal(
      t,
      text(
        'flowchart LR',
        '  n0["plan<br>claude"]',
        '  n1["pkg<br>3 steps"]',
        '  n2["merge"]',
        '  n0 --> n1',
        '  n1 --> n2',
        ...CLASS_DEFS,
        '  class n2 pending',
        '  class n0 succeeded',
        '  class n1 failed',
      ),
    );
    assert.deepEqual(
      [...nodeIds],
      [
        ['plan', 'n0'],
        ['pkg-core', 'n1'],
        ['pkg-ui', 'n1'],
        ['pkg-cli', 'n1'],
        ['merge', 'n2'],
      ],
    );
  });

  it('collapses only the groups asked for; with slots, a collapsed group leaves a place for its counts sized to its digits', () => {
    const { text: t, clusterIds } = toMermaid(matrix(), { collapseGroups: new Set(['pkg']), slots: true });
    assert.ok(
      t.includes(`  n1["<span class='braid-status'></span>pkg<br><span class='braid-counts braid-counts-d1'></span>"]`),
      t,
    );
    assert.ok(!t.includes('subgraph'), 'a collapsed group draws no subgraph');
    assert.equal(clusterIds.size, 0);
    const expanded = toMermaid(matrix(), { collapseGroups: new Set(), slots: true });
    assert.ok(expanded.text.includes('  subgraph g0 ["pkg"]'), expanded.text);
    assert.deepEqual([...expanded.clusterIds], [['pkg', 'g0']]);
    assert.equal(new Set([...expanded.nodeIds.values()]).size, 5, 'each instance its own node');
  });

  it('hostile names: markup, quotes, mermaid syntax, directives and line breaks stay inside their label', () => {
    const g = makeGraph([
      { id: 'a', name: '<img src=x onerror=alert(1)>', run: 'x' },
      {
        id: 'b',
        name: 'x"]:::failed\nclick n0 call alert()',
        prompt: 'p',
        agent: '%%{init:{"securityLevel":"loose"}}%%',
        needs: ['a'],
      },
      { id: 'c', name: 'end\nsubgraph evil', run: 'x', needs: ['b'] },
    ]);
    const { text: t } = toMermaid(g);
    assert.equal(
      t,
      text(
        'flowchart LR',
        '  n0["#60;img src=x onerror=alert(1)#62;"]',
        '  n1["x#34;#93;#58;#58;#58;failed click n0 call alert()<br>#37;#37;#123;init#58;#123;#34;securityLevel#34;#58;#34;loose#34;#125;#125;#37;#37;"]',
        '  n2["end subgraph evil"]',
        '  n0 --> n1',
        '  n1 --> n2',
        ...CLASS_DEFS,
      ),
    );
    // Every label line opens and closes exactly one quoted string, and no raw markup survives.
    for (const line of t.split('\n').filter((l) => /^\s+n\d+\[/.test(l))) {
      assert.equal(line.split('"').length, 3, line);
      assert.doesNotMatch(line.replace('<br>', '').replace(/#\d+;/g, ''), /[<>{}%:;#`]/, line);
    }
  });
});

describe('mermaid text → the webview graph message', () => {
  it('builds a graph message the page accepts, with our node ids for every step', () => {
    const g = matrix();
    const { text: mermaid, nodeIds } = toMermaid(g, { collapseMatrix: true });
    const nodes = g.order.map((id) => {
      const s = g.steps.get(id);
      assert.ok(s);
      return {
        stepId: id,
        nodeId: nodeIds.get(id),
        name: s.name,
        agent: s.agent,
        status: 'pending',
        group: s.matrix?.group,
      };
    });
    const msg = parseHostMessage({ type: 'graph', mermaid, nodes, planName: g.plan.name, structureKey: 'k' });
    assert.ok(msg?.type === 'graph');
    assert.deepEqual(
      msg.nodes.map((n) => [n.stepId, n.nodeId]),
      [
        ['plan', 'n0'],
        ['pkg-core', 'n1'],
        ['pkg-ui', 'n1'],
        ['pkg-cli', 'n1'],
        ['merge', 'n2'],
      ],
    );
  });
});
