// Planning's own problems (the agent wrote nothing, failed, or is missing) as diagnostics located
// at the plan file, so every caller lists them exactly like the validator's.
import type { Diagnostic } from '../plan/types';

/** Codes of the problems planning reports besides the validator's. */
export type PlanningCode = 'not-written' | 'agent-failed' | 'agent-missing' | 'agent-invalid' | 'canceled';

/** An error at the start of `file`. */
export function fileProblem(file: string, code: PlanningCode, message: string): Diagnostic {
  const at = { line: 0, column: 0 };
  return { file, range: { start: at, end: at }, severity: 'error', code, message };
}
