// Plan file → validated, expanded Graph. Every problem is returned at once, located; a Graph only
// when there is no error. (A first, compact compiler: schema, located zod issues, graph checks,
// matrix and needs expansion.)
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import picomatch from 'picomatch';
import { parse as shellParse } from 'shell-quote';
import { closest, distance } from 'fastest-levenshtein';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { PRESETS, DEFAULT_AGENT } from '../agents/presets';
import { escapesWorkspace } from '../paths/containment';
import { parseDuration } from './duration';
import { writeSetsOverlap } from '../paths/overlap';
import { classifyRef, parseTemplates, singleQuotedRefs } from './templates';
import type { AgentDef, Diagnostic, Graph, GraphStep, Isolation, Range } from './types';

const strList = z.union([z.string(), z.array(z.string())]);
const duration = z.union([z.string(), z.number()]);
const stepFields = {
  name: z.string(), agent: z.string(), cwd: z.string(), env: z.record(z.string(), z.string()),
  writes: strList, reads: strList, isolation: z.enum(['shared', 'worktree']), timeout: duration,
  'idle-timeout': duration, pool: z.string(), 'max-cost-usd': z.number().nonnegative(), setup: z.string(),
  copy: strList, symlink: strList, sparse: z.array(z.string()), retries: z.number().int().min(0).max(10),
  'retry-delay': duration, 'continue-on-error': z.boolean(), if: z.enum(['always', 'success', 'failure']),
  check: z.string(), output: z.string(),
};
const stepSchema = z.strictObject({
  ...stepFields, needs: strList, run: z.string(), prompt: z.string(),
  matrix: z.record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()])).min(1)),
}).partial();
const agentSchema = z.strictObject({
  command: z.union([z.string(), z.array(z.string()).min(1)]), env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(), stdin: z.literal('prompt').optional(), context: z.boolean().optional(), pool: z.string().optional(),
});
export const planSchema = z.strictObject({
  version: z.literal(1), name: z.string().optional(), concurrency: z.number().int().min(1).optional(),
  context: z.string().optional(), env: z.record(z.string(), z.string()).optional(),
  defaults: z.strictObject(stepFields).partial().optional(), agents: z.record(z.string(), agentSchema).optional(),
  pools: z.record(z.string(), z.number().int().min(1)).optional(), 'max-cost-usd': z.number().nonnegative().optional(),
  base: z.string().optional(),
  steps: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'step ids match ^[A-Za-z][A-Za-z0-9_-]{0,63}$'), stepSchema)
    .refine((s) => Object.keys(s).length > 0, 'a plan needs at least one step'),
});
export type PlanDoc = z.infer<typeof planSchema>;
type StepDoc = z.infer<typeof stepSchema>;

export interface CompileOptions {
  isGit?: boolean;
  agentOverrides?: Record<string, { command?: readonly string[] | string; env?: Record<string, string> }>;
  defaultIsolation?: Isolation;
}
export interface CompileResult { graph?: Graph; diagnostics: Diagnostic[] }

/** The JSON schema of plan files, for editors' completion. */
export function planJsonSchema(): object { return z.toJSONSchema(planSchema, { unrepresentable: 'any' }); }

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Reads and compiles a plan file; an unreadable file is a diagnostic. */
export async function compilePlanFile(path: string, opts?: CompileOptions): Promise<CompileResult> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) {
    return { diagnostics: [{ file: path, range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } }, severity: 'error', code: 'unreadable', message: `cannot read plan: ${(e as Error).message}` }] };
  }
  return compilePlan(path, text, opts);
}

