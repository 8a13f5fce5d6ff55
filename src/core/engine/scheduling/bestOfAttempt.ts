// A best-of step's attempt as the scheduler runs it: its alternatives race (alternatives.ts) and
// every change reaches the step's state; with `pick: review` the step gives its slots back while
// the user picks. Apart from scheduler.ts because it is the one path where a running step stops
// holding slots before its attempt ends.
import type { GraphStep } from '../../plan/types';
import { raceAlternatives, type RaceOptions } from './alternatives';
import type { RunningAttempt } from './attempt';
import type { Clock } from './clock';
import type { SlotLedger } from './slotLedger';
import type { StepState } from './stepState';
import type { AttemptResult, StepRunner } from '../types';

/** What of the scheduler a best-of attempt uses. */
export interface BestOfHost {
  readonly runId: string;
  readonly runner: StepRunner;
  readonly clock: Clock;
  readonly slots: SlotLedger;
  /** `pick: review`: resolves to the alternative the user picked (`braid pick`). */
  readonly waitForPick: RaceOptions['waitForPick'];
  /** The run goes on (neither canceled nor stopped at its budget): alternatives may still start. */
  going(): boolean;
  /** The step's state changed: record it and announce it. */
  changed(st: StepState): void;
  /** Sends the step's throttled progress now, before its status changes under it. */
  flushProgress(id: string): void;
  dispatch(): void;
}

/**
 * Races the step's alternatives, reported into its state. Every change of an alternative reaches
 * the record and a `step` event at once (not throttled as progress is), so views follow the race
 * live; an unchanged report is not sent again.
 */
export function raceBestOf(
  host: BestOfHost,
  st: StepState,
  ctx: RunningAttempt,
  slots: number,
): Promise<AttemptResult> {
  let last = '';
  const pick = host.waitForPick;
  return raceAlternatives({
    ctx,
    runner: host.runner,
    slots,
    clock: host.clock,
    going: () => host.going(),
    onChange: (alternatives, winner) => {
      const now = JSON.stringify([alternatives, winner]);
      if (now === last) return;
      last = now;
      st.alternatives = alternatives.map((a) => ({ ...a }));
      if (winner) st.winner = winner;
      else delete st.winner;
      host.changed(st);
    },
    ...(pick
      ? {
          waitForPick: (stepId: string, candidates: readonly number[], signal: AbortSignal) =>
            waitForPick(host, ctx.step, st, candidates, () => pick(stepId, candidates, signal)),
        }
      : {}),
  });
}

/**
 * `pick: review`: nothing of the race runs while the user picks, so the step waits as a step in
 * review does, holding no slot (its pool's neither) and the next ready step starts. A lock the
 * scheduler holds for it stays: that is its merge-back's (a worktree step locks only there,
 * through the isolator, and then holds none here). Once picked it is `running` again, to land.
 */
async function waitForPick(
  host: BestOfHost,
  step: GraphStep,
  st: StepState,
  candidates: readonly number[],
  wait: () => Promise<number>,
): Promise<number> {
  host.slots.giveBack(step);
  host.flushProgress(st.id);
  st.status = 'waiting';
  const which =
    candidates.length === 1 ? `alternative ${candidates[0]} passed` : `alternatives ${candidates.join(', ')} passed`;
  st.outcome = { reason: 'pick', message: `waiting for a pick: ${which} (braid pick ${host.runId} ${st.id} N)` };
  host.changed(st);
  host.dispatch();
  const n = await wait();
  st.status = 'running';
  delete st.outcome;
  host.changed(st);
  return n;
}
