// The layers of architecture.md, checked rather than written down: src/core knows nothing above it,
// the webview talks only through src/protocol, the protocol runs in a browser, and no file imports
// itself round a loop, nor any folder round one; inside src/core and src/extension each folder
// imports only those below it in its order. A new violation fails here with the file and the rule.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { roomViolations } from '../helpers/extensionRooms';
import {
  folderEdges,
  importCycles,
  importEdges,
  layerViolations,
  orderViolations,
  type ImportEdge,
} from '../helpers/importGraph';

const ROOT = join(__dirname, '..', '..');

// The floor plan of src/core, ground first (architecture.md draws it). A room is a child folder,
// or a file lying loose beside them; it imports only rooms of its own tier or one below.
const CORE_ORDER = [
  // Ground: the status vocabulary, the template language, processes, paths, and what an agent is.
  [
    'status.ts',
    'disposable.ts',
    'emitter.ts',
    'keyedChain.ts',
    'engineSocket.ts',
    'exact.ts',
    'templates.ts',
    'exec',
    'paths',
    'agents',
  ],
  // The plan compiler: text to a Graph of steps, checked against what the agents can do.
  ['plan'],
  // Diagnostics as text read plan's Diagnostic; a cost reads an agent's summary and formats dollars.
  ['format.ts', 'cost'],
  ['engine'],
  // Observers of a run (engine/runObservers.ts); the CLI picks which a run gets (cli/runWatchers.ts).
  ['notify', 'telemetry'],
  // The faces' services over plans and runs.
  ['language', 'export', 'planning'],
];
// Inside the engine: its vocabulary, a step's state and the scheduler (which takes its parts
// through the ports in schedulerOptions.ts), the records, then the parts that run a step, and
// runPlan, which wires them.
const ENGINE_ORDER = [
  ['types.ts', 'eventSchema.ts', 'events.ts'],
  ['scheduling'],
  ['records'],
  ['locks', 'steps'],
  ['isolation'],
  ['review', 'reuse', 'takeoverTarget.ts'],
  ['runObservers.ts'],
  ['runPlan.ts'],
];
// The extension's rooms (architecture.md): what they share, the plans and the engine client, the
// runs (their model, commands and views), the rooms that show a run's parts, then the wiring. The
// runs model reaches the engine room as a port (engines.ts's RunsSink), the graph the plans room
// as a function: nothing below names a room above it.
const EXTENSION_ORDER = [
  ['common'],
  ['plans', 'engine'],
  ['runs'],
  ['graph', 'review', 'terminals'],
  ['alternatives'],
  ['extension.ts'],
];