/** Validates and expands a plan's text. */
export function compilePlan(file: string, text: string, opts: CompileOptions = {}): CompileResult {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const diags: Diagnostic[] = [];
  const at = (offsets: readonly [number, number] | undefined): Range => {
    const [s, e] = offsets ?? [0, 0];
    const a = lc.linePos(s), b = lc.linePos(e);
    return { start: { line: a.line - 1, column: a.col - 1 }, end: { line: b.line - 1, column: b.col - 1 } };
  };
  const report = (range: Range, message: string, code: string, severity: Diagnostic['severity'] = 'error') => diags.push({ file, range, message, code, severity });
  for (const e of doc.errors) report(at([e.pos[0], e.pos[1]]), e.message.split('\n')[0]!, 'yaml');
  if (doc.errors.length > 0) return { diagnostics: diags };

  /** The node at a key path: the key itself when `key`, else the value; else the nearest parent. */
  const locate = (path: readonly PropertyKey[], key = false): Range => {
    let node: unknown = doc.contents;
    let best: readonly [number, number] | undefined = (doc.contents as YamlNode | null)?.range?.slice(0, 2) as [number, number] | undefined;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        const last = i === path.length - 1;
        const k = pair.key as YamlNode;
        if (last && key) return at(k.range?.slice(0, 2) as [number, number]);
        node = pair.value;
        best = ((pair.value as YamlNode | null)?.range ?? k.range)?.slice(0, 2) as [number, number];
      } else if (isSeq(node) && typeof seg === 'number') {
        node = node.items[seg];
        if (!node) break;
        best = (node as YamlNode).range?.slice(0, 2) as [number, number];
      } else break;
    }
    return at(best);
  };
  void isPair;

  const raw = doc.toJS() as unknown;
  const parsed = planSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path as PropertyKey[];
      if (issue.code === 'unrecognized_keys') {
        for (const k of issue.keys) {
          const valid = validKeysAt(path);
          const guess = valid.length ? closest(k, valid) : undefined;
          const hint = guess && distance(k, guess) <= Math.max(2, Math.floor(k.length / 3)) ? `; did you mean \`${guess}\`?` : '';
          report(locate([...path, k], true), `${[...path, k].join('.')}: unknown key \`${k}\`${hint}`, 'unknown-key');
        }
      } else {
        report(locate(path), `${path.join('.') || 'plan'}: ${issue.message}`, 'type');
      }
    }
    return { diagnostics: diags };
  }
  const plan = parsed.data;
  const graph = expand(file, plan, opts, locate, report);
  return diags.some((d) => d.severity === 'error') || !graph ? { diagnostics: diags } : { graph, diagnostics: diags };
}

function validKeysAt(path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys(planSchema.shape);
  if (path[0] === 'steps' && path.length === 2) return Object.keys(stepSchema.shape);
  if (path[0] === 'defaults') return Object.keys(stepFields);
  if (path[0] === 'agents' && path.length === 2) return Object.keys(agentSchema.shape);
  return [];
}

type Locate = (path: readonly PropertyKey[], key?: boolean) => Range;
type Report = (range: Range, message: string, code: string, severity?: Diagnostic['severity']) => void;

