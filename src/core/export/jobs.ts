// The plan's graph as GitHub jobs: one job a step, one job a matrix group (its instances become
// the matrix), `needs` between jobs, and the steps whose changes each job merges before it runs.
import type { Graph, GraphStep } from '../plan/types';

export interface JobPlan {
  /** The job id: the step's id, or the matrix group's key (both valid GitHub job ids). */
  readonly id: string;
  /** The concrete steps it runs, in plan order: one, or a matrix group's instances. */
  readonly steps: readonly GraphStep[];
  readonly matrix: boolean;
  /** Jobs it needs, in plan order. */
  readonly needs: readonly string[];
  /** The steps its steps need, in plan order: their changes are what it starts from. */
  readonly needSteps: readonly string[];
}

/** Jobs in plan order (a group where its first instance comes), and the job of each step. */
export function planJobs(graph: Graph): { jobs: JobPlan[]; jobOf: ReadonlyMap<string, string> } {
  const jobOf = new Map<string, string>();
  const members = new Map<string, GraphStep[]>();
  for (const id of graph.order) {
    const step = graph.steps.get(id)!;
    const job = step.matrix?.group ?? step.id;
    jobOf.set(id, job);
    const list = members.get(job);
    if (list) list.push(step);
    else members.set(job, [step]);
  }
  const position = new Map(graph.order.map((id, i) => [id, i] as const));
  const jobs: JobPlan[] = [];
  for (const [id, steps] of members) {
    const needs = new Set<string>();
    const needSteps = new Set<string>();
    for (const s of steps)
      for (const n of s.needs) {
        needs.add(jobOf.get(n)!);
        needSteps.add(n);
      }
    needs.delete(id);
    const byPlan = (a: string, b: string) => position.get(a)! - position.get(b)!;
    const firstOf = (job: string) => members.get(job)![0]!.id;
    jobs.push({
      id,
      steps,
      matrix: steps[0]!.matrix !== undefined,
      needs: [...needs].sort((a, b) => byPlan(firstOf(a), firstOf(b))),
      needSteps: [...needSteps].sort(byPlan),
    });
  }
  return { jobs, jobOf };
}

/** A job id not among `taken`: `base`, else `base-2`, `base-3`… */
export function freeJobId(base: string, taken: ReadonlySet<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}
