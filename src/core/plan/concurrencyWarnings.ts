// Warnings about steps that may run at the same moment (neither needs the other, directly or
// not): writers whose paths overlap (the locks will serialise them), and agent steps with no
// `writes` in the shared workspace (nothing keeps them off each other's files). Both are pairwise,
// so both are bounded; past the bound the plan still runs, unannounced.
import { writeSetsOverlap } from '../paths/overlap';
import type { Instance, PlanModel } from './expand';
import { fieldPath, type Report } from './reporter';
import type { Reach } from './reachability';

export const PAIR_CHECK_MAX = 400;

export interface Candidates {
  /** Steps with `writes`, in file order. */
  readonly writers: readonly Instance[];
  /** Agent steps without `writes` in the shared workspace, in file order. */
  readonly unlocked: readonly Instance[];
}

/** The steps the pairwise warnings will look at (each list empty when past the bound). */
export function candidates(model: PlanModel, concurrency: number | undefined): Candidates {
  // One at a time: nothing runs at once.
  if (concurrency === 1) return { writers: [], unlocked: [] };
  const steps = [...model.byId.values()];
  const writers = steps.filter((s) => s.writes.length > 0);
  const unlocked = steps.filter((s) => s.kind === 'prompt' && s.writes.length === 0 && s.isolation === 'shared');
  return {
    writers: writers.length > PAIR_CHECK_MAX ? [] : writers,
    unlocked: unlocked.length > PAIR_CHECK_MAX ? [] : unlocked,
  };
}

/** True when neither step needs the other, so the scheduler may start both together. */
export const mayRunAtOnce = (reach: Reach, a: string, b: string): boolean =>
  a !== b && !reach.isAncestor(a, b) && !reach.isAncestor(b, a);

/** Reports both warnings, each on the later step of the pair in file order. */
export function warnConcurrency(c: Candidates, reach: Reach, report: Report): void {
  const { writers, unlocked } = c;
  for (let j = 1; j < writers.length; j++) {
    const b = writers[j]!;
    for (let i = 0; i < j; i++) {
      const a = writers[i]!;
      if (!mayRunAtOnce(reach, a.id, b.id)) continue;
      const pair = writeSetsOverlap(a.writes, b.writes);
      if (!pair) continue;
      const what = pair[0] === pair[1] ? pair[0] : `${pair[0]} / ${pair[1]}`;
      // Two worktree steps run at once in their own trees; only their merge-backs take turns.
      const apart =
        a.isolation === 'worktree' && b.isolation === 'worktree'
          ? 'they run at once in their worktrees and merge back one after the other (the second may end `conflict`)'
          : 'they will run one after the other';
      report(fieldPath(b.group, b.own, 'writes'), `${a.id} and ${b.id} both write ${what}; ${apart}`, 'write-overlap', {
        severity: 'warning',
        bare: true,
      });
    }
  }
  const warned = new Set<string>();
  for (let j = 1; j < unlocked.length; j++) {
    const b = unlocked[j]!;
    // A matrix step is written once, so it is warned about once.
    if (warned.has(b.group)) continue;
    // One warning a step, naming the first step it may collide with: enough to act on.
    const a = unlocked.slice(0, j).find((x) => mayRunAtOnce(reach, x.id, b.id));
    if (!a) continue;
    warned.add(b.group);
    report(
      ['steps', b.group],
      `${b.id} and ${a.id} are agent steps without \`writes\` that may run at once in the shared workspace; ` +
        'give them `writes` (their locks) or `isolation: worktree`',
      'unlocked-agents',
      { severity: 'warning', key: true, bare: true },
    );
  }
}
