// Processes a step started that left its process group. The group's signal (killTree.ts) reaches
// every process that stayed in it, but an agent CLI's tool shells and a daemonising script call
// setsid and leave it: stopping the step left them running in its worktree, where they went on
// writing after the step was over (or while a person took it over). Each step's environment
// carries a mark that its processes inherit across fork, exec and setsid; ending a step on a
// timeout, a cancel or a stop also ends every process of ours whose environment holds it.
// A process that clears its environment (`env -i`) loses the mark: that one is out of reach, as it
// is of any tool short of a cgroup. Linux only (/proc); elsewhere none are found.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** The variable each step's processes carry; no TOKEN/KEY/SECRET in its name, so CLIs that filter those keep it. */
export const MARK_VAR = 'BRAID_PROCESS';

// This process's own part of every mark it makes, drawn once: a pid is reused, the pair is not.
// Unique is what a mark must be, not secret (any process of the user may signal the steps anyway);
// drawing random bytes for each process cost a syscall a step.
const SEED = randomBytes(4).toString('hex');
let made = 0;

/** A new mark, unique among the steps of every run on this machine. */
export function newMark(): string {
  return `${process.pid}.${SEED}${(made++).toString(16).padStart(8, '0')}`;
}

/** The pids of every process this user may read whose environment holds `mark`, this process excepted. */
export async function markedProcesses(mark: string): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const entry = Buffer.from(`${MARK_VAR}=${mark}\0`);
  const found = await Promise.all(
    entries.map(async (name) => {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) return undefined;
      // Another user's process (EACCES), or one that ended meanwhile (ENOENT): not ours to end.
      const environ = await readFile(`/proc/${name}/environ`).catch(() => undefined);
      if (!environ) return undefined;
      const at = environ.indexOf(entry);
      return at === 0 || (at > 0 && environ[at - 1] === 0) ? Number(name) : undefined;
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Ended between the look and the signal.
    }
  }
}

/**
 * TERM every process holding `mark` now, KILL those still holding it after `graceMs` (looked up
 * again, so one started meanwhile is caught too). Resolves once the KILL is sent.
 */
export async function endMarked(mark: string, graceMs: number): Promise<void> {
  signalEach(await markedProcesses(mark), 'SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  signalEach(await markedProcesses(mark), 'SIGKILL');
}
