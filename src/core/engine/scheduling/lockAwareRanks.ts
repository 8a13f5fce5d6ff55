// Priorities for runs whose steps contend for write locks. Critical-path-first alone is blind to
// locks: it may start a long step on a busy region while the steps that region's backlog waits
// on sit idle (measured on the lock bench: 1.12–1.20 × the lower bound). Before the run, this
// simulates the run on the expected durations (the same list scheduling the Scheduler does:
// best ready step whose locks are free, under the cap) and improves it with forward-backward
// passes (Li & Willis 1992; "justification", Valls et al. 2005): schedule the reversed graph
// with the last finishers first, then forward again with the first starters first. The order
// of the best schedule found becomes the priority; with no gain, the critical path stays.
// Pools, retries and real durations are not simulated: the ranks only order ready steps, the
// Scheduler still decides everything live.
import { lockConflict } from '../../paths/overlap';
import type { Graph, GraphStep } from '../../plan/types';
import { criticalPaths } from '../../plan/graph';

export interface LockRankInput {
  readonly graph: Graph;
  readonly weight: (step: GraphStep) => number;
  readonly concurrency: number;
  /** Steps that hold their locks while they run (a worktree step locks only its merge-back). */
  readonly takesLocks: (step: GraphStep) => boolean;
}

/** Forward-backward pairs after the first schedule (lock bench, 4 regions × 500 steps, k = 4: 3 passes 1.103 × the bound, 8 passes 1.087; ~50 ms at 1,000 steps, ~150 ms at 5,000). */
const PASSES = 8;
/** Past this many steps the simulation's cost (a few passes, each O(steps × ready)) is not worth it. */
const MAX_STEPS = 5_000;

/**
 * Ranks (higher first) that beat the critical path's simulated makespan under the locks, or
 * undefined when no two steps that could run at once conflict, or no pass found a shorter run.
 */
export function lockAwareRanks(o: LockRankInput): Map<string, number> | undefined {
  if (o.graph.order.length > MAX_STEPS) return undefined;
  const locks = conflictTable(o);
  if (!locks) return undefined;
  const ids = o.graph.order;
  const forward = dagOf(o, locks);
  const { dur, needs, dependents } = forward;
  const backward: Dag = { ...forward, needs: dependents, dependents: needs };

  const cp = criticalPaths(o.graph, o.weight);
  let f = listSchedule(
    forward,
    ids.map((id) => cp.get(id)!),
  );
  const baseline = f.makespan;
  let best: { makespan: number; rank: number[] } | undefined;
  for (let pass = 0; pass < PASSES; pass++) {
    // Backward: what finished last goes first. Then forward again, what the backward run
    // finished last (so started first, read forwards) first. Only a forward run counts: it is
    // what the Scheduler does with those ranks; a reversed backward schedule is feasible, but a
    // list schedule with its order need not reproduce it.
    const b = listSchedule(
      backward,
      f.start.map((s, i) => s + dur[i]!),
    );
    const rank = b.start.map((s, i) => s + dur[i]!);
    f = listSchedule(forward, rank);
    if (f.makespan < (best?.makespan ?? baseline)) best = { makespan: f.makespan, rank };
  }
  return best && new Map(ids.map((id, i) => [id, best.rank[i]!]));
}

/** The makespan the list scheduling below gives with `rank` (for tests: it must match the Scheduler's). */
export function simulatedMakespan(o: LockRankInput, rank: ReadonlyMap<string, number>): number {
  const g = dagOf(o, conflictTable(o) ?? { sig: o.graph.order.map(() => -1), clash: [] });
  return listSchedule(
    g,
    o.graph.order.map((id) => rank.get(id)!),
  ).makespan;
}

function dagOf(o: LockRankInput, locks: { sig: number[]; clash: number[][] }): Dag {
  const ids = o.graph.order;
  const index = new Map(ids.map((id, i) => [id, i]));
  return {
    dur: ids.map((id) => o.weight(o.graph.steps.get(id)!)),
    needs: ids.map((id) => o.graph.steps.get(id)!.needs.map((x) => index.get(x)!)),
    dependents: ids.map((id) => o.graph.steps.get(id)!.dependents.map((x) => index.get(x)!)),
    sig: locks.sig,
    clash: locks.clash,
    k: o.concurrency,
  };
}

