// Prepares worktree steps' worktrees while their needs run, so isolation adds little to the
// makespan (issue 3). It only listens to the engine's events and calls the isolator's two hooks;
// the scheduler knows nothing of it.
//
// When: once every need of a step has started. From then on the step's start is bounded by work
// already under way, so it is about to become ready, and in a chain A → B → C all of A's run hides
// B's set-up. Preparing at the first need's start instead would, for a fan-in whose other needs
// still wait for slots, spend a busy machine's CPU and disk on a step that is far off.
import PQueue from 'p-queue';
import type { Disposable } from '../../disposable';
import type { Graph, GraphStep } from '../../plan/types';
import type { Isolator } from '../steps/executor';
import type { EngineEvent } from '../types';
import { TERMINAL } from '../../status';

/** An isolator that can make a step's worktree before its attempt (WorktreeIsolator). */
export interface PreparingIsolator extends Isolator {
  /** Makes the step's worktree now; true when one is ready for its attempt. Never a step failure. */
  prepare(stepId: string): Promise<boolean>;
  /** Removes a prepared worktree no attempt took. */
  discard(stepId: string): Promise<void>;
}

export function canPrepare(isolator: Isolator | undefined): isolator is PreparingIsolator {
  const i = isolator as Partial<PreparingIsolator> | undefined;
  return typeof i?.prepare === 'function' && typeof i.discard === 'function';
}

/** Where the engine's events come from (an Emitter of them). */
export interface EventSource {
  on(listener: (event: EngineEvent) => void): Disposable;
}

export interface PrepareAheadOptions {
  /** At most this many preparations at once; the run's concurrency is a good value. Default 4. */
  readonly concurrency?: number;
  /** The steps this run runs (default: all); the others already ended or never run. */
  readonly selected?: ReadonlySet<string>;
}

export interface PreparingAhead {
  /** Steps a preparation was asked for, in the order asked. */
  readonly requested: readonly string[];
  /** Stops preparing and removes every prepared worktree no attempt took. Await it once the run has ended. */
  close(): Promise<void>;
}

/** Prepares each worktree step's worktree once all its needs have started; inert for an isolator without the hooks. */
export function prepareAhead(
  graph: Graph,
  isolator: Isolator | undefined,
  events: EventSource,
  o: PrepareAheadOptions = {},
): PreparingAhead {
  const requested: string[] = [];
  if (!canPrepare(isolator)) return { requested, close: async () => {} };
  const concurrency = o.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be an integer ≥ 1, got ${concurrency}`);
  const queue = new PQueue({ concurrency });
  const selected = (id: string) => o.selected === undefined || o.selected.has(id);
  /** Steps whose attempt began (or that ended): for a step itself, preparing it is pointless now. */
  const started = new Set<string>();
  /** Needs under way: an attempt began, and the step has not ended other than succeeded. */
  const live = new Set<string>();
  const asked = new Set<string>();
  const discarding = new Set<Promise<void>>();
  const discard = (id: string) => {
    const p = isolator
      .discard(id)
      .catch(() => undefined)
      .finally(() => discarding.delete(p));
    discarding.add(p);
  };
  let closed = false;

  // Only when every need is a worktree step of this run: a shared need (or one kept from an earlier
  // run) leaves its change in the workspace only, so the attempt starts from a fresh snapshot and
  // a tree made from the run's base would be thrown away.
  const worthPreparing = (s: GraphStep) =>
    s.isolation === 'worktree' &&
    s.if !== 'failure' &&
    selected(s.id) &&
    s.needs.length > 0 &&
    s.needs.every((n) => selected(n) && graph.steps.get(n)!.isolation === 'worktree');

  const ripe = (id: string): GraphStep | undefined => {
    const s = graph.steps.get(id);
    if (!s || closed || asked.has(id) || started.has(id) || !worthPreparing(s) || !s.needs.every((n) => live.has(n)))
      return undefined;
    return s;
  };
  // Longest remaining path first, also among those one event makes ripe (a queue with a free slot
  // starts a job as it is added).
  const enqueue = (steps: GraphStep[]) => {
    for (const s of steps.sort((x, y) => y.depth - x.depth)) {
      asked.add(s.id);
      requested.push(s.id);
      void queue.add(
        async () => {
          // Its attempt began while this waited for a slot: the attempt makes its own worktree.
          if (closed || started.has(s.id)) return;
          await isolator.prepare(s.id).catch(() => false);
        },
        { priority: s.depth },
      );
    }
  };

  const sub = events.on((e) => {
    if (e.type !== 'step') return;
    if (e.status === 'running' || TERMINAL.has(e.status)) started.add(e.id);
    // A need that failed, was skipped or canceled most likely skips its dependents: nothing to prepare.
    if (TERMINAL.has(e.status) && e.status !== 'succeeded') live.delete(e.id);
    if (e.status === 'running' && !live.has(e.id)) {
      live.add(e.id);
      enqueue((graph.steps.get(e.id)?.dependents ?? []).flatMap((d) => ripe(d) ?? []));
    }
    // Skipped, canceled, or failed before an attempt took its tree: it must not linger.
    if (TERMINAL.has(e.status) && asked.has(e.id)) discard(e.id);
  });

  return {
    requested,
    async close() {
      if (closed) return;
      closed = true;
      sub.dispose();
      queue.clear();
      // Discarding first aborts a setup still running: the run is over, nobody will take its tree.
      for (const id of asked) discard(id);
      await Promise.all([...discarding]);
      await queue.onIdle();
    },
  };
}
