// The last phase: a checked, expanded, acyclic model becomes the immutable Graph the engine runs,
// with each step's critical-path length (the scheduler starts the longest chains first).
import { basename } from 'node:path';
import { isBestOf, type PlanModel } from './expand';
import { rangeAt, type LoadedPlan } from './load';
import type { StepDoc } from './schema';
import type { AlternativeDef, BestOf, Graph, GraphStep, PlanInfo } from './types';

const DEFAULT_RETRY_DELAY_MS = 2000;

/** The plan's display name: its `name`, else the file name without `.braid.yaml`. */
export function planNameOf(file: string, name: string | undefined): string {
  return name ?? basename(file).replace(/\.braid\.(ya?ml|json)$/, '');
}

/** Longest path (in steps, counting itself) from each step to a sink, by one reverse pass. */
export function criticalPath(order: readonly string[], dependents: ReadonlyMap<string, readonly string[]>): Map<string, number> {
  const depth = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    let below = 0;
    for (const d of dependents.get(id) ?? []) below = Math.max(below, depth.get(d) ?? 0);
    depth.set(id, below + 1);
  }
  return depth;
}

function bestOfOf(own: StepDoc): BestOf {
  const entries: NonNullable<StepDoc['alternatives']> = own.alternatives ?? Array.from({ length: own['best-of'] ?? 2 }, () => ({}));
  const alternatives = entries.map((e, i): AlternativeDef => Object.freeze({
    index: i + 1, env: e.env ?? {},
    ...(e.agent !== undefined ? { agent: e.agent } : {}),
    ...(e.model !== undefined ? { model: e.model } : {}),
    ...(e.prompt !== undefined ? { prompt: e.prompt } : {}),
  }));
  return Object.freeze({ pick: own.pick ?? 'first', alternatives: Object.freeze(alternatives) });
}

/** Builds the Graph; `order` must be a topological order of every id in the model. */
export function buildGraph(lp: LoadedPlan, model: PlanModel, order: readonly string[]): Graph {
  const dependents = new Map<string, string[]>(order.map((id) => [id, []]));
  for (const id of order) for (const n of model.needs.get(id) ?? []) dependents.get(n)?.push(id);
  for (const list of dependents.values()) list.sort();
  const depth = criticalPath(order, dependents);
  const steps = new Map<string, GraphStep>();
  for (const id of order) {
    const inst = model.byId.get(id)!;
    const m = inst.merged;
    const pool = m.pool ?? (inst.agent !== undefined ? model.table.agents[inst.agent]?.pool : undefined);
    const step: GraphStep = {
      id, name: inst.name, kind: inst.kind, needs: model.needs.get(id) ?? [], dependents: dependents.get(id) ?? [],
      env: m.env ?? {}, writes: inst.writes, reads: inst.reads, isolation: inst.isolation,
      copy: inst.copy, symlink: inst.symlink, sparse: inst.sparse,
      retries: m.retries ?? 0, retryDelayMs: m['retry-delay'] ?? DEFAULT_RETRY_DELAY_MS,
      continueOnError: m['continue-on-error'] ?? false, if: m.if ?? 'success',
      range: rangeAt(lp, ['steps', inst.group], { key: true }), depth: depth.get(id) ?? 1,
      ...(inst.own.run !== undefined ? { run: inst.own.run } : {}),
      ...(inst.own.prompt !== undefined ? { prompt: inst.own.prompt } : {}),
      ...(inst.agent !== undefined ? { agent: inst.agent } : {}),
      ...(inst.values ? { matrix: { group: inst.group, values: inst.values } } : {}),
      ...(inst.cwd !== undefined ? { cwd: inst.cwd } : {}),
      ...(m.timeout !== undefined ? { timeoutMs: m.timeout } : {}),
      ...(m['idle-timeout'] !== undefined ? { idleTimeoutMs: m['idle-timeout'] } : {}),
      ...(pool !== undefined ? { pool } : {}),
      ...(m['max-cost-usd'] !== undefined ? { maxCostUsd: m['max-cost-usd'] } : {}),
      ...(m.setup !== undefined ? { setup: m.setup } : {}),
      ...(m.check !== undefined ? { check: m.check } : {}),
      ...(inst.output !== undefined ? { output: inst.output } : {}),
      ...(isBestOf(inst.own) ? { bestOf: bestOfOf(inst.own) } : {}),
    };
    steps.set(id, Object.freeze(step));
  }
  const top = model.checked.top;
  const plan: PlanInfo = Object.freeze({
    file: lp.file, name: model.planName, version: 1, env: top.env ?? {}, pools: top.pools ?? {},
    ...(top.concurrency !== undefined ? { concurrency: top.concurrency } : {}),
    ...(top.context !== undefined ? { context: top.context } : {}),
    ...(top['max-cost-usd'] !== undefined ? { maxCostUsd: top['max-cost-usd'] } : {}),
    ...(top.base !== undefined ? { base: top.base } : {}),
  });
  return { plan, agents: model.table.agents, steps, order };
}
