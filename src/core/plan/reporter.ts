// One way to record a located problem, shared by every phase: the message is prefixed with the
// key path it is about, and the range is that node's (or its nearest existing parent's).
import { rangeAt, rangeWithin, type LoadedPlan } from './load';
import type { StepDoc } from './schema';
import { MAX_BUILT_DIAGNOSTICS, overCap, unbuilt, UNREAD } from './problemCap';
import type { Diagnostic, Severity } from './types';

export { joinDiagnostics, MAX_BUILT_DIAGNOSTICS } from './problemCap';

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

export interface Report {
  (path: KeyPath, message: string, code: string, opts?: ReportOptions): void;
  /** True once the list holds MAX_BUILT_DIAGNOSTICS: a check may then skip working out its message. */
  readonly full: () => boolean;
}

/** `steps.build.needs[1]`; `plan` for the root. */
export function formatPath(path: KeyPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out === '' ? 'plan' : out;
}

/** A Report that appends to `out`. */
export function reporter(lp: LoadedPlan, out: Diagnostic[]): Report {
  const report = (path: KeyPath, message: string, code: string, opts: ReportOptions = {}) => {
    if (overCap(out, opts.severity ?? 'error')) return;
    out.push({
      file: lp.file,
      severity: opts.severity ?? 'error',
      range: opts.within
        ? rangeWithin(lp, path, opts.within.value, opts.within.start, opts.within.end)
        : rangeAt(lp, path, { key: opts.key ?? false }),
      message: opts.bare ? message : `${formatPath(path)}: ${message}`,
      code,
      ...(opts.suggestion !== undefined ? { suggestion: opts.suggestion } : {}),
    });
  };
  return Object.assign(report, { full: () => out.length >= MAX_BUILT_DIAGNOSTICS });
}

/** Where a step's field is written: in the step itself, or inherited from `defaults`. */
export function fieldPath(group: string, own: StepDoc, key: keyof StepDoc): KeyPath {
  return own[key] !== undefined ? ['steps', group, key] : ['defaults', key];
}

/** Most problems listed for one file; past it, one more says how many were left out. */
export const MAX_DIAGNOSTICS = 200;

// A message is one line of the CLI's `FILE:LINE:COL: severity: message`; a key or value quoted in
// it may hold a carriage return or other control characters, shown escaped instead.
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const visible = (message: string): string =>
  message.replace(CONTROL, (c) =>
    c === '\n'
      ? '\\n'
      : c === '\r'
        ? '\\r'
        : c === '\t'
          ? '\\t'
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * Drops repeats (a matrix step or a shared default reports the same problem once), sorts by
 * position, so the Problems panel and the CLI list a file top to bottom, and keeps the first
 * MAX_DIAGNOSTICS with a last one saying how many more there were.
 */
export function tidy(diags: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  // Where reading stopped is shown after the rest, even when the rest is cut.
  const unread = diags.filter((d) => d.code === UNREAD);
  const kept = diags.filter((d) => {
    if (d.code === UNREAD) return false;
    const k = `${d.severity}|${d.range.start.line}:${d.range.start.column}|${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  // Array.prototype.sort is stable: problems at one position keep the order they were found in.
  kept.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column);
  const shown = kept.slice(0, MAX_DIAGNOSTICS).map((d) => ({ ...d, message: visible(d.message) }));
  const rest = kept.slice(MAX_DIAGNOSTICS);
  const [next] = rest;
  if (next) {
    const left = unbuilt(diags);
    const errors = rest.filter((d) => d.severity === 'error').length + left.errors;
    const total = rest.length + left.total;
    const what = errors === total ? `${errors} more errors` : `${total} more problems (${errors} errors)`;
    // At the first one left out, without its quick fix (it is not that problem's message).
    shown.push({
      file: next.file,
      range: next.range,
      severity: errors > 0 ? 'error' : next.severity,
      code: 'more',
      message: `and ${what}, not listed`,
    });
  }
  return [...shown, ...unread];
}
