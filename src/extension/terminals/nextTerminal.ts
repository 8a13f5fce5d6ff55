// Which pending step gets its terminal opened before it starts. VS Code takes 200–300 ms to open a
// task's terminal, so a dependent's first output would wait that long after its need ends; one
// terminal opened ahead, for the step most likely to start next, shows it at once. Only one at a
// time (issue #23: never more terminals than the running steps + the failed ones + 1). Pure: no
// `vscode`, unit-tested.
import type { StepStatus } from '../../core/status';

export interface PlannedStep {
  readonly status: StepStatus;
  /** The steps it needs (the run's graph); absent: none. */
  readonly needs?: readonly string[];
}

export interface PlannedRun {
  /** The plan's step order (the graph's: needs before dependents). */
  readonly order: readonly string[];
  readonly steps: ReadonlyMap<string, PlannedStep>;
}

/**
 * The pending step to open a terminal for, if any: one whose needs are all running or succeeded,
 * at least one still running (a step whose needs all succeeded starts now, and gets its terminal
 * the usual way). Fewest unfinished needs first (one running need ends sooner than three), then
 * plan order. `current`, the step that has the terminal now, keeps it while it has not started
 * and none of its needs went wrong (its needs all done: it is about to start), so the opened
 * terminal does not move from step to step.
 */
export function nextTerminal(run: PlannedRun, current?: string): string | undefined {
  /** How many of its needs still run, if it can start once they end. */
  const waitsOn = (id: string, statuses: ReadonlySet<StepStatus>): number | undefined => {
    const step = run.steps.get(id);
    if (!step || !statuses.has(step.status)) return undefined;
    let running = 0;
    for (const need of step.needs ?? []) {
      const status = run.steps.get(need)?.status;
      if (status === 'running') running++;
      else if (status !== 'succeeded') return undefined;
    }
    return running;
  };
  if (current !== undefined && waitsOn(current, NOT_STARTED) !== undefined) return current;
  let best: string | undefined;
  let bestCount = Infinity;
  for (const id of run.order) {
    const n = waitsOn(id, PENDING);
    if (n !== undefined && n > 0 && n < bestCount) {
      best = id;
      bestCount = n;
    }
  }
  return best;
}

const PENDING: ReadonlySet<StepStatus> = new Set<StepStatus>(['pending']);
/** A step that has not started yet: pending, or waiting for a lock or a slot. */
const NOT_STARTED: ReadonlySet<StepStatus> = new Set<StepStatus>(['pending', 'waiting']);

/** The running needs of a step, for the pre-opened terminal's one line. */
export function runningNeeds(run: PlannedRun, id: string): string[] {
  return (run.steps.get(id)?.needs ?? []).filter((n) => run.steps.get(n)?.status === 'running');
}
