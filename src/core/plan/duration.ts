// Durations as plans write them (`1h30m`, `1.5s`, `90`); views write them with core/format.ts.

const NUM = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
// Units largest first, each at most once; optional spaces between parts, so `1m 05s` reads back.
const DURATION = new RegExp(String.raw`^(?:${NUM}h)?\s*(?:${NUM}m(?!s))?\s*(?:${NUM}s)?\s*(?:${NUM}ms)?$`);
const SECONDS = new RegExp(`^${NUM}$`);
const UNIT_MS = [3_600_000, 60_000, 1000, 1] as const;

/** Milliseconds for `250ms`, `1.5s`, `20m`, `1h30m`, or a plain number of seconds; undefined if malformed or negative. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (SECONDS.test(text)) return Math.round(Number(text) * 1000);
  const m = DURATION.exec(text);
  if (!m) return undefined;
  let ms = 0;
  let any = false;
  UNIT_MS.forEach((unit, k) => {
    const part = m[k + 1];
    if (part !== undefined) {
      any = true;
      ms += Number(part) * unit;
    }
  });
  return any ? Math.round(ms) : undefined;
}
