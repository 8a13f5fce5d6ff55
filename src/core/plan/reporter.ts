// One way to record a located problem, shared by every phase: the message is prefixed with the
// key path it is about, and the range is that node's (or its nearest existing parent's).
import { rangeAt, rangeWithin, type LoadedPlan } from './load';
import type { StepDoc } from './schema';
import type { Diagnostic, Severity } from './types';

export type KeyPath = readonly PropertyKey[];

export interface ReportOptions {
  readonly severity?: Severity;
  /** Point at the mapping key rather than its value. */
  readonly key?: boolean;
  /** Leave the key path out of the message (for messages that already name their steps). */
  readonly bare?: boolean;
  /** Point at `value.slice(start, end)` inside the string at the path (a template in a prompt). */
  readonly within?: { readonly value: string; readonly start: number; readonly end: number };
  /** A replacement for the text at the range, when the message suggests one. */
  readonly suggestion?: string;
}

export type Report = (path: KeyPath, message: string, code: string, opts?: ReportOptions) => void;

/** `steps.build.needs[1]`; `plan` for the root. */
export function formatPath(path: KeyPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out === '' ? 'plan' : out;
}

/** A Report that appends to `out`. */
export function reporter(lp: LoadedPlan, out: Diagnostic[]): Report {
  return (path, message, code, opts = {}) => {
    out.push({
      file: lp.file, severity: opts.severity ?? 'error',
      range: opts.within ? rangeWithin(lp, path, opts.within.value, opts.within.start, opts.within.end) : rangeAt(lp, path, { key: opts.key ?? false }),
      message: opts.bare ? message : `${formatPath(path)}: ${message}`, code,
      ...(opts.suggestion !== undefined ? { suggestion: opts.suggestion } : {}),
    });
  };
}

/** Where a step's field is written: in the step itself, or inherited from `defaults`. */
export function fieldPath(group: string, own: StepDoc, key: keyof StepDoc): KeyPath {
  return own[key] !== undefined ? ['steps', group, key] : ['defaults', key];
}

/**
 * Drops repeats (a matrix step or a shared default reports the same problem once) and sorts by
 * position, so the Problems panel and the CLI list a file top to bottom.
 */
export function tidy(diags: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const kept = diags.filter((d) => {
    const k = `${d.severity}|${d.range.start.line}:${d.range.start.column}|${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  // Array.prototype.sort is stable: problems at one position keep the order they were found in.
  return kept.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
}
