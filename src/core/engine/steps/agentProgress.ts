// Folding what an agent reports into its step's state and the run's cost ledger: progress while
// it runs, and the usage of an attempt that ended.
import type { CostLedger } from '../scheduling/costLedger';
import type { StepState } from '../scheduling/stepState';
import type { AgentProgress, AgentUsage } from '../types';

/** Folds a running attempt's progress in; `recorded`: a new session, `costChanged`: a new cost. */
export function foldProgress(st: StepState, p: AgentProgress, costs: CostLedger): { recorded: boolean; costChanged: boolean } {
  const recorded = p.sessionId !== undefined && p.sessionId !== st.sessionId;
  if (p.sessionId !== undefined) st.sessionId = p.sessionId;
  if (p.turns !== undefined) st.turns = p.turns;
  if (p.inputTokens !== undefined) st.inputTokens = p.inputTokens;
  if (p.outputTokens !== undefined) st.outputTokens = p.outputTokens;
  if (p.activity !== undefined) st.activity = p.activity;
  const costChanged = p.costUsd !== undefined && p.costUsd !== costs.attempt(st.id);
  if (p.costUsd !== undefined) st.costUsd = costs.report(st.id, p.costUsd);
  return { recorded, costChanged };
}

/** Folds an ended attempt's final usage in (its record keeps `lastUsage`) and closes its cost. */
export function foldUsage(st: StepState, usage: AgentUsage | undefined, costs: CostLedger): void {
  if (usage) {
    st.lastUsage = usage;
    if (usage.sessionId !== undefined) st.sessionId = usage.sessionId;
    if (usage.turns !== undefined) st.turns = usage.turns;
    if (usage.inputTokens !== undefined) st.inputTokens = usage.inputTokens;
    if (usage.outputTokens !== undefined) st.outputTokens = usage.outputTokens;
  } else delete st.lastUsage;
  const cost = costs.end(st.id, usage?.costUsd);
  if (cost !== undefined) st.costUsd = cost;
}