interface Dag {
  readonly needs: readonly (readonly number[])[];
  readonly dependents: readonly (readonly number[])[];
  readonly dur: readonly number[];
  /** Each step's lock signature (-1: none). */
  readonly sig: readonly number[];
  /** For each signature, the signatures it conflicts with (itself included when it writes). */
  readonly clash: readonly (readonly number[])[];
  readonly k: number;
}

/** Distinct lock sets and which conflict, or undefined when no two steps' locks conflict. */
function conflictTable(o: LockRankInput): { sig: number[]; clash: number[][] } | undefined {
  const keys = new Map<string, number>();
  const sets: { writes: readonly string[]; reads: readonly string[] }[] = [];
  const sig = o.graph.order.map((id) => {
    const s = o.graph.steps.get(id)!;
    if ((s.writes.length === 0 && s.reads.length === 0) || !o.takesLocks(s)) return -1;
    const key = JSON.stringify([s.writes, s.reads]);
    let at = keys.get(key);
    if (at === undefined) {
      at = sets.length;
      keys.set(key, at);
      sets.push(s);
    }
    return at;
  });
  // Distinct lock sets are few (a plan's regions), so all pairs of them is cheap.
  const clash = sets.map((a) =>
    sets.flatMap((b, j) => (lockConflict(a.writes, a.reads, b.writes, b.reads) ? [j] : [])),
  );
  const count = new Array<number>(sets.length).fill(0);
  for (const s of sig) if (s >= 0) count[s]!++;
  const contended = clash.some((c, i) => c.some((j) => j !== i || count[i]! > 1));
  return contended ? { sig, clash } : undefined;
}

/**
 * Greedy list scheduling on a simulated clock: whenever a step ends, start the best-ranked ready
 * steps whose locks are free (skipping the rest, as the Scheduler does), up to `k` at once.
 */
function listSchedule(g: Dag, rank: readonly number[]): { makespan: number; start: number[] } {
  const n = g.dur.length;
  const left = g.needs.map((x) => x.length);
  const start = new Array<number>(n).fill(0);
  const held = new Array<number>(g.clash.length).fill(0);
  // Best first: higher rank, then lower index (plan order, as the ReadyList breaks ties).
  const better = (a: number, b: number): boolean => rank[a]! > rank[b]! || (rank[a] === rank[b] && a < b);
  const ready: number[] = [];
  const insert = (i: number): void => {
    let lo = 0,
      hi = ready.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (better(ready[mid]!, i)) lo = mid + 1;
      else hi = mid;
    }
    ready.splice(lo, 0, i);
  };
  for (let i = 0; i < n; i++) if (left[i] === 0) insert(i);
  const running: { end: number; i: number }[] = [];
  let now = 0,
    done = 0;
  const free = (i: number): boolean => g.sig[i]! < 0 || g.clash[g.sig[i]!]!.every((s) => held[s] === 0);
  const dispatch = (): void => {
    for (let r = 0; r < ready.length && running.length < g.k;) {
      const i = ready[r]!;
      if (!free(i)) {
        r++;
        continue;
      }
      ready.splice(r, 1);
      start[i] = now;
      if (g.sig[i]! >= 0) held[g.sig[i]!]!++;
      running.push({ end: now + g.dur[i]!, i });
    }
  };
  dispatch();
  while (done < n) {
    if (running.length === 0) throw new Error('lockAwareRanks: nothing can run (a cycle?)');
    now = Math.min(...running.map((x) => x.end));
    // As the Scheduler on a clock: steps ending at the same instant end one at a time, in the
    // order they started, each followed by a dispatch.
    for (let r = 0; r < running.length;) {
      if (running[r]!.end !== now) {
        r++;
        continue;
      }
      const { i } = running.splice(r, 1)[0]!;
      done++;
      if (g.sig[i]! >= 0) held[g.sig[i]!]!--;
      for (const d of g.dependents[i]!) if (--left[d]! === 0) insert(d);
      dispatch();
    }
  }
  return { makespan: now, start };
}
