// How Braid writes durations, dollars and plan problems for people: the CLI, the tree, the lenses,
// the notifications and the panel all use these, so one number reads the same everywhere.
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from './plan/types';

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** A short human duration for views: `850ms`, `4.2s`, `1m 05s`, `1h 02m`. Negative (clock skew) shows as 0ms. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`formatDuration: expected a finite number of ms, got ${ms}`);
  const t = Math.max(0, ms);
  if (Math.round(t) < 1000) return `${Math.round(t)}ms`;
  const tenths = Math.round(t / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)}s`;
  const secs = Math.round(t / 1000);
  if (secs < 3600) return `${Math.floor(secs / 60)}m ${pad2(secs % 60)}s`;
  const mins = Math.floor(secs / 60);
  return `${Math.floor(mins / 60)}h ${pad2(mins % 60)}m`;
}

/** Dollars as an agent bill shows them: `$1.20` from a dollar up, else four places (`$0.0123`). */
export function formatUsd(usd: number): string {
  return `$${usd >= 0.995 || usd === 0 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** `FILE:LINE:COL: severity: message` (1-based, as `braid validate` prints), FILE relative to `base` when inside it. */
export function formatDiagnostic(d: Diagnostic, base?: string): string {
  let file = d.file;
  if (base !== undefined) {
    const rel = relative(base, d.file);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) file = rel;
  }
  return `${file}:${d.range.start.line + 1}:${d.range.start.column + 1}: ${d.severity}: ${d.message}`;
}

/** What a step's times are made of, from its record or a live view of it (ms since epoch). */
export interface TimeFacts {
  readonly status: string;
  /** Time spent in its attempts that ended. */
  readonly ranMs?: number;
  /** While an attempt runs: when that attempt started. */
  readonly attemptStartedAt?: number;
  /** First start and end: wall time, retry delays and waits between attempts included. */
  readonly startedAt?: number;
  readonly endedAt?: number;
}

/** Wall time shown apart only when it is this much (and reads) longer than the running time. */
const WALL_APART_MS = 1000;

/** Time a step has spent running: its ended attempts, plus the running one so far; undefined before it ever ran. */
export function runningMs(f: TimeFacts, now: number): number | undefined {
  if (f.ranMs === undefined && f.attemptStartedAt === undefined) return undefined;
  const live = f.status === 'running' && f.attemptStartedAt !== undefined ? Math.max(0, now - f.attemptStartedAt) : 0;
  return (f.ranMs ?? 0) + live;
}

/**
 * A step's time as every view shows it: `time` is time spent running (runningMs); `wall`
 * ("wall 2m 33s") is set when the wall time from its first start is visibly longer (retry delays,
 * rate limits, a review). Undefined before it ever ran.
 */
export function stepTimeText(f: TimeFacts, now: number): { time: string; wall?: string } | undefined {
  const ran = runningMs(f, now);
  if (ran === undefined) return undefined;
  const time = formatDuration(ran);
  const end = f.endedAt ?? (f.status === 'running' || f.status === 'waiting' ? now : undefined);
  if (f.startedAt === undefined || end === undefined) return { time };
  const wallMs = Math.max(0, end - f.startedAt);
  const wall = formatDuration(wallMs);
  return wallMs - ran >= WALL_APART_MS && wall !== time ? { time, wall: `wall ${wall}` } : { time };
}

/** A command in a one-line message: its first line, and `…` when it has more (a `run: |` block). */
export function commandLine(command: string): string {
  const lines = command.trim().split('\n');
  return lines.length > 1 ? `${lines[0]!.trimEnd()} …` : lines[0]!;
}
