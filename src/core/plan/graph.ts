// The last phase: a checked, expanded, acyclic model becomes the immutable Graph the engine runs,
// with each step's depth (the steps on its longest chain to a sink; worktrees prepared ahead go
// deepest first). The scheduler's own priority weighs that chain by expected durations.
import { basename } from 'node:path';
import { dict, ownValue } from './dict';
import { isBestOf, type Instance, type PlanModel } from './expand';
import { rangeAt, type LoadedPlan } from './load';
import type { PlanDoc, StepDoc } from './schema';
import type { AlternativeDef, BestOf, Graph, GraphStep, OnConflict, PlanInfo } from './types';

const DEFAULT_RETRY_DELAY_MS = 2000;

/** The plan's display name: its `name`, else the file name without `.braid.yaml`. */
export function planNameOf(file: string, name: string | undefined): string {
  return name ?? basename(file).replace(/\.braid\.(ya?ml|json)$/, '');
}

/** What a critical-path pass needs of a graph: a topological order and each step's dependents. */
export interface Dependents<S extends { readonly dependents: readonly string[] }> {
  readonly order: readonly string[];
  readonly steps: ReadonlyMap<string, S>;
}

/**
 * Longest weighted path from each step to a sink, counting the step itself, by one reverse pass:
 * with weight 1, a step's depth (the graph's); with expected durations, the scheduler's priority.
 */
export function criticalPaths<S extends { readonly dependents: readonly string[] }>(
  graph: Dependents<S>,
  weight: (step: S) => number,
): Map<string, number> {
  const cp = new Map<string, number>();
  for (let i = graph.order.length - 1; i >= 0; i--) {
    const id = graph.order[i]!;
    const step = graph.steps.get(id)!;
    let tail = 0;
    for (const d of step.dependents) tail = Math.max(tail, cp.get(d) ?? 0);
    cp.set(id, weight(step) + tail);
  }
  return cp;
}

/** An agent step's asks of its CLI and its retry choices, only those the plan sets. */
function agentAsks(inst: Instance): Partial<GraphStep> {
  const m = inst.merged;
  return {
    ...(inst.model !== undefined ? { model: inst.model } : {}),
    ...(m['max-turns'] !== undefined ? { maxTurns: m['max-turns'] } : {}),
    ...(m.permission !== undefined ? { permission: m.permission } : {}),
    ...(m.tools !== undefined ? { tools: m.tools } : {}),
    ...(m['retry-context'] === false ? { retryContext: false } : {}),
    ...(m['retry-resume'] === false ? { retryResume: false } : {}),
  };
}

/** `defaults: {on-conflict: resolve}` leaves `run` steps alone: they have no agent to resolve with (validate.ts refuses it on one). */
function onConflictOf(inst: Instance): OnConflict {
  const set =
    inst.own['on-conflict'] ??
    (inst.kind === 'run' && inst.merged['on-conflict'] === 'resolve' ? undefined : inst.merged['on-conflict']);
  return set ?? (inst.kind === 'prompt' ? 'resolve' : 'stop');
}

function bestOfOf(inst: Instance): BestOf {
  const own = inst.own;
  const entries: NonNullable<StepDoc['alternatives']> =
    own.alternatives ?? Array.from({ length: own['best-of'] ?? 2 }, () => ({}));
  const alternatives = entries.map((e, i): AlternativeDef =>
    Object.freeze({
      index: i + 1,
      env: dict(e.env),
      ...(e.agent !== undefined ? { agent: e.agent } : {}),
      ...(inst.alternativeModels?.[i] !== undefined ? { model: inst.alternativeModels[i] } : {}),
      ...(e.prompt !== undefined ? { prompt: e.prompt } : {}),
    }),
  );
  return Object.freeze({ pick: own.pick ?? 'first', alternatives: Object.freeze(alternatives) });
}