function expand(file: string, plan: PlanDoc, opts: CompileOptions, locate: Locate, report: Report): Graph | undefined {
  const agents: Record<string, AgentDef> = { ...PRESETS };
  for (const [name, o] of Object.entries(opts.agentOverrides ?? {})) {
    const base = agents[name];
    if (!base) continue;
    agents[name] = { ...base, ...(o.command ? { command: splitCommand(o.command) ?? base.command } : {}), env: { ...base.env, ...(o.env ?? {}) } };
  }
  for (const [name, a] of Object.entries(plan.agents ?? {})) {
    const command = splitCommand(a.command);
    if (!command) { report(locate(['agents', name, 'command']), `agents.${name}.command: shell operators are not allowed (the command never reaches a shell)`, 'agent-command'); continue; }
    agents[name] = { name, command, env: a.env ?? {}, context: a.context ?? true, format: 'text', ...(a.cwd ? { cwd: a.cwd } : {}), ...(a.stdin ? { stdin: a.stdin } : {}), ...(a.pool ? { pool: a.pool } : {}) };
  }
  const defaults = plan.defaults ?? {};
  const drafts: Array<{ group: string; id: string; doc: StepDoc; values?: Record<string, string> }> = [];
  const groups = new Map<string, string[]>();
  for (const [id, doc] of Object.entries(plan.steps)) {
    if ((doc.run === undefined) === (doc.prompt === undefined)) report(locate(['steps', id], true), `steps.${id}: needs exactly one of \`run\` or \`prompt\``, 'run-prompt');
    const combos = combinations(doc.matrix);
    const ids: string[] = [];
    for (const values of combos) {
      const cid = values ? [id, ...Object.values(values).map((v) => v.replace(/[^A-Za-z0-9_-]/g, '-'))].join('-') : id;
      ids.push(cid);
      drafts.push({ group: id, id: cid, doc, ...(values ? { values } : {}) });
    }
    groups.set(id, ids);
  }
  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.id)) report(locate(['steps', d.group], true), `duplicate step id ${d.id} after matrix expansion`, 'duplicate');
    seen.add(d.id);
  }
  const allIds = drafts.map((d) => d.id);
  const needsOf = new Map<string, string[]>();
  for (const d of drafts) {
    const out = new Set<string>();
    list(d.doc.needs).forEach((n, i) => {
      const matched = groups.get(n) ?? (picomatch.scan(n).isGlob ? allIds.filter((x) => picomatch.isMatch(x, n)) : allIds.includes(n) ? [n] : []);
      if (matched.length === 0) {
        const guess = closest(n, [...groups.keys()]);
        report(locate(['steps', d.group, 'needs', ...(Array.isArray(d.doc.needs) ? [i] : [])]), `steps.${d.group}.needs: unknown step \`${n}\`${guess && distance(n, guess) <= 2 ? `; did you mean \`${guess}\`?` : ''}`, 'unknown-need');
      }
      for (const m of matched) {
        if (m === d.id || groups.get(d.group)!.includes(m)) report(locate(['steps', d.group, 'needs']), `steps.${d.group}: a step cannot need itself`, 'self-need');
        else out.add(m);
      }
    });
    needsOf.set(d.id, [...out].sort());
  }
  const order = topoOrder(allIds, needsOf);
  if (!order.ok) { report(locate(['steps', order.cycle[0]!.replace(/-.*$/, '')], true), `cycle: ${order.cycle.join(' → ')}`, 'cycle'); return undefined; }
  const ancestors = new Map<string, Set<string>>();
  for (const id of order.order) {
    const s = new Set<string>();
    for (const n of needsOf.get(id)!) { s.add(n); for (const a of ancestors.get(n)!) s.add(a); }
    ancestors.set(id, s);
  }
  const steps = new Map<string, GraphStep>();
  const dependents = new Map<string, string[]>(allIds.map((id) => [id, []]));
  for (const [id, ns] of needsOf) for (const n of ns) dependents.get(n)!.push(id);
  const sub = (s: string, values?: Record<string, string>) =>
    s.replace(/\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}/g, (m, k: string) => values?.[k] ?? m).replace(/\$\{\{\s*plan\.name\s*\}\}/g, plan.name ?? '');
  const depth = new Map<string, number>();
  for (let i = order.order.length - 1; i >= 0; i--) {
    const id = order.order[i]!;
    let dd = 0;
    for (const x of dependents.get(id)!) dd = Math.max(dd, depth.get(x)!);
    depth.set(id, dd + 1);
  }
  const planName = plan.name ?? basename(file).replace(/\.braid\.(ya?ml|json)$/, '');
  const byId = new Map(drafts.map((d) => [d.id, d]));
  for (const id of order.order) {
    const d = byId.get(id)!;
    const m = { ...defaults, ...d.doc } as StepDoc;
    const base = ['steps', d.group];
    const kind = d.doc.prompt !== undefined ? 'prompt' : 'run';
    const agentName = kind === 'prompt' ? (m.agent ?? DEFAULT_AGENT) : undefined;
    if (agentName && !agents[agentName]) {
      report(locate([...base, 'agent']), `steps.${d.group}.agent: unknown agent \`${agentName}\`; did you mean \`${closest(agentName, Object.keys(agents))}\`?`, 'unknown-agent');
    }
    const dur = (key: 'timeout' | 'idle-timeout' | 'retry-delay'): number | undefined => {
      const v = m[key];
      if (v === undefined) return undefined;
      const ms = parseDuration(v);
      if (ms === undefined) report(locate(d.doc[key] !== undefined ? [...base, key] : ['defaults', key]), `${key}: expected a duration like 90s, 20m, 1h30m, got ${JSON.stringify(v)}`, 'duration');
      return ms;
    };
    const paths = (key: 'writes' | 'reads' | 'copy' | 'symlink') => list(m[key]).map((p) => sub(p, d.values));
    const writes = paths('writes'), reads = paths('reads');
    for (const [key, vals] of [['writes', writes], ['reads', reads], ['cwd', m.cwd ? [m.cwd] : []], ['output', m.output ? [m.output] : []]] as const) {
      for (const v of vals) if (escapesWorkspace(v)) report(locate([...base, key]), `steps.${d.group}.${key}: \`${v}\` leaves the workspace`, 'escapes');
    }
    let isolation: Isolation = m.isolation ?? opts.defaultIsolation ?? (kind === 'prompt' && opts.isGit ? 'worktree' : 'shared');
    if (isolation === 'worktree' && !opts.isGit) {
      if (m.isolation) report(locate([...base, 'isolation']), `steps.${d.group}.isolation: worktree needs a git workspace`, 'isolation');
      isolation = 'shared';
    }
    const anc = ancestors.get(id)!;
    for (const [key, text] of [['run', d.doc.run], ['prompt', d.doc.prompt], ['check', m.check]] as const) {
      if (text === undefined) continue;
      const { refs, errors } = parseTemplates(text);
      for (const e of errors) report(locate([...base, key]), `steps.${d.group}.${key}: ${e.message}`, 'template');
      for (const r of refs) {
        const c = classifyRef(r.path);
        const bad = !c || c.kind === 'prompt' ? `unknown template \${{ ${r.expr} }}`
          : (c.kind === 'step-output' || c.kind === 'step-status') && !anc.has(c.key!) ? `\${{ ${r.expr} }}: ${c.key} is not among the steps it needs`
          : c.kind === 'matrix' && !(d.values && c.key! in d.values) ? `\${{ ${r.expr} }}: no matrix key ${c.key}` : undefined;
        if (bad) report(locate([...base, key]), `steps.${d.group}.${key}: ${bad}`, 'template');
      }
    }
    for (const [key, text] of [['run', d.doc.run], ['check', m.check]] as const) {
      for (const r of text === undefined ? [] : singleQuotedRefs(text)) {
        report(locate([...base, key]), `steps.${d.group}.${key}: \${{ ${r.expr} }} is inside single quotes, where the shell would not expand it`, 'single-quoted', 'warning');
      }
    }
    const timeoutMs = dur('timeout'), idleTimeoutMs = dur('idle-timeout');
    const pool = m.pool ?? (agentName ? agents[agentName]?.pool : undefined);
    steps.set(id, Object.freeze({
      id, name: sub(m.name ?? id, d.values), kind, needs: needsOf.get(id)!, dependents: dependents.get(id)!.sort(),
      env: m.env ?? {}, writes, reads, isolation, copy: paths('copy'), symlink: paths('symlink'), sparse: m.sparse ?? [],
      retries: m.retries ?? 0, retryDelayMs: dur('retry-delay') ?? 2000, continueOnError: m['continue-on-error'] ?? false,
      if: m.if ?? 'success', range: locate(base, true), depth: depth.get(id)!,
      ...(d.doc.run !== undefined ? { run: d.doc.run } : {}), ...(d.doc.prompt !== undefined ? { prompt: d.doc.prompt } : {}),
      ...(agentName ? { agent: agentName } : {}), ...(d.values ? { matrix: { group: d.group, values: d.values } } : {}),
      ...(m.cwd ? { cwd: sub(m.cwd, d.values) } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}), ...(pool ? { pool } : {}),
      ...(m['max-cost-usd'] !== undefined ? { maxCostUsd: m['max-cost-usd'] } : {}), ...(m.setup ? { setup: m.setup } : {}),
      ...(m.check ? { check: m.check } : {}), ...(m.output ? { output: sub(m.output, d.values) } : {}),
    }) as GraphStep);
  }
  warnOverlaps(steps, ancestors, locate, report);
  return {
    plan: Object.freeze({ file, name: planName, version: 1, env: plan.env ?? {}, pools: plan.pools ?? {},
      ...(plan.concurrency ? { concurrency: plan.concurrency } : {}), ...(plan.context !== undefined ? { context: plan.context } : {}),
      ...(plan['max-cost-usd'] !== undefined ? { maxCostUsd: plan['max-cost-usd'] } : {}), ...(plan.base ? { base: plan.base } : {}) }),
    agents, steps, order: order.order,
  };
}

