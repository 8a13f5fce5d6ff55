// Whether a process named in a record (a run's host, a lock's holder, a merge-back's journal) is
// still alive on this machine: one answer for all of them. A pid alone is not enough: a killed
// process its parent has not reaped yet (a zombie) is dead for our purposes, and a pid can be
// reused by an unrelated process, which the process's start time tells apart (Linux /proc).
import { readFileSync } from 'node:fs';

/** `/proc/<pid>/stat` after the command name: state is [0], start time [19] (field 22). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last `)`.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's start time (clock ticks since boot) on Linux, to tell a reused pid apart; undefined elsewhere or when gone. */
export function procStart(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** This process's start time, as records written by it carry it. */
export const SELF_START = procStart(process.pid);

/**
 * Whether `pid` is a live process here. EPERM means it exists under another user (alive); a
 * zombie is dead; with `startedAt` (a `procStart` the record kept), another start time means the
 * pid was reused by a process that is not the one the record names.
 */
export function pidAlive(pid: number, startedAt?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(pid);
  if (fields === undefined) return true; // no /proc (macOS, Windows): the signal's answer stands
  if (fields[0] === 'Z' || fields[0] === 'X') return false;
  return startedAt === undefined || fields[19] === startedAt;
}
