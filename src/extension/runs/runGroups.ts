// Which matrix group each step of a run came from, read once from the run's record (the plan as it
// ran), so the tree and the lenses can group instances under their matrix step as the graph does.
import { RunStore } from '../../core/engine/records/runStore';
import type { RunView } from './runView';

export class RunGroups {
  private readonly known = new Map<string, ReadonlyMap<string, string>>();
  private readonly loading = new Set<string>();

  /** Step id → matrix group of the run's steps, if already read; else starts reading it and calls `onLoaded`. */
  groupsOf(run: RunView, onLoaded: () => void): ReadonlyMap<string, string> | undefined {
    const got = this.known.get(run.id);
    if (got || this.loading.has(run.id)) return got;
    this.loading.add(run.id);
    void new RunStore(run.workspace)
      .load(run.id)
      .then(
        (rec) => {
          if (!rec) return;
          const groups = new Map<string, string>();
          for (const s of rec.graph.steps) if (s.matrix) groups.set(s.id, s.matrix.group);
          this.known.set(run.id, groups);
          onLoaded();
        },
        () => undefined,
      )
      .finally(() => this.loading.delete(run.id));
    return undefined;
  }
}
