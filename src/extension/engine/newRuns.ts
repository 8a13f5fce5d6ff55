// Runs this window did not start (an agent's through `braid mcp`, another window's) show live: when
// a run's record appears under a workspace's `.braid/runs/`, the window connects to that
// workspace's engine if one is listening, and its snapshot and events bring the run into the runs
// model like one of its own. A run of a `braid run` in a terminal has no engine to follow; it is
// read from its record.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { runsDir } from '../../core/engine/records/braidLayout';
import { engineSocketPathFor } from '../../core/engineSocket';
import { PROTOCOL_VERSION } from '../../protocol/engine';

export interface NewRunsDeps {
  readonly roots: () => Promise<string[]>;
  /** Connects to the workspace's engine (once; later calls reuse the connection). */
  readonly follow: (workspace: string) => Promise<unknown>;
  /** Reads the workspace's records again (a run no engine runs). */
  readonly reload: (workspace: string) => Promise<void>;
  readonly log: vscode.LogOutputChannel;
}

export function watchNewRuns(deps: NewRunsDeps): vscode.Disposable {
  const watchers: vscode.Disposable[] = [];
  let disposed = false;
  void deps.roots().then((roots) => {
    if (disposed) return;
    for (const root of roots) {
      const w = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(runsDir(root)), '*/run.json'),
        false,
        true,
        true,
      );
      w.onDidCreate(() => void appeared(root));
      watchers.push(w);
    }
  });
  const appeared = async (root: string): Promise<void> => {
    try {
      // Only an engine already listening: a record written by a terminal's `braid run` must not start one.
      // Untrusted, the window starts no engine process, not even by following a stale socket.
      if (vscode.workspace.isTrusted && existsSync(engineSocketPathFor(root, PROTOCOL_VERSION)))
        await deps.follow(root);
      else await deps.reload(root);
    } catch (e) {
      deps.log.warn(`a new run in ${root}: ${(e as Error).message}`);
    }
  };
  return new vscode.Disposable(() => {
    disposed = true;
    for (const w of watchers) w.dispose();
  });
}
