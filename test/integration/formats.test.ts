import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StepStatus } from '../../src/core/status';
import { STEP_STATUSES } from '../../src/core/status';
import { toDot, toJson } from '../../src/core/plan/formats';
import { mermaidLabel, toMermaid } from '../../src/core/plan/mermaid';
import { makeGraph, matrixSteps } from '../helpers/graph';
import { CLASS_DEFS } from '../helpers/mermaidClassDefs';

// The dark-mode example of plan-format.md, with a two-value matrix.
const example = () =>
  makeGraph(
    [
      { id: 'schema', prompt: 'Design the schema', writes: ['docs/schema.md'], isolation: 'worktree' },
      { id: 'backend', needs: ['schema'], prompt: 'API', writes: ['server/**'], isolation: 'worktree' },
      { id: 'frontend', needs: ['schema'], prompt: 'UI', agent: 'codex', writes: ['web/**'], isolation: 'worktree' },
      ...matrixSteps('research', 'tool', ['aider', 'cline'], { prompt: 'Research' }),
      {
        id: 'tests',
        name: 'Unit tests',
        needs: ['backend', 'frontend', 'research-aider', 'research-cline'],
        run: 'npm test',
      },
    ],
    { plan: { name: 'Dark mode', file: 'dark.braid.yaml', concurrency: 3 } },
  );

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  'say "hi"',
  'a]b[c',
  'a --> b',
  '%%{init: {"theme":"dark"}}%%',
  '{x}',
  '`md`',
  'line1\nline2\r\nline3',
  '#quot; #35;',
  'a;b:c',
  '$$x^2$$',
  '&lt;b&gt;',
  'x\u2028y',
  'ﬂ°°60¶ß',
];

describe('formats: makeGraph helper', () => {
  it('orders topologically with ties by given order, and computes dependents and depth', () => {
    const g = example();
    assert.deepEqual(g.order, ['schema', 'backend', 'frontend', 'research-aider', 'research-cline', 'tests']);
    assert.deepEqual(g.steps.get('schema')?.dependents, ['backend', 'frontend']);
    assert.deepEqual(
      ['schema', 'backend', 'research-aider', 'tests'].map((id) => g.steps.get(id)?.depth),
      [3, 2, 2, 1],
    );
    assert.equal(g.steps.get('tests')?.kind, 'run');
    assert.equal(g.steps.get('schema')?.agent, 'claude');
  });

  it('rejects cycles and unknown needs', () => {
    assert.throws(
      () =>
        makeGraph([
          { id: 'a', needs: ['b'] },
          { id: 'b', needs: ['a'] },
        ]),
      /cycle/,
    );
    assert.throws(() => makeGraph([{ id: 'a', needs: ['zz'] }]), /unknown/);
  });
});

