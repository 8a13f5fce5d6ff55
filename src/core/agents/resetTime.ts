// Reading "when may I try again" out of an agent's limit message, in the shapes the CLIs print:
// an epoch after a bar ("usage limit reached|1749924000"), a delay ("Please retry in 23.5s",
// "try again in 2 hours 5 minutes", "Retry-After: 30"), or a wall-clock time, with an optional
// date and IANA zone ("resets 3pm (Europe/Berlin)", "try again at Sep 15th, 2025 4:05 PM",
// "resets at 2026-12-03T14:05:00Z"). Pure: `now` is given.

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  millisecond: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The reset time `line` states, relative to `now`; undefined when it states none. */
export function parseResetTime(line: string, now: Date): Date | undefined {
  return epoch(line) ?? delay(line, now) ?? iso(line) ?? wallClock(line, now);
}

function epoch(line: string): Date | undefined {
  const m = /limit reached\|(\d{10,13})\b/i.exec(line);
  if (!m) return undefined;
  const n = Number(m[1]);
  return new Date(n < 1e12 ? n * 1000 : n);
}

function delay(line: string, now: Date): Date | undefined {
  const m =
    /\b(?:retry|try again)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(line) ??
    /\bretry[-_ ]?(?:after|delay)"?\s*[:=]\s*"?((?:\d+(?:\.\d+)?\s*[a-z]*)+)/i.exec(line);
  if (!m) return undefined;
  let total = 0;
  let any = false;
  for (const part of m[1]!.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]*)/gi)) {
    const unit = part[2]!.toLowerCase() || 's'; // a bare number is seconds (Retry-After)
    const ms = UNIT_MS[unit] ?? UNIT_MS[unit.replace(/s$/, '')]; // "ms" before plural "mins"
    if (ms === undefined) break;
    total += Number(part[1]) * ms;
    any = true;
  }
  return any ? new Date(now.getTime() + total) : undefined;
}

function iso(line: string): Date | undefined {
  const m = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(line);
  if (!m || !/\b(?:reset|try again|retry|until)/i.test(line)) return undefined;
  const d = new Date(m[1]!);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function wallClock(line: string, now: Date): Date | undefined {
  const m =
    /\b(?:resets?|try again|retry)(?:\s+(?:at|on))?\s+(?:([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b\s*(?:\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i.exec(
      line,
    );
  if (!m) return undefined;
  const [, mon, day, year, hh, mm, ampm, zone] = m;
  if (!ampm && mm === undefined) return undefined; // "retry 3 times" is not a time
  let hour = Number(hh);
  if (hour > 23 || (ampm && (hour < 1 || hour > 12))) return undefined;
  if (ampm) hour = (hour % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
  const minute = Number(mm ?? 0);
  if (minute > 59) return undefined;
  const tz = zone && validZone(zone) ? zone : undefined;
  const month = mon ? MONTHS.indexOf(mon.toLowerCase()) : -1;
  if (mon && month === -1) return undefined;
  const today = wallParts(now, tz);
  const date = {
    year: year ? Number(year) : today.year,
    month: month >= 0 ? month : today.month,
    day: day ? Number(day) : today.day,
  };
  let at = fromWall({ ...date, hour, minute }, tz);
  // A time printed to the minute ("try again at 1:10 PM" for a reset at 1:10:45) reads up to a
  // minute early: within that minute it is now, not tomorrow.
  if (at.getTime() <= now.getTime() && now.getTime() - at.getTime() < 60_000) return at;
  if (at.getTime() <= now.getTime()) {
    // A time of day already past means tomorrow's; a date already past (no year given) next year's.
    if (!mon) at = fromWall({ ...date, day: date.day + 1, hour, minute }, tz);
    else if (!year) at = fromWall({ ...date, year: date.year + 1, hour, minute }, tz);
  }
  return at;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// The wall-clock fields of `d` in `tz` (the machine's zone when undefined: the CLI printed in it).
function wallParts(d: Date, tz: string | undefined): Wall {
  if (!tz)
    return { year: d.getFullYear(), month: d.getMonth(), day: d.getDate(), hour: d.getHours(), minute: d.getMinutes() };
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(d);
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value);
  return { year: get('year'), month: get('month') - 1, day: get('day'), hour: get('hour'), minute: get('minute') };
}

// The instant whose wall clock in `tz` reads `w`: guess it as UTC, then correct by the zone's
// offset at the guess (twice, so a guess across a DST change settles).
function fromWall(w: Wall, tz: string | undefined): Date {
  if (!tz) return new Date(w.year, w.month, w.day, w.hour, w.minute);
  const target = Date.UTC(w.year, w.month, w.day, w.hour, w.minute);
  let t = target;
  for (let i = 0; i < 2; i++) {
    const p = wallParts(new Date(t), tz);
    t += target - Date.UTC(p.year, p.month, p.day, p.hour, p.minute);
  }
  return new Date(t);
}
