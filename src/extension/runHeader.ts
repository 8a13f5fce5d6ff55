// The graph panel's header: which run the graph shows, and whether the plan has a newer one.
import type { RunHeader } from '../protocol/webview';
import type { RunsModel, RunView } from './runsModel';
import { formatDuration } from './statusText';

export function runHeader(run: RunView, runs: RunsModel, now = Date.now()): RunHeader {
  const latest = runs.latestOf(run.planFile);
  return {
    id: run.id,
    startedAt: Math.max(0, Math.round(run.createdAt)),
    status: run.status,
    duration: formatDuration(Math.max(0, (run.endedAt ?? now) - run.createdAt)),
    older: latest !== undefined && latest.id !== run.id,
  };
}
