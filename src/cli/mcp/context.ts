// What the Braid MCP tools share: the workspace they are confined to, its run store, whether they
// may land changes, and one connection to the workspace's engine (`braid serve`, the process the
// VS Code extension talks to), made on first need. Runs start there rather than in this server, so
// they outlive a tool call (and this server), are recorded as any other run, and show live in a
// window open on the folder, which is connected to that same engine.
import { relative } from 'node:path';
import { RunStore } from '../../core/engine/records/runStore';
import { resolveInside } from '../../core/paths/containment';
import { connectEngine, type EngineClient } from '../../extension/engine/engineClient';

export interface McpContext {
  /** The workspace's real path: runs are recorded under its `.braid/`, every path stays inside it. */
  readonly workspace: string;
  /** `--no-land`: approve and pick are refused, so only a person lands a change. */
  readonly noLand: boolean;
  readonly store: RunStore;
  /** The workspace's engine, started if none runs. */
  engine(): Promise<EngineClient>;
  /** `path` (relative to the workspace, or absolute) when it stays inside the workspace, symlinks followed. */
  inside(path: string): string | undefined;
  /** A path as the caller should see it: relative to the workspace. */
  shown(abs: string): string;
  dispose(): void;
}

export function mcpContext(o: { workspace: string; noLand: boolean; cliPath: string }): McpContext {
  let engine: Promise<EngineClient> | undefined;
  return {
    workspace: o.workspace,
    noLand: o.noLand,
    store: new RunStore(o.workspace),
    engine() {
      engine ??= connectEngine({ workspace: o.workspace, cliPath: o.cliPath, clientName: `braid mcp ${process.pid}` });
      // A failed start is tried again at the next call, not remembered.
      engine.catch(() => {
        engine = undefined;
      });
      return engine;
    },
    inside(path) {
      // Absolute paths are taken relative to the workspace, then held to it like any other.
      const rel = path.startsWith('/') ? relative(o.workspace, path) : path;
      return rel === '' ? undefined : resolveInside(o.workspace, rel);
    },
    shown: (abs) => relative(o.workspace, abs) || '.',
    dispose() {
      void engine?.then(
        (c) => c.dispose(),
        () => undefined,
      );
    },
  };
}
