// A step record's times as the views' one duration function reads them (format.ts stepTimeText):
// the running time is the sum of its attempts', not the wall time from its first start.
import type { TimeFacts } from '../../format';
import type { StepRecord } from './runRecord';

/** The record's running and wall times; records without attempt durations (older ones) fall back to the step's. */
export function timeFactsOf(rec: StepRecord): TimeFacts {
  let ranMs = 0;
  let timed = false;
  for (const a of rec.attempts) {
    if (typeof a.durationMs !== 'number' || !Number.isFinite(a.durationMs)) continue;
    ranMs += a.durationMs;
    timed = true;
  }
  const open = rec.status === 'running' ? rec.attempts.at(-1) : undefined;
  const attemptStartedAt = open && open.endedAt === undefined ? Date.parse(open.startedAt) : undefined;
  const fallback = rec.reused?.durationMs ?? (attemptStartedAt === undefined ? rec.durationMs : undefined);
  const ran = timed ? ranMs : fallback;
  const startedAt = rec.startedAt !== undefined ? Date.parse(rec.startedAt) : undefined;
  const endedAt = rec.endedAt !== undefined ? Date.parse(rec.endedAt) : undefined;
  return {
    status: rec.status,
    ...(ran !== undefined ? { ranMs: ran } : {}),
    ...(attemptStartedAt !== undefined && Number.isFinite(attemptStartedAt) ? { attemptStartedAt } : {}),
    ...(startedAt !== undefined && Number.isFinite(startedAt) ? { startedAt } : {}),
    ...(endedAt !== undefined && Number.isFinite(endedAt) ? { endedAt } : {}),
  };
}

/** The time a record's step spent running (its attempts'), for a reuse marker. */
export function runningMsOf(rec: StepRecord): number | undefined {
  return timeFactsOf(rec).ranMs;
}