describe('formats: toMermaid', () => {
  it('draws the example exactly', () => {
    const { text, nodeIds } = toMermaid(example());
    assert.equal(
      text,
      [
        'flowchart LR',
        '  n0["schema<br>claude"]',
        '  n1["backend<br>claude"]',
        '  n2["frontend<br>codex"]',
        '  subgraph g0 ["research"]',
        '    n3["research-aider<br>claude"]',
        '    n4["research-cline<br>claude"]',
        '  end',
        '  n5["Unit tests"]',
        '  n0 --> n1',
        '  n0 --> n2',
        '  n1 --> n5',
        '  n2 --> n5',
        '  n3 --> n5',
        '  n4 --> n5',
        ...CLASS_DEFS,
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      [...nodeIds],
      [
        ['schema', 'n0'],
        ['backend', 'n1'],
        ['frontend', 'n2'],
        ['research-aider', 'n3'],
        ['research-cline', 'n4'],
        ['tests', 'n5'],
      ],
    );
  });

  it('has one classDef per status, and class lines only for the statuses given', () => {
    const statuses = new Map<string, StepStatus>([
      ['schema', 'succeeded'],
      ['backend', 'running'],
      ['frontend', 'failed'],
      ['research-aider', 'succeeded'],
      ['tests', 'pending'],
    ]);
    const { text } = toMermaid(example(), { statuses });
    for (const s of STEP_STATUSES)
      assert.equal(text.split('\n').filter((l) => l.startsWith(`  classDef ${s} `)).length, 1, s);
    assert.deepEqual(
      text.split('\n').filter((l) => l.startsWith('  class ')),
      ['  class n5 pending', '  class n1 running', '  class n0,n3 succeeded', '  class n2 failed'],
    );
    assert.doesNotMatch(toMermaid(example()).text, /^ {2}class /m);
  });

  it('collapses each matrix group into one counted node with deduplicated edges', () => {
    const g = makeGraph([
      { id: 'prep' },
      ...matrixSteps('shard', 'n', ['1', '2', '3'], { needs: ['prep'] }),
      ...matrixSteps('lint', 'pkg', ['a', 'b'], { needs: ['shard-1', 'shard-2', 'shard-3'] }),
      { id: 'report', needs: ['lint-a', 'lint-b', 'shard-2'] },
    ]);
    const statuses = new Map<string, StepStatus>([
      ['prep', 'succeeded'],
      ['shard-1', 'succeeded'],
      ['shard-2', 'failed'],
      ['shard-3', 'running'],
      ['lint-a', 'succeeded'],
      ['lint-b', 'succeeded'],
    ]);
    const { text, nodeIds } = toMermaid(g, { collapseMatrix: true, statuses });
    assert.equal(
      text,
      [
        'flowchart LR',
        '  n0["prep"]',
        '  n1["shard<br>3 steps"]',
        '  n2["lint<br>2 steps"]',
        '  n3["report"]',
        '  n0 --> n1',
        '  n1 --> n2',
        '  n2 --> n3',
        '  n1 --> n3',
        ...CLASS_DEFS,
        '  class n0,n2 succeeded',
        '  class n1 failed',
        '',
      ].join('\n'),
    );
    assert.deepEqual(
      ['shard-1', 'shard-3', 'lint-b'].map((id) => nodeIds.get(id)),
      ['n1', 'n1', 'n2'],
    );
    assert.doesNotMatch(text, /subgraph/);
  });

  it('collapses a big fan-out to a handful of lines', () => {
    const n = 320;
    const values = Array.from({ length: n }, (_, i) => String(i));
    const g = makeGraph([
      { id: 'a' },
      ...matrixSteps('m', 'i', values, { needs: ['a'] }),
      { id: 'z', needs: values.map((v) => `m-${v}`) },
    ]);
    const full = toMermaid(g).text.split('\n').length;
    const collapsed = toMermaid(g, { collapseMatrix: true }).text.split('\n');
    assert.ok(full > 2 * n);
    assert.deepEqual(
      collapsed.filter((l) => l.includes('-->')),
      ['  n0 --> n1', '  n1 --> n2'],
    );
    assert.ok(collapsed.includes(`  n1["m<br>${n} steps"]`));
  });

  it('never uses user text for ids, and never emits click directives', () => {
    const g = makeGraph(HOSTILE.map((name, i) => ({ id: `s${i}`, name, needs: i > 0 ? [`s${i - 1}`] : [] })));
    const { text, nodeIds } = toMermaid(g);
    assert.deepEqual(
      [...nodeIds.values()],
      HOSTILE.map((_, i) => `n${i}`),
    );
    assert.doesNotMatch(text, /click|%%|javascript:/i);
    const body = text.split('\n').filter((l) => /^ {2}n\d+\["/.test(l));
    assert.equal(body.length, HOSTILE.length);
    for (const line of body) assert.match(line, /^ {2}n\d+\["[^"<>`\]\n]*"\]$/);
  });

  it('escapes every hostile name to entities with no raw markup characters', () => {
    for (const name of HOSTILE) {
      const label = mermaidLabel(name);
      for (const ch of ['<', '>', '"', ']', '[', '`', '\n', '\r', '\u2028', '%', '{', '}', '$', '&', ':', ';', '¶']) {
        assert.ok(
          !label.replace(/#\d+;/g, '').includes(ch),
          `${JSON.stringify(name)} → ${label} has raw ${JSON.stringify(ch)}`,
        );
      }
      // Every `#` in the output starts one of our numeric entities.
      assert.doesNotMatch(label, /#(?!\d+;)/);
    }
    assert.equal(mermaidLabel('<img src=x onerror=alert(1)>'), '#60;img src=x onerror=alert(1)#62;');
    assert.equal(mermaidLabel('say "hi" #1'), 'say #34;hi#34; #35;1');
    assert.equal(mermaidLabel('a\nb'), 'a b');
    assert.equal(mermaidLabel('Ünïcode 日本 ok-1_2.3'), 'Ünïcode 日本 ok-1_2.3');
    assert.equal(mermaidLabel('🚀'), '#128640;');
  });

  it('decoding the entities gives back the name (line breaks as spaces)', () => {
    const decode = (s: string): string => s.replace(/#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
    for (const name of HOSTILE) assert.equal(decode(mermaidLabel(name)), name.replace(/\r\n|[\n\r\u2028]/g, ' '));
  });

  it('escapes agent and group names too', () => {
    const g = makeGraph([{ id: 'a', prompt: 'x', agent: 'my"agent<' }, ...matrixSteps('g"]<', 'k', ['1'])]);
    const { text } = toMermaid(g);
    assert.ok(text.includes('  n0["a<br>my#34;agent#60;"]'));
    assert.ok(text.includes('  subgraph g0 ["g#34;#93;#60;"]'));
    assert.ok(toMermaid(g, { collapseMatrix: true }).text.includes('  n1["g#34;#93;#60;<br>1 step"]'));
  });
});

// Runs mermaid's own parser in a child process, so nothing it sets up leaks into this one. Parsing
// needs no DOM except for DOMPurify, mermaid's HTML sanitizer, which a loader hook replaces there
// with a pass-through: the check is about structure (our labels carry no markup but `<br>`), and
// the real sanitizer runs in the webview, where there is a DOM.
describe('formats: toMermaid against the real mermaid parser', () => {
  it('parses hostile labels into exactly our nodes, edges, subgraph and classes', () => {
    const mermaidUrl = pathToFileURL(createRequire(join(process.cwd(), 'package.json')).resolve('mermaid')).href;
    const g = makeGraph([
      ...HOSTILE.map((name, i) => ({ id: `s${i}`, name, prompt: 'x', agent: name, needs: i > 0 ? [`s${i - 1}`] : [] })),
      ...matrixSteps('g"]<%%{x}', 'k', ['1', '2'], { needs: ['s0'] }),
    ]);
    const statuses = new Map<string, StepStatus>(g.order.map((id) => [id, 'failed']));
    const stub =
      'export default { addHook() {}, removeHook() {}, removeHooks() {}, removeAllHooks() {}, sanitize: (s) => String(s) };';
    const hooks = `export async function resolve(spec, ctx, next) {
        return spec === 'dompurify' ? { url: ${JSON.stringify(`data:text/javascript,${encodeURIComponent(stub)}`)}, shortCircuit: true } : next(spec, ctx);
      }`;
    const script = `
      const { register } = await import('node:module');
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
      const { default: mermaid } = await import(${JSON.stringify(mermaidUrl)});
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
      let text = ''; for await (const c of process.stdin) text += c;
      const d = await mermaid.mermaidAPI.getDiagramFromText(text);
      const decode = (s) => s.replace(/\\uFB02\\xB0\\xB0(\\d+)\\xB6\\xDF/g, (_, n) => String.fromCodePoint(Number(n)));
      console.log(JSON.stringify({
        type: d.type,
        vertices: [...d.db.getVertices()].map(([id, v]) => [id, decode(v.text), v.classes]),
        edges: d.db.getEdges().map((e) => [e.start, e.end]),
        subgraphs: d.db.getSubGraphs().map((s) => [s.id, decode(s.title), s.nodes]),
        classDefs: [...d.db.getClasses().keys()],
      }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      input: toMermaid(g, { statuses }).text,
      encoding: 'utf8',
      timeout: 15000,
    });
    assert.equal(r.status, 0, r.stderr);
    const parsed = JSON.parse(r.stdout) as {
      type: string;
      vertices: [string, string, string[]][];
      edges: [string, string][];
      subgraphs: [string, string, string[]][];
      classDefs: string[];
    };
    assert.equal(parsed.type, 'flowchart-v2');
    const flat = (s: string): string => s.replace(/\r\n|[\n\r\u2028]/g, ' ');
    assert.deepEqual(parsed.vertices, [
      ...HOSTILE.map((name, i) => [`n${i}`, `${flat(name)}<br>${flat(name)}`, ['failed']]),
      [`n${HOSTILE.length}`, 'g"]<%%{x}-1', ['failed']],
      [`n${HOSTILE.length + 1}`, 'g"]<%%{x}-2', ['failed']],
    ]);
    assert.equal(parsed.edges.length, HOSTILE.length - 1 + 2);
    assert.deepEqual(parsed.subgraphs, [['g0', 'g"]<%%{x}', [`n${HOSTILE.length}`, `n${HOSTILE.length + 1}`]]]);
    assert.deepEqual(parsed.classDefs, [...STEP_STATUSES]);
  });
});

describe('formats: toDot', () => {
  it('draws the example exactly, with matrix clusters', () => {
    assert.equal(
      toDot(example()),
      [
        'digraph "Dark mode" {',
        '  rankdir=LR;',
        '  node [shape=box];',
        '  "schema" [label="schema\\nclaude"];',
        '  "backend" [label="backend\\nclaude"];',
        '  "frontend" [label="frontend\\ncodex"];',
        '  subgraph "cluster_g0" {',
        '    label="research";',
        '    "research-aider" [label="research-aider\\nclaude"];',
        '    "research-cline" [label="research-cline\\nclaude"];',
        '  }',
        '  "tests" [label="Unit tests"];',
        '  "schema" -> "backend";',
        '  "schema" -> "frontend";',
        '  "backend" -> "tests";',
        '  "frontend" -> "tests";',
        '  "research-aider" -> "tests";',
        '  "research-cline" -> "tests";',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('quotes and escapes ids and labels', () => {
    const g = makeGraph(
      [
        { id: 'a"b\\', name: 'x "y"\nz \\l' },
        { id: 'c', needs: ['a"b\\'] },
      ],
      { plan: { name: 'p"q' } },
    );
    const dot = toDot(g);
    assert.ok(dot.startsWith('digraph "p\\"q" {\n'));
    assert.ok(dot.includes('  "a\\"b\\\\" [label="x \\"y\\"\\nz \\\\l"];'));
    assert.ok(dot.includes('  "a\\"b\\\\" -> "c";'));
    // Outside escapes, no quote is left unbalanced on any line.
    for (const line of dot.split('\n')) assert.equal(line.replace(/\\./g, '').split('"').length % 2, 1, line);
  });
});

describe('formats: toJson', () => {
  it('lists plan and steps in graph order, every key present', () => {
    const json = toJson(example());
    assert.deepEqual(json.plan, { name: 'Dark mode', file: 'dark.braid.yaml', concurrency: 3 });
    assert.deepEqual(
      json.steps.map((s) => s.id),
      example().order,
    );
    assert.deepEqual(json.steps[3], {
      id: 'research-aider',
      name: 'research-aider',
      kind: 'prompt',
      agent: 'claude',
      needs: [],
      writes: [],
      isolation: 'shared',
      depth: 2,
      matrix: { group: 'research', values: { tool: 'aider' } },
    });
    assert.deepEqual(json.steps[5], {
      id: 'tests',
      name: 'Unit tests',
      kind: 'run',
      agent: null,
      needs: ['backend', 'frontend', 'research-aider', 'research-cline'],
      writes: [],
      isolation: 'shared',
      depth: 1,
      matrix: null,
    });
    assert.equal(toJson(makeGraph([{ id: 'a' }])).plan.concurrency, null);
  });

  it('survives a JSON round trip unchanged', () => {
    const json = toJson(example());
    assert.deepEqual(JSON.parse(JSON.stringify(json)), json);
  });
});
