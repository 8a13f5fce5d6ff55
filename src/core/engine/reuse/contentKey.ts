// A step's content key: a hash of everything that decides what the step does (its command or
// prompt, agent, model, environment, folder, write set, check, isolation, matrix values…) and of
// its needs' keys, so a change anywhere upstream changes it too. Two runs of a step with the same
// key did the same thing with the same inputs from the plan; `--only` reuses on that (reusable.ts).
import { createHash } from 'node:crypto';
import type { Graph, GraphStep } from '../../plan/types';

/**
 * GraphStep fields that do not change what a step does: how it is named, drawn, ordered, retried,
 * timed, pooled or reviewed. Every other field counts, so a field added later counts until it is
 * listed here.
 */
const NOT_CONTENT: ReadonlySet<string> = new Set<keyof GraphStep>([
  'id',
  'name',
  'needs',
  'dependents',
  'range',
  'depth',
  'reads',
  'retries',
  'retryDelayMs',
  'timeoutMs',
  'idleTimeoutMs',
  'pool',
  'maxCostUsd',
  'continueOnError',
  'retryContext',
  'retryResume',
  'if',
  'review',
]);

/** Each step's content key (hex sha-256), computed in the graph's topological order. */
export function contentKeys(graph: Graph): Map<string, string> {
  const keys = new Map<string, string>();
  for (const id of graph.order) {
    const step = graph.steps.get(id)!;
    const own = Object.fromEntries(Object.entries(step).filter(([k]) => !NOT_CONTENT.has(k)));
    const agents = [step.agent, ...(step.bestOf?.alternatives.map((a) => a.agent) ?? [])]
      .filter((a): a is string => a !== undefined)
      .map((name) => {
        const { pool: _pool, ...def } = graph.agents[name] ?? { name };
        return def;
      });
    const content = {
      step: own,
      agents,
      // What the plan adds to every step: its environment and agent context; a worktree's base.
      plan: {
        env: graph.plan.env,
        context: graph.plan.context ?? null,
        base: step.isolation === 'worktree' ? (graph.plan.base ?? null) : null,
      },
      needs: step.needs.map((n) => [n, keys.get(n)!]),
    };
    keys.set(id, createHash('sha256').update(canonicalJson(content)).digest('hex'));
  }
  return keys;
}

/** JSON with object keys sorted at every level, so equal content hashes equal whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
