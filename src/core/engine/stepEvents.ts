// The events a step's state becomes: lifecycle (`step`) and a running agent's progress (`agent`).
import type { StepState } from './stepState';
import { TERMINAL, type EngineEvent } from './types';

/** An event before the scheduler stamps its time and run. */
export type EventBody = EngineEvent extends infer E ? (E extends EngineEvent ? Omit<E, 'time' | 'run'> : never) : never;

/** The `step` event of a state change; undefined for `pending`, which is never announced. */
export function stepEvent(st: Readonly<StepState>): EventBody | undefined {
  if (st.status === 'pending') return undefined;
  return {
    type: 'step', id: st.id, status: st.status, attempt: st.attempt,
    ...(st.exitCode !== undefined ? { exitCode: st.exitCode } : {}),
    ...(st.signal !== undefined ? { signal: st.signal } : {}),
    ...(st.reason !== undefined ? { reason: st.message ?? st.reason } : {}),
    ...(st.status === 'waiting' && st.retryAt !== undefined ? { retryAt: new Date(st.retryAt).toISOString() } : {}),
    ...(TERMINAL.has(st.status) && st.costUsd !== undefined ? { costUsd: st.costUsd } : {}),
  };
}

/** A running agent's progress so far, with the run's total cost when the step reported one. */
export function agentEvent(st: Readonly<StepState>, runCostUsd: number): EventBody {
  return {
    type: 'agent', id: st.id, attempt: st.attempt,
    ...(st.sessionId !== undefined ? { sessionId: st.sessionId } : {}),
    ...(st.turns !== undefined ? { turns: st.turns } : {}),
    ...(st.inputTokens !== undefined ? { inputTokens: st.inputTokens } : {}),
    ...(st.outputTokens !== undefined ? { outputTokens: st.outputTokens } : {}),
    ...(st.costUsd !== undefined ? { costUsd: st.costUsd, runCostUsd } : {}),
    ...(st.activity !== undefined ? { activity: st.activity } : {}),
  };
}
