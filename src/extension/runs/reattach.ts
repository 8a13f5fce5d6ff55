// At start (and when a test asks, as a reload would): the runs of this workspace from their
// records; one that says `running` means an engine to reattach to. The engine, not this window,
// writes run.json: it marks runs whose engine died `interrupted` (listRuns), and those are read again.
import type * as vscode from 'vscode';
import type { Engines } from '../engine/engines';
import type { RunsModel } from './runsModel';

export interface ReattachDeps {
  readonly runs: RunsModel;
  readonly engines: Engines;
  readonly roots: () => Promise<string[]>;
  readonly log: vscode.LogOutputChannel;
}

export async function reattach({ runs, engines, roots: workspaceRoots, log }: ReattachDeps): Promise<void> {
  const roots = await workspaceRoots();
  await runs.loadRecords(roots);
  for (const root of roots) {
    const going = runs.runs().filter((r) => r.workspace === root && r.status === 'running');
    if (going.length === 0) continue;
    try {
      const { active } = await (await engines.client(root)).listRuns();
      for (const r of going) if (!active.includes(r.id)) await runs.ensureEnded(root, r.id);
    } catch (err) {
      log.warn(`engine: ${(err as Error).message}`);
    }
  }
}
