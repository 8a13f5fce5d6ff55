// Whether a process has ended, for tests that kill process trees.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

// Dead means: no such process, or a zombie (an init that reaps lazily, as in some containers,
// leaves a killed orphan in state Z for a while; it is dead all the same).
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (!existsSync('/proc')) return false;
  try {
    return /\)\s+[ZX]\s/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // vanished between the two looks
  }
}

// The kernel closes a dying process's pipes a moment before it turns zombie, so a result that
// landed on the pipe closing may see the killed process still exiting: allow a bounded moment
// (a liveness bound, not a timing claim).
export async function goneSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && !isGone(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return isGone(pid);
}

/** A process's warm launchers (bash processes named braid-launcher, its children; or its braid-resident), from /proc. */
export function launchersOf(parent: number, name: 'braid-launcher' | 'braid-resident' = 'braid-launcher'): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(name)) found.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return found;
}

/** The engines serving a workspace (`braid serve --workspace DIR`, as the extension starts them), from /proc. */
export function enginesOf(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--workspace');
      if (args.includes('serve') && at >= 0 && args[at + 1] === dir) found.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return found;
}

/**
 * Ends a workspace's engines: an engine outlives its window by its idle minute and writes its log in
 * the workspace meanwhile, so a test removing the folder would race it. TERM, then KILL what is left.
 */
export async function endEngines(dir: string): Promise<void> {
  const pids = enginesOf(dir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  for (const pid of pids) {
    if (await goneSoon(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    await goneSoon(pid);
  }
}
