// Braid's settings, read fresh each time (a change applies to the next run). The plan's own
// values win over these: they are defaults for what a plan leaves unsaid.
import * as vscode from 'vscode';
import { AGENT_PERMISSIONS, DEFAULT_PERMISSION, type AgentPermission } from '../../core/agents/permission';
import type { Isolation } from '../../core/plan/types';
import type { PriceTable } from '../../core/cost/prices';
import type { ModelPrice } from '../../core/cost/priceTable';

/** `failures`: a terminal stays only while its step runs, and after it if the step did not succeed. */
export type KeepTerminals = 'failures' | 'all';

export const KEEP_TERMINALS: readonly KeepTerminals[] = ['failures', 'all'];

export interface BraidSettings {
  readonly concurrency: number;
  readonly agents: Readonly<Record<string, readonly string[]>>;
  /** undefined: the format's default (worktree for agent steps in a git workspace). */
  readonly isolation?: Isolation;
  readonly notifications: 'all' | 'failures' | 'none';
  readonly agentPermission: AgentPermission;
  readonly keepTerminals: KeepTerminals;
  /** A progress notification per active run (off: the status bar and the panel's run bar show progress). */
  readonly progressNotification: boolean;
  /** `braid.prices`: the user's prices by model, USD per million tokens (entries that are not prices are dropped). */
  readonly prices: PriceTable;
  /** `braid.otel.endpoint` and `braid.notify`: the user's own watchers of every run (the engine adds them to the plan's). */
  readonly otelEndpoint?: string;
  readonly notify: readonly string[];
}

export function readSettings(scope?: vscode.Uri): BraidSettings {
  const c = vscode.workspace.getConfiguration('braid', scope);
  const concurrency = c.get<number>('concurrency', 4);
  const isolation = c.get<string>('isolation', 'auto');
  const notifications = c.get<string>('notifications', 'all');
  const agents = c.get<Record<string, unknown>>('agents', {});
  const permission = c.get<string>('agentPermission', DEFAULT_PERMISSION);
  const keepTerminals = c.get<string>('keepTerminals', 'failures');
  return {
    concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 4,
    agents: Object.fromEntries(
      Object.entries(agents).filter(
        (e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((x) => typeof x === 'string'),
      ),
    ),
    ...(isolation === 'shared' || isolation === 'worktree' ? { isolation } : {}),
    notifications: notifications === 'failures' || notifications === 'none' ? notifications : 'all',
    agentPermission: AGENT_PERMISSIONS.find((p) => p === permission) ?? DEFAULT_PERMISSION,
    keepTerminals: KEEP_TERMINALS.find((k) => k === keepTerminals) ?? 'failures',
    progressNotification: c.get<boolean>('progressNotification', false) === true,
    prices: pricesOf(c.get<unknown>('prices', {})),
    ...(c.get<string>('otel.endpoint', '').trim() !== ''
      ? { otelEndpoint: c.get<string>('otel.endpoint', '').trim() }
      : {}),
    notify: (c.get<unknown[]>('notify', []) ?? []).filter((x): x is string => typeof x === 'string' && x.trim() !== ''),
  };
}

const price = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The setting's `{ model: { input, cached-input, output } }` as a price table; a malformed entry is left out (the settings editor flags it). */
export function pricesOf(setting: unknown): PriceTable {
  const out: Record<string, ModelPrice> = Object.create(null) as Record<string, ModelPrice>;
  if (typeof setting !== 'object' || setting === null) return out;
  for (const [model, v] of Object.entries(setting)) {
    const p = v as Record<string, unknown> | null;
    if (model === '' || typeof p !== 'object' || p === null || !price(p.input) || !price(p.output)) continue;
    out[model] = {
      input: p.input,
      output: p.output,
      ...(price(p['cached-input']) ? { cachedInput: p['cached-input'] } : {}),
    };
  }
  return out;
}
