// Folding what an agent reports into its step's state and the run's cost ledger: progress while
// it runs, and the usage of an attempt that ended.
import type { CostLedger } from './costLedger';
import type { AttemptState, StepState } from './stepState';
import type { AgentProgress } from '../types';
import type { AgentUsage, CostSource } from '../../cost/agentUsage';

/** Folds a running attempt's progress in; `recorded`: a new session, `costChanged`: a new cost. */
export function foldProgress(
  st: StepState,
  p: AgentProgress,
  costs: CostLedger,
): { recorded: boolean; costChanged: boolean } {
  const recorded = p.sessionId !== undefined && p.sessionId !== st.sessionId;
  if (p.sessionId !== undefined) st.sessionId = p.sessionId;
  const a = st.current!; // progress comes only from a running attempt
  foldTokens(a, p);
  if (p.activity !== undefined) a.activity = p.activity;
  const costChanged = p.costUsd !== undefined && p.costUsd !== costs.attempt(st.id);
  if (p.costUsd !== undefined) {
    st.costUsd = costs.report(st.id, p.costUsd, p.costSource);
    setSource(st, costs.stepSource(st.id));
  }
  return { recorded, costChanged };
}

/** Folds an ended attempt's final usage in (its record keeps `lastUsage`) and closes its cost. */
export function foldUsage(st: StepState, usage: AgentUsage | undefined, costs: CostLedger): void {
  if (usage) {
    st.lastUsage = usage;
    if (usage.sessionId !== undefined) st.sessionId = usage.sessionId;
    foldTokens(st.current!, usage); // the attempt that just ended
  } else delete st.lastUsage;
  const cost = costs.end(st.id, usage?.costUsd, usage?.costSource);
  if (cost !== undefined) {
    st.costUsd = cost;
    setSource(st, costs.stepSource(st.id));
  }
}

function foldTokens(a: AttemptState, u: AgentUsage): void {
  if (u.model !== undefined) a.model = u.model;
  if (u.turns !== undefined) a.turns = u.turns;
  if (u.inputTokens !== undefined) a.inputTokens = u.inputTokens;
  if (u.cachedInputTokens !== undefined) a.cachedInputTokens = u.cachedInputTokens;
  if (u.outputTokens !== undefined) a.outputTokens = u.outputTokens;
  if (u.reasoningTokens !== undefined) a.reasoningTokens = u.reasoningTokens;
  if (u.costUsd !== undefined) {
    a.costUsd = u.costUsd;
    setSource(a, u.costSource);
    delete a.costUnknown;
  }
  if (u.costUnknown !== undefined) a.costUnknown = u.costUnknown;
}

/** A cost's source goes with its amount: an amount of unknown source has none (not a stale one). */
function setSource(o: { costSource?: CostSource }, source: CostSource | undefined): void {
  if (source === undefined) delete o.costSource;
  else o.costSource = source;
}