describe('import boundaries', () => {
  const edges = importEdges(ROOT, ['src', 'webview']);

  it('reads the real tree (the checks below see its imports)', () => {
    assert.ok(edges.some((e) => e.from === 'src/extension/extension.ts' && e.to === 'vscode'));
    assert.ok(edges.some((e) => e.from.startsWith('webview/') && e.to.startsWith('src/protocol/')));
  });

  it('keeps every layer to its own imports', () => {
    assert.deepEqual(layerViolations(edges), []);
  });

  it('has no import cycle', () => {
    assert.deepEqual(importCycles(edges), []);
  });

  it("has no loop between folders, at any depth (the extension's rooms too)", () => {
    assert.deepEqual(importCycles(folderEdges(edges, 'src')), []);
    assert.deepEqual(importCycles(folderEdges(edges, 'webview')), []);
  });

  it('keeps src/core, its engine and the extension to their floor plans (no arrow back up)', () => {
    assert.deepEqual(orderViolations(edges, 'src/core', CORE_ORDER), []);
    assert.deepEqual(orderViolations(edges, 'src/core/engine', ENGINE_ORDER), []);
    assert.deepEqual(orderViolations(edges, 'src/extension', EXTENSION_ORDER), []);
  });

  describe('the checks themselves', () => {
    const edge = (from: string, to: string): ImportEdge => ({
      from,
      to,
      internal: !/^[a-z@]/.test(to) || (to.includes('/') && to.endsWith('.ts')),
    });
    it('name each kind of violation', () => {
      const found = layerViolations([
        edge('src/core/a.ts', 'vscode'),
        edge('src/core/a.ts', 'src/extension/b.ts'),
        edge('webview/main.ts', 'src/core/engine/types.ts'),
        edge('src/protocol/p.ts', 'node:fs'),
      ]);
      assert.equal(found.length, 4, found.join('\n'));
      assert.match(found[0]!, /src\/core\/a\.ts imports vscode/);
      assert.match(found[2]!, /webview\/ talks only through src\/protocol/);
      assert.match(found[3]!, /no Node built-ins/);
    });
    it('follow what the webview bundles through the protocol', () => {
      const found = layerViolations([
        edge('webview/main.ts', 'src/protocol/p.ts'),
        edge('src/protocol/p.ts', 'src/core/c.ts'),
        edge('src/core/c.ts', 'node:path'),
      ]);
      assert.deepEqual(found, ['src/core/c.ts imports node:path (bundled into the webview: runs in a browser)']);
    });
    it('find a cycle and name its chain', () => {
      const cycles = importCycles([
        edge('src/a.ts', 'src/b.ts'),
        edge('src/b.ts', 'src/c.ts'),
        edge('src/c.ts', 'src/a.ts'),
        edge('src/c.ts', 'src/d.ts'),
      ]);
      assert.deepEqual(cycles, ['src/a.ts → src/b.ts → src/c.ts → src/a.ts']);
    });
    it('find a loop between folders that no file closes', () => {
      const loops = importCycles(
        folderEdges(
          [
            edge('src/core/plan/types.ts', 'src/core/agents/permission.ts'),
            edge('src/core/agents/presets.ts', 'src/core/plan/agentDef.ts'),
            edge('src/core/engine/runPlan.ts', 'src/core/engine/records/runStore.ts'),
          ],
          'src',
        ),
      );
      assert.deepEqual(loops, ['src/core/agents → src/core/plan → src/core/agents']);
    });
    it("find a loop between the extension's rooms, as anywhere", () => {
      const loops = importCycles(
        folderEdges(
          [
            edge('src/extension/engine/engines.ts', 'src/extension/runs/runsModel.ts'),
            edge('src/extension/runs/runCommands.ts', 'src/extension/engine/engines.ts'),
          ],
          'src',
        ),
      );
      assert.deepEqual(loops, ['src/extension/engine → src/extension/runs → src/extension/engine']);
    });
    it('see a loose file as a room of its own', () => {
      const rooms = folderEdges([edge('src/core/engine/scheduling/retry.ts', 'src/core/engine/types.ts')], 'src');
      assert.deepEqual(rooms, [{ from: 'src/core/engine/scheduling', to: 'src/core/engine/types.ts', internal: true }]);
    });
    it('name an arrow back up and a room the order leaves out', () => {
      const found = orderViolations(
        [
          edge('src/core/agents/presets.ts', 'src/core/plan/types.ts'),
          edge('src/core/plan/expand.ts', 'src/core/agents/presets.ts'),
          edge('src/core/newRoom/x.ts', 'src/core/status.ts'),
        ],
        'src/core',
        [['status.ts', 'agents'], ['plan']],
      );
      assert.deepEqual(found, [
        "src/core/agents/presets.ts imports src/core/plan/types.ts (an arrow back up: src/core/agents is below src/core/plan in src/core's order)",
        "src/core/newRoom is in no tier of src/core's order",
      ]);
    });
  });

  describe("the extension's rooms", () => {
    it('keeps every file in a room, each room with one registerX that extension.ts alone calls', () => {
      assert.deepEqual(roomViolations(edges), []);
    });

    it('name each kind of violation', () => {
      const edge = (from: string, to: string): ImportEdge => ({ from, to, internal: to !== 'vscode' });
      const found = roomViolations([
        edge('src/extension/extension.ts', 'src/extension/runs/registerRuns.ts'),
        edge('src/extension/loose.ts', 'vscode'),
        edge('src/extension/graph/registerGraph.ts', 'src/extension/runs/registerRuns.ts'),
        edge('src/extension/graph/graphPanel.ts', 'src/extension/extension.ts'),
        edge('src/extension/plans/plans.ts', 'vscode'),
        edge('src/cli/mcp/context.ts', 'src/extension/engine/engineClient.ts'),
        edge('src/extension/engine/engineClient.ts', 'src/extension/common/config.ts'),
        edge('src/extension/common/config.ts', 'vscode'),
      ]);
      assert.deepEqual(found, [
        'src/extension/loose.ts sits outside a room (src/extension/<feature>/)',
        'src/extension/engine/ has no registerX (one a room)',
        'src/extension/plans/ has no registerX (one a room)',
        "src/extension/graph/registerGraph.ts imports src/extension/runs/registerRuns.ts (a room's registerX is called by extension.ts alone)",
        'src/extension/graph/graphPanel.ts imports src/extension/extension.ts (nothing imports the wiring)',
        'src/extension/common/config.ts imports vscode (bundled into the CLI: runs without VS Code)',
      ]);
    });
  });
});