// Pairwise, so bounded: past that many writers the scheduler still serialises them, unannounced.
const OVERLAP_CHECK_MAX = 400;

/** Warns where two steps that may run at once write overlapping paths (they will run one after the other). */
function warnOverlaps(steps: ReadonlyMap<string, GraphStep>, ancestors: ReadonlyMap<string, Set<string>>, locate: Locate, report: Report): void {
  const writers = [...steps.values()].filter((s) => s.writes.length > 0);
  if (writers.length > OVERLAP_CHECK_MAX) return;
  for (let i = 0; i < writers.length; i++) {
    for (let j = i + 1; j < writers.length; j++) {
      const a = writers[i]!, b = writers[j]!;
      if (ancestors.get(a.id)!.has(b.id) || ancestors.get(b.id)!.has(a.id)) continue;
      const pair = writeSetsOverlap(a.writes, b.writes);
      if (!pair) continue;
      const where = ['steps', b.matrix?.group ?? b.id, 'writes'];
      report(locate(where), `${a.id} and ${b.id} both write ${pair[0] === pair[1] ? pair[0] : `${pair[0]} / ${pair[1]}`}; they will run one after the other`, 'write-overlap', 'warning');
    }
  }
}

function splitCommand(c: string | readonly string[]): string[] | undefined {
  if (typeof c !== 'string') return [...c];
  const parts = shellParse(c, (k) => `$${k}`);
  return parts.every((p) => typeof p === 'string') ? (parts as string[]) : undefined;
}

function combinations(matrix: StepDoc['matrix']): Array<Record<string, string> | undefined> {
  if (!matrix) return [undefined];
  let acc: Array<Record<string, string>> = [{}];
  for (const [k, vals] of Object.entries(matrix)) acc = acc.flatMap((a) => vals.map((v) => ({ ...a, [k]: String(v) })));
  return acc;
}

function topoOrder(ids: string[], needs: Map<string, string[]>): { ok: true; order: string[] } | { ok: false; cycle: string[] } {
  const state = new Map<string, 0 | 1 | 2>();
  const order: string[] = [];
  const stack: string[] = [];
  let cycle: string[] | undefined;
  const visit = (id: string): void => {
    if (cycle) return;
    const s = state.get(id);
    if (s === 2) return;
    // Found along `needs`; named in run order (what runs first comes first).
    if (s === 1) { cycle = [...stack.slice(stack.indexOf(id)), id].reverse(); return; }
    state.set(id, 1); stack.push(id);
    for (const n of needs.get(id) ?? []) visit(n);
    stack.pop(); state.set(id, 2); order.push(id);
  };
  for (const id of ids) visit(id);
  return cycle ? { ok: false, cycle } : { ok: true, order };
}
