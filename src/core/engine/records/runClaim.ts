// One engine a run at a time: `.braid/runs/<id>/engine.pid`, created exclusively by the process
// that runs (or retries) it, so a `retry` while the run still runs, or two retries at once, are
// refused instead of running every step twice. A claim whose process is gone (kill -9) is taken
// over; the file goes when the run ends, and on any exit of the process that holds it.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../../exec/pidAlive';

export type RunClaim =
  { readonly ok: true; release(): void } | { readonly ok: false; readonly pid: number; readonly message: string };

const held = new Set<string>();
let hooked = false;

/** Claims `runDir` (which must exist) for this process; refused while another live process holds it. */
export function claimRun(runDir: string, runId: string): RunClaim {
  const file = join(runDir, 'engine.pid');
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${process.pid} ${hostname()}\n`);
      } finally {
        closeSync(fd);
      }
      held.add(file);
      hookExit();
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          held.delete(file);
          unlinkQuietly(file);
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(file);
    const ours = holder?.pid === process.pid && held.has(file);
    if (ours || (holder && holder.host === hostname() && holder.pid !== process.pid && pidAlive(holder.pid))) {
      return {
        ok: false,
        pid: holder.pid,
        message: `run ${runId} is still running (pid ${holder.pid}); wait for it to end or stop it first`,
      };
    }
    if (holder && holder.host !== hostname()) {
      return {
        ok: false,
        pid: holder.pid,
        message: `run ${runId} is held by pid ${holder.pid} on ${holder.host}; remove ${file} if that engine is gone`,
      };
    }
    // A claim being written this instant is someone's; an empty one left by a crash is not.
    if (!holder && youngerThan(file, 2000))
      return { ok: false, pid: 0, message: `run ${runId} is being started by another process` };
    // A dead holder's claim: taken over.
    unlinkQuietly(file);
  }
  return { ok: false, pid: 0, message: `run ${runId}: could not claim ${file}` };
}

function readHolder(file: string): { pid: number; host: string } | undefined {
  try {
    const [pid, host] = readFileSync(file, 'utf8').trim().split(' ');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 && host ? { pid: n, host } : undefined;
  } catch {
    // No holder file (released meanwhile) or a torn one: nobody to ask.
    return undefined;
  }
}

function youngerThan(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < ms;
  } catch {
    // Gone: not young.
    return false;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* gone */
  }
}

// A process that exits with its claims held (process.exit on a second Ctrl-C) leaves none behind.
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const f of held) unlinkQuietly(f);
  });
}
