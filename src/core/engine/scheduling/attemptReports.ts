// What running attempts report while they run: output lines and an agent's progress, both
// throttled into events (events.ts), and a progress's cost checked against the step's and the
// run's budgets. Apart from scheduler.ts because it is the hot path of a run's events and touches
// no scheduling: it only reads which attempt of a step is the live one.
import type { GraphStep } from '../../plan/types';
import { foldProgress } from './agentProgress';
import type { AttemptAbort, AttemptSink } from './attempt';
import type { CostLedger } from './costLedger';
import { ChangeBatcher, OutputBatcher } from '../events';
import { agentEvent, type EventBody } from './stepEvents';
import type { StepState } from './stepState';
import type { AgentProgress } from '../types';

/** What of the scheduler the reports use. */
export interface ReportsHost {
  state(id: string): StepState;
  /** The abort of the step's running attempt; undefined when none runs. */
  running(id: string): AttemptAbort | undefined;
  readonly costs: CostLedger;
  emit(e: EventBody): void;
  /** A cost changed: the run's budget may be reached. */
  checkBudget(): void;
  /** Why the step must stop because its run or its pool spent past its budget (budgets.ts); undefined: it goes on. */
  overrun(step: GraphStep): string | undefined;
  /** Notes why the step is being stopped at a budget (its end says so). */
  stoppedAtBudget(id: string, why: string): void;
}

export class AttemptReports {
  private readonly batcher: OutputBatcher;
  private readonly progress: ChangeBatcher;

  /** What every attempt is given to report into. */
  readonly sink: AttemptSink = {
    output: (id, stream, text, alternative) => this.batcher.push(id, stream, text, alternative),
    progress: (step, attempt, abort, p) => this.onProgress(step, attempt, abort, p),
  };

  /** `intervalMs`: the least time between two events of one step's output or progress. */
  constructor(
    private readonly host: ReportsHost,
    intervalMs: number | undefined,
  ) {
    this.batcher = new OutputBatcher(
      (id, stream, text, skippedLines, alternative) =>
        host.emit({
          type: 'output',
          id,
          stream,
          text,
          ...(skippedLines !== undefined ? { skippedLines } : {}),
          ...(alternative !== undefined ? { alternative } : {}),
        }),
      intervalMs,
    );
    this.progress = new ChangeBatcher((id) => this.emitProgress(id), intervalMs);
  }

  /** Sends the step's pending progress now (its status is about to change). */
  flushProgress(id: string): void {
    this.progress.flush(id);
  }

  /** The step's attempt ended: everything it reported goes out before its end does. */
  flush(id: string): void {
    this.progress.flush(id);
    this.batcher.flush(id);
  }

  dispose(): void {
    this.batcher.dispose();
    this.progress.dispose();
  }

  /** A running agent's progress: state, throttled events, the step's and the run's budgets. */
  private onProgress(step: GraphStep, attempt: number, ctl: AttemptAbort, p: AgentProgress): void {
    const st = this.host.state(step.id);
    if (this.host.running(step.id) !== ctl || st.attempt !== attempt) return; // a late report of an ended attempt
    const { costChanged } = foldProgress(st, p, this.host.costs);
    this.progress.mark(step.id);
    if (costChanged) {
      if (step.maxCostUsd !== undefined && st.costUsd! > step.maxCostUsd && !ctl.aborted) ctl.abort('budget');
      // A budget counts what is being spent: a step streaming past what the run (or its pool) may
      // still spend is stopped now, its work kept, not left to finish at any price.
      const over = ctl.aborted ? undefined : this.host.overrun(step);
      if (over !== undefined) {
        this.host.stoppedAtBudget(step.id, over);
        ctl.abort('budget');
      }
      this.host.checkBudget();
    }
  }

  private emitProgress(id: string): void {
    const st = this.host.state(id);
    if (st.status !== 'running') return;
    this.host.emit(agentEvent(st, st.costUsd !== undefined ? this.host.costs.total() : 0));
  }
}
