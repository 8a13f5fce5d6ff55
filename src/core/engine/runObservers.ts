// What else listens to a run besides its caller: traces (telemetry/), webhooks (notify/). Each is
// made when the run starts, hears every event after the caller, and is closed (flushed) after the
// run's last event. An observer can never fail a run: what goes wrong in one is its own to report.
import type { Graph } from '../plan/types';
import type { RunRecord } from './records/runRecord';
import type { EngineEvent } from './types';

/** The run as an observer first sees it: the record is the one the run keeps current in memory. */
export interface RunStart {
  readonly runId: string;
  readonly graph: Graph;
  readonly record: Readonly<RunRecord>;
  /** The environment the run's steps start from (a webhook's `${{ env.X }}` reads it). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Tells the user something once (a webhook that fails, traces that could not be sent); never fails the run. */
  readonly notice: (message: string) => void;
}

export interface RunObserver {
  onEvent(event: EngineEvent): void;
  /** After the run's last event: deliver what is pending. Never rejects. */
  close(): Promise<void>;
}

/** Makes one observer for a run, or none (nothing to observe in this plan). */
export type RunObserverFactory = (start: RunStart) => RunObserver | undefined | Promise<RunObserver | undefined>;

/** The observers of one run, started together; a factory or event handler that throws is reported, never rethrown. */
export class RunObservers {
  private constructor(
    private readonly list: readonly RunObserver[],
    private readonly report: (e: unknown) => void,
  ) {}

  static async start(
    factories: readonly RunObserverFactory[],
    start: RunStart,
    report: (e: unknown) => void,
  ): Promise<RunObservers> {
    const made = await Promise.all(
      factories.map(async (f) => {
        try {
          return await f(start);
        } catch (e) {
          report(e);
          return undefined;
        }
      }),
    );
    return new RunObservers(
      made.filter((o): o is RunObserver => o !== undefined),
      report,
    );
  }

  get size(): number {
    return this.list.length;
  }

  fire(event: EngineEvent): void {
    for (const o of this.list) {
      try {
        o.onEvent(event);
      } catch (e) {
        this.report(e);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.list.map((o) => o.close().catch((e: unknown) => this.report(e))));
  }
}
