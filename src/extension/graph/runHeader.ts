// The graph panel's header: which run the graph shows, and whether the plan has a newer one.
import type { RunHeader } from '../../protocol/webview';
import { formatDuration } from '../../core/format';
import { costText } from '../../core/cost/costText';
import type { RunsModel } from '../runs/runsModel';
import type { RunView } from '../runs/runView';

export function runHeader(run: RunView, runs: RunsModel, now = Date.now()): RunHeader {
  const latest = runs.latestOf(run.planFile);
  return {
    id: run.id,
    startedAt: Math.max(0, Math.round(run.createdAt)),
    status: run.status,
    duration: formatDuration(Math.max(0, (run.endedAt ?? now) - run.createdAt)),
    older: latest !== undefined && latest.id !== run.id,
    ...(run.costUsd !== undefined ? { cost: costText(run.costUsd, run.costSource) } : {}),
  };
}
