// Keeps a run's record current: one more subscriber of the engine's events, each folded into its
// step's record (stepFold.ts, the fold every live view uses too), for the run store to save. An
// event costs O(that step's attempts) whatever the size of the plan; the run's cost is re-summed
// only when a step's cost changed, and only over the steps that have one (agent steps).
import type { RunRecord } from './runRecord';
import { foldStep } from './stepFold';
import { joinSource } from '../scheduling/costLedger';
import type { EngineEvent } from '../types';
import type { CostSource } from '../../cost/agentUsage';

export class RunRecorder {
  private readonly costs = new Map<string, number>();
  private readonly sources = new Map<string, CostSource>();

  constructor(
    private readonly record: RunRecord,
    private readonly save: (record: RunRecord) => void,
  ) {
    for (const s of Object.values(record.steps)) {
      if (s.costUsd !== undefined) this.costs.set(s.id, s.costUsd);
      if (s.costSource !== undefined) this.sources.set(s.id, s.costSource);
    }
    if (this.costs.size > 0) {
      record.costUsd = this.total();
      this.setSource();
    } else {
      delete record.costUsd;
      delete record.costSource;
    }
  }

  /** One engine event: a step's state or progress changes its record; the rest is the run's (runPlan.ts). */
  on(e: EngineEvent): void {
    if (e.type !== 'step' && e.type !== 'agent') return;
    const prev = this.record.steps[e.id];
    const rec = foldStep(prev, e);
    this.record.steps[e.id] = rec;
    if (rec.costUsd !== prev?.costUsd || rec.costSource !== prev?.costSource) {
      if (rec.costUsd !== undefined) this.costs.set(e.id, rec.costUsd);
      else this.costs.delete(e.id);
      if (rec.costSource !== undefined) this.sources.set(e.id, rec.costSource);
      else this.sources.delete(e.id);
      if (this.costs.size > 0) {
        this.record.costUsd = this.total();
        this.setSource();
      }
    }
    this.save(this.record);
  }

  private setSource(): void {
    let s: CostSource | undefined;
    for (const v of this.sources.values()) s = joinSource(s, v);
    if (s !== undefined) this.record.costSource = s;
    else delete this.record.costSource;
  }

  // A sum, not a running total: adding and taking back floats would drift from what a reader adds up.
  private total(): number {
    let t = 0;
    for (const v of this.costs.values()) t += v;
    return t;
  }
}
