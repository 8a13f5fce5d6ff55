// The engine room: one engine process per workspace beside the window (its events feed the runs
// model), runs started elsewhere followed live, and `braid mcp` offered to VS Code's MCP clients.
import * as vscode from 'vscode';
import { keeper } from '../common/registration';
import { Engines, type EnginesDeps, type RunsSink } from './engines';
import { registerMcpServers } from './mcpServers';
import { watchNewRuns } from './newRuns';

export interface EngineRoomDeps {
  readonly cliPath: string;
  readonly runs: RunsSink;
  readonly log: vscode.LogOutputChannel;
  readonly roots: () => Promise<string[]>;
  readonly onEvent: EnginesDeps['onEvent'];
  readonly onSnapshot: NonNullable<EnginesDeps['onSnapshot']>;
}

export function registerEngine(context: vscode.ExtensionContext, d: EngineRoomDeps): Engines {
  const sub = keeper(context);
  const { cliPath, runs, log } = d;
  const engines = sub(new Engines({ cliPath, runs, log, onSnapshot: d.onSnapshot, onEvent: d.onEvent }));
  sub(
    watchNewRuns({
      roots: d.roots,
      follow: (root) => engines.client(root),
      reload: (root) => runs.loadRecords([root]),
      log,
    }),
  );
  sub(
    registerMcpServers({
      cliPath,
      roots: d.roots,
      version: String((context.extension.packageJSON as { version?: unknown }).version),
      log,
    }),
  );
  return engines;
}
