// Planning's own problems (the agent wrote nothing, failed, or is missing) as diagnostics located
// at the plan file, so every caller lists them exactly like the validator's.
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from '../plan/types';

/** Codes of the problems planning reports besides the validator's. */
export type PlanningCode = 'not-written' | 'agent-failed' | 'agent-missing' | 'agent-invalid' | 'canceled';

/** An error at the start of `file`. */
export function fileProblem(file: string, code: PlanningCode, message: string): Diagnostic {
  const at = { line: 0, column: 0 };
  return { file, range: { start: at, end: at }, severity: 'error', code, message };
}

/** `FILE:LINE:COL: severity: message` (1-based, as `braid validate` prints), FILE relative to `base` when inside it. */
export function formatProblem(d: Diagnostic, base?: string): string {
  let file = d.file;
  if (base !== undefined) {
    const rel = relative(base, d.file);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) file = rel;
  }
  return `${file}:${d.range.start.line + 1}:${d.range.start.column + 1}: ${d.severity}: ${d.message}`;
}
