// `--only STEP` (and the editor's *Run step*) runs STEP, not again what it needs: a need whose
// content key (contentKey.ts) is the one it succeeded with the last time it ran in this workspace
// is reused (its output read back from that run), unless the user asks for a fresh run. Needs
// reuse from the end of a chain only: a need that runs again makes everything after it run too.
import type { Graph } from '../../plan/types';
import type { RunStore } from '../records/runStore';
import type { RunRecord, StepRecord } from '../records/runRecord';
import { runningMsOf } from '../records/timeFacts';
import type { EngineEvent } from '../types';

/** A need taken from an earlier run instead of run again. */
export interface ReusedStep {
  readonly id: string;
  /** The run that ran it (a reuse of a reuse names the first). */
  readonly run: string;
  /** The earlier record (its running time is shown again) and its output. */
  readonly record: StepRecord;
  readonly output: string;
  readonly key: string;
}

/**
 * Which of `candidates` (needs of the steps asked for, never those) can be reused: for each, the
 * newest earlier run of the plan in which it ran decides; it must have succeeded there with the
 * same content key, its change must still be in the workspace (not reverted), its output readable,
 * and every step it needs must be reused too.
 */
export async function findReusable(
  store: RunStore,
  planFile: string,
  graph: Graph,
  candidates: ReadonlySet<string>,
  keys: ReadonlyMap<string, string>,
): Promise<Map<string, ReusedStep>> {
  const out = new Map<string, ReusedStep>();
  if (candidates.size === 0) return out;
  // A run still going (here or in another window) is not history yet.
  const runs = (await store.runsOfPlan(planFile)).filter((r) => r.status !== 'running');
  for (const id of graph.order) {
    if (!candidates.has(id)) continue;
    const step = graph.steps.get(id)!;
    if (!step.needs.every((n) => out.has(n))) continue;
    const last = lastRan(runs, id);
    if (!last || !reusable(last.step, keys.get(id)!)) continue;
    // A reuse of a reuse: the change is the first run's, and `braid revert` marks it there.
    const origin = last.step.reused ? runs.find((r) => r.id === last.step.reused!.run)?.steps[id] : undefined;
    if (origin?.revertedAt !== undefined) continue;
    const output = await store.readOutput(last.run.id, id).catch(() => undefined);
    if (output === undefined) continue;
    out.set(id, { id, run: last.step.reused?.run ?? last.run.id, record: last.step, output, key: keys.get(id)! });
  }
  return out;
}

/** The step's record in the newest run that ran it (or reused it); kept and unselected copies do not count. */
function lastRan(runs: readonly RunRecord[], id: string): { run: RunRecord; step: StepRecord } | undefined {
  for (const run of runs) {
    const step = run.steps[id];
    if (step && ranIn(run, step)) return { run, step };
  }
  return undefined;
}

function ranIn(run: RunRecord, s: StepRecord): boolean {
  if (s.status === 'pending' || s.status === 'skipped') return false;
  if (s.status === 'canceled' && s.attempts.length === 0) return false; // canceled before it started
  // A step `--from` kept as it was: a copy of an older run's record, ended before this run began.
  if (!s.reused && s.endedAt !== undefined && s.endedAt < run.createdAt) return false;
  return true;
}

function reusable(s: StepRecord, key: string): boolean {
  return s.status === 'succeeded' && s.contentKey === key && s.revertedAt === undefined;
}

/**
 * The record of a reused step in the run that reuses it: succeeded, no attempt of its own (it did
 * not start here, so no start or end time either); the marker names the run that ran it, when that
 * ended and how long it spent running.
 */
export function reusedRecord(r: ReusedStep): StepRecord {
  const e = r.record;
  const ranMs = runningMsOf(e);
  const endedAt = e.reused?.endedAt ?? e.endedAt; // a reuse of a reuse: when the first run ended it
  return {
    id: r.id,
    status: 'succeeded',
    attempts: [],
    contentKey: r.key,
    reused: {
      run: r.run,
      ...(endedAt !== undefined ? { endedAt } : {}),
      ...(ranMs !== undefined ? { durationMs: ranMs } : {}),
    },
    message: `reused from run ${r.run}`,
    ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}),
  };
}

/** The `step` event that announces a reused step (it never runs, so the scheduler says nothing of it). */
export function reusedEvent(rec: StepRecord, runId: string): EngineEvent {
  return {
    type: 'step',
    id: rec.id,
    status: 'succeeded',
    attempt: 0,
    ...(rec.exitCode !== undefined ? { exitCode: rec.exitCode } : {}),
    ...(rec.message !== undefined ? { message: rec.message } : {}),
    ...(rec.reused ? { reused: { ...rec.reused } } : {}),
    time: new Date().toISOString(),
    run: runId,
  };
}

/** `--only`'s reuse: of `selected` (the steps named in `only` and what they need), the needs reusable now. */
export function reusableNeeds(
  store: RunStore,
  planFile: string,
  graph: Graph,
  selected: ReadonlySet<string>,
  only: readonly string[],
  keys: ReadonlyMap<string, string>,
): Promise<Map<string, ReusedStep>> {
  return findReusable(store, planFile, graph, new Set([...selected].filter((id) => !only.includes(id))), keys);
}
