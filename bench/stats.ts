// Small shared pieces of the benchmarks: quantiles, number formats, markdown tables, goal marks
// and environment knobs. Every figure a bench prints is measured in that same run.
import { seededRandom } from '../src/core/agents/backoff';

/** The p-quantile (nearest rank) of xs; NaN for none. */
export function quantile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export const fixed = (x: number, digits = 3): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** `median (p90)` of ratios. */
export const medP90 = (xs: readonly number[]): string => `${fixed(median(xs))} (${fixed(quantile(xs, 0.9))})`;

/** Milliseconds with a sensible number of digits. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`;
}

export const us = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(1)} µs` : '–');

/** A goal next to its measurement: `1.012 ✓ (≤ 1.02)`. */
export const goal = (shown: string, ok: boolean, target: string): string => `${shown} ${ok ? '✓' : '✗'} (${target})`;

/** Prints a markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

/** A positive integer from the environment, else the default. */
export function envInt(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

export function envList(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (!raw) return [...fallback];
  return raw
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** A seeded generator, so every run measures the same DAGs: the engine's own (core/agents/backoff). */
export const rng = seededRandom;

/** Wall time of `fn` in milliseconds. */
export async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
