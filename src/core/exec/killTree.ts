// Ending a step's whole process tree. On POSIX the child was spawned detached, so its pid is
// also its process-group id and one signal to `-pid` reaches every grandchild that stayed in
// the group (a `/bin/sh` background job, an agent's tool subprocesses). Windows has no groups,
// so `taskkill /T` walks the tree instead.
import { spawn } from 'node:child_process';

const isWindows = process.platform === 'win32';

// KILLs not yet sent, so a host about to exit can wait for them (see pendingKills).
const pending = new Set<Promise<void>>();

/** Sends `signal` (0 only probes) to every process in the group led by `pid`; false once the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    // EPERM: some member exists but is not ours to signal (a setuid helper); it still counts as alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True while any process of the group led by `pid` exists (zombies included); always false on Windows. */
export function groupAlive(pid: number): boolean {
  return !isWindows && signalGroup(pid, 0);
}

export interface Termination {
  /** True once the KILL was sent (on Windows, at once). */
  readonly killed: boolean;
  /** Drops the pending KILL: call only when the group is known to be gone. */
  cancel(): void;
}

/**
 * TERM the tree now, KILL it after `graceMs`: a child may trap or ignore TERM (and `/bin/sh`
 * background jobs ignore INT), so the KILL must land whatever the child does with TERM.
 * `onKill` runs right after the KILL is sent.
 */
export function terminateTree(pid: number, graceMs: number, onKill: () => void): Termination {
  if (isWindows) {
    // No TERM to give on Windows: /F is the only way to stop a console program that ignores us.
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
    queueMicrotask(onKill);
    return { killed: true, cancel: () => {} };
  }
  let killed = false;
  let release!: () => void;
  const landed = new Promise<void>((resolve) => {
    release = resolve;
  });
  pending.add(landed);
  const done = (): void => {
    pending.delete(landed);
    release();
  };
  const timer = setTimeout(() => {
    killed = true;
    signalGroup(pid, 'SIGKILL');
    done();
    onKill();
  }, graceMs);
  if (!signalGroup(pid, 'SIGTERM')) {
    // Already gone: nothing to escalate to.
    clearTimeout(timer);
    killed = true;
    done();
    queueMicrotask(onKill);
  }
  return {
    get killed() {
      return killed;
    },
    cancel: () => {
      if (!killed) {
        clearTimeout(timer);
        done();
      }
    },
  };
}

/** Counts `sent` among the KILLs pendingKills waits for (marked.ts's, for processes that left the group). */
export function trackKill(sent: Promise<void>): void {
  const held = sent.finally(() => pending.delete(held));
  pending.add(held);
}

/** Resolves once every KILL scheduled so far has been sent: a host should await it before `process.exit`. */
export async function pendingKills(): Promise<void> {
  await Promise.all([...pending]);
}
