// The layers of architecture.md, checked rather than written down: src/core knows nothing above it,
// the webview talks only through src/protocol, the protocol runs in a browser, and no file imports
// itself round a loop. A new violation fails here with the file and the rule.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { roomViolations } from '../helpers/extensionRooms';
import { importCycles, importEdges, layerViolations, type ImportEdge } from '../helpers/importGraph';

const ROOT = join(__dirname, '..', '..');

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
