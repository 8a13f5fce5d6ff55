// `braid pick RUN-ID STEP N` from any terminal: the choice is a small file in the run's folder
// (`picks/<step>`), written atomically; the run's own process, waiting on a `pick: review` step,
// watches that folder and lands the picked alternative. A file, not a socket: the CLI run has no
// server, and the record of what the user picked stays beside the run.
import { watch } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunRecord, StepRecord } from './runRecord';

const picksDir = (runDir: string): string => join(runDir, 'picks');

/** Whether a best-of step (its record) waits for the user's pick, holding no slot (scheduler.ts). */
export function waitsForPick(step: Pick<StepRecord, 'status' | 'reason' | 'winner'>): boolean {
  return step.status === 'waiting' && step.reason === 'pick' && step.winner === undefined;
}

/** Checks the pick against the run's record; an error sentence, or undefined when it may be written. */
export function pickProblem(rec: RunRecord, stepId: string, n: number): string | undefined {
  const step = rec.steps[stepId];
  if (!step) return `run ${rec.id} has no step ${stepId}`;
  if (!step.alternatives) return `step ${stepId} has no alternatives`;
  if (step.winner !== undefined) return `step ${stepId} already landed alternative ${step.winner}`;
  // While its alternatives still run a pick may come early: it is taken when the wait begins.
  if (rec.status !== 'running' || (step.status !== 'running' && !waitsForPick(step)))
    return `step ${stepId} is not waiting for a pick (it is ${step.status}; the run is ${rec.status})`;
  const alt = step.alternatives.find((a) => a.index === n);
  if (!alt) return `step ${stepId} has alternatives 1 to ${step.alternatives.length}, not ${n}`;
  if (alt.status !== 'succeeded') return `alternative ${n} of ${stepId} did not pass (it is ${alt.status})`;
  return undefined;
}

/** Writes the pick for the run's process to take. */
export async function writePick(runDir: string, stepId: string, n: number): Promise<void> {
  const dir = picksDir(runDir);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${stepId}.${process.pid}.tmp`);
  await writeFile(tmp, `${n}\n`);
  await rename(tmp, join(dir, stepId));
}

/** Resolves to the alternative picked for `stepId` among `candidates`; rejects when `signal` aborts. */
export async function waitForPick(
  runDir: string,
  stepId: string,
  candidates: readonly number[],
  signal: AbortSignal,
): Promise<number> {
  const dir = picksDir(runDir);
  await mkdir(dir, { recursive: true });
  return new Promise<number>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      watcher.close();
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const look = () =>
      void readFile(join(dir, stepId), 'utf8').then(
        (text) => {
          const n = Number(text.trim());
          // A pick of one that did not pass is ignored (the CLI refuses it first); the wait goes on.
          if (candidates.includes(n)) finish(() => resolve(n));
        },
        () => {},
      );
    const onAbort = () => finish(() => reject(signal.reason));
    const watcher = watch(dir, (_event, name) => {
      if (name === null || name === stepId) look();
    });
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    look(); // picked before the wait began
  });
}
