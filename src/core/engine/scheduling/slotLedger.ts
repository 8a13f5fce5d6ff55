// The slots a run's steps hold, counted against the run's cap and each pool's cap. One place for
// it because a slot is taken at a start and given back at an end or while a best-of step waits
// for its pick (bestOfAttempt.ts): three paths that must agree on the sums, or the run stalls.
import type { GraphStep } from '../../plan/types';
import { alternativeSlots } from './alternatives';
import type { PoolLimits } from './poolLimits';

export class SlotLedger {
  /** Slots in use: one a running step, one an alternative of a best-of step (alternatives.ts). */
  private inUse = 0;
  private readonly held = new Map<string, number>();
  private readonly poolUse = new Map<string, number>();

  /** `cap`: the run's concurrency; `pools`: the pools' caps now (they follow rate limits). */
  constructor(
    readonly cap: number,
    private readonly pools: PoolLimits,
  ) {}

  get busy(): number {
    return this.inUse;
  }

  /** Slots of the step's pool in use now. */
  poolBusy(pool: string): number {
    return this.poolUse.get(pool) ?? 0;
  }

  /** What a start of the step takes: a best-of step one slot an alternative it can run at once. */
  slotsOf(step: GraphStep): number {
    return step.bestOf ? alternativeSlots(step, this.cap, step.pool ? this.pools.cap(step.pool) : undefined) : 1;
  }

  poolHasRoom(step: GraphStep): boolean {
    if (!step.pool) return true;
    const cap = this.pools.cap(step.pool);
    return cap === undefined || this.poolBusy(step.pool) + this.slotsOf(step) <= cap;
  }

  /** The step starts: it holds its slots (returned) until giveBack. */
  take(step: GraphStep): number {
    const slots = this.slotsOf(step);
    this.inUse += slots;
    this.held.set(step.id, slots);
    if (step.pool) this.poolUse.set(step.pool, this.poolBusy(step.pool) + slots);
    return slots;
  }

  /** The step holds nothing any more (its attempt ended, or it waits for a pick); a second call gives back nothing. */
  giveBack(step: GraphStep): void {
    const slots = this.held.get(step.id) ?? 0;
    this.inUse -= slots;
    if (step.pool) this.poolUse.set(step.pool, this.poolUse.get(step.pool)! - slots);
    this.held.set(step.id, 0);
  }
}