/** Builds the Graph; `order` must be a topological order of every id in the model. */
export function buildGraph(lp: LoadedPlan, model: PlanModel, order: readonly string[]): Graph {
  const dependents = new Map<string, string[]>(order.map((id) => [id, []]));
  for (const id of order) for (const n of model.needs.get(id) ?? []) dependents.get(n)?.push(id);
  for (const list of dependents.values()) list.sort();
  const depth = criticalPaths(
    { order, steps: new Map(order.map((id) => [id, { dependents: dependents.get(id)! }])) },
    () => 1,
  );
  const steps = new Map<string, GraphStep>();
  for (const id of order) {
    const inst = model.byId.get(id)!;
    const m = inst.merged;
    const pool = m.pool ?? (inst.agent !== undefined ? ownValue(model.table.agents, inst.agent)?.pool : undefined);
    const step: GraphStep = {
      id,
      name: inst.name,
      kind: inst.kind,
      needs: model.needs.get(id) ?? [],
      dependents: dependents.get(id) ?? [],
      env: dict(m.env),
      writes: inst.writes,
      reads: inst.reads,
      isolation: inst.isolation,
      copy: inst.copy,
      symlink: inst.symlink,
      sparse: inst.sparse,
      retries: m.retries ?? 0,
      retryDelayMs: m['retry-delay'] ?? DEFAULT_RETRY_DELAY_MS,
      continueOnError: m['continue-on-error'] ?? false,
      review: m.review ?? false,
      if: m.if ?? 'success',
      onConflict: onConflictOf(inst),
      ...(m['resolve-attempts'] !== undefined ? { resolveAttempts: m['resolve-attempts'] } : {}),
      range: rangeAt(lp, ['steps', inst.group], { key: true }),
      depth: depth.get(id) ?? 1,
      ...(inst.own.run !== undefined ? { run: inst.own.run } : {}),
      ...(inst.own.prompt !== undefined ? { prompt: inst.own.prompt } : {}),
      ...(inst.agent !== undefined ? { agent: inst.agent } : {}),
      ...(inst.values ? { matrix: { group: inst.group, values: dict(inst.values) } } : {}),
      ...(inst.cwd !== undefined ? { cwd: inst.cwd } : {}),
      ...(m.timeout !== undefined ? { timeoutMs: m.timeout } : {}),
      ...(m['idle-timeout'] !== undefined ? { idleTimeoutMs: m['idle-timeout'] } : {}),
      ...(pool !== undefined ? { pool } : {}),
      ...(m['max-cost-usd'] !== undefined ? { maxCostUsd: m['max-cost-usd'] } : {}),
      ...(m.setup !== undefined ? { setup: m.setup } : {}),
      ...(m.check !== undefined ? { check: m.check } : {}),
      ...(inst.output !== undefined ? { output: inst.output } : {}),
      ...(inst.kind === 'prompt' ? agentAsks(inst) : {}),
      ...(m.sandbox ? { sandbox: true } : {}),
      ...(isBestOf(inst.own) ? { bestOf: bestOfOf(inst) } : {}),
    };
    steps.set(id, Object.freeze(step));
  }
  const top = model.checked.top;
  const plan: PlanInfo = Object.freeze({
    file: lp.file,
    name: model.planName,
    version: 1,
    env: dict(top.env),
    ...poolsOf(top.pools),
    ...(top.prices !== undefined ? { prices: pricesOf(top.prices) } : {}),
    ...(top.concurrency !== undefined ? { concurrency: top.concurrency } : {}),
    ...(top.context !== undefined ? { context: top.context } : {}),
    ...(top['max-cost-usd'] !== undefined ? { maxCostUsd: top['max-cost-usd'] } : {}),
    ...(top.base !== undefined ? { base: top.base } : {}),
    ...(top.notify !== undefined ? { notify: Object.freeze([...top.notify]) } : {}),
  });
  return { plan, agents: model.table.agents, steps, order };
}

/** `pools:` as caps (a number, or an object's `concurrency`) and budgets (an object's `max-cost-usd`). */
function poolsOf(pools: PlanDoc['pools']): Pick<PlanInfo, 'pools' | 'poolBudgets'> {
  const caps: Record<string, number> = {};
  const budgets: Record<string, number> = {};
  for (const [name, p] of Object.entries(pools ?? {})) {
    if (typeof p === 'number') caps[name] = p;
    else {
      if (p.concurrency !== undefined) caps[name] = p.concurrency;
      if (p['max-cost-usd'] !== undefined) budgets[name] = p['max-cost-usd'];
    }
  }
  return { pools: dict(caps), ...(Object.keys(budgets).length > 0 ? { poolBudgets: dict(budgets) } : {}) };
}

function pricesOf(prices: NonNullable<PlanDoc['prices']>): NonNullable<PlanInfo['prices']> {
  const out: Record<string, { input: number; cachedInput?: number; output: number }> = {};
  for (const [model, p] of Object.entries(prices))
    out[model] = {
      input: p.input,
      output: p.output,
      ...(p['cached-input'] !== undefined ? { cachedInput: p['cached-input'] } : {}),
    };
  return dict(out);
}
