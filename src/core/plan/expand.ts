// From the checked document to concrete steps: defaults merged in, matrix steps fanned out, path
// fields given their matrix values, and `needs` resolved to concrete ids. Problems found on the
// way are returned as data for the checks to locate; nothing here decides what is an error.
import picomatch from 'picomatch';
import { DEFAULT_AGENT } from '../agents/presets';
import { type AgentPermission } from '../agents/permission';
import { compileGlob } from '../paths/glob';
import { agentTable, type AgentOverrides, type AgentTable } from './agentTable';
import { ownValue } from './dict';
import { STEP_ID, type StepDoc } from './schema';
import { classifyRef, parseTemplates } from '../templates';
import type { CheckedPlan } from './schemaCheck';
import type { Isolation, StepKind } from './types';

// A matrix is a fan-out, not a generator: past this a typo (one list pasted into another) is likelier than intent.
export const MAX_MATRIX_STEPS = 10_000;
// The whole expanded plan, however it is spelled: YAML aliases can share one matrix among many
// steps (a 1.7 KB plan made 1,000,000 steps and 1.8 GB). Checked before anything is expanded.
export const MAX_PLAN_STEPS = 10_000;
// Dependencies after expansion (a matrix needing a matrix multiplies), and the id comparisons
// `needs` globs may cost; both far above what a 10,000-step plan written by hand reaches.
export const MAX_PLAN_EDGES = 200_000;
const MAX_GLOB_WORK = 20_000_000;

export interface ExpandOptions {
  readonly isGit?: boolean;
  readonly defaultIsolation?: Isolation;
  readonly agentOverrides?: AgentOverrides;
  readonly permission?: AgentPermission;
}

/** One concrete step before the graph is built. */
export interface Instance {
  readonly id: string;
  /** The step key it came from (its matrix group, or itself). */
  readonly group: string;
  /** Position in file order. */
  readonly index: number;
  readonly kind: StepKind;
  /** The step's own fields, to tell them from the defaults'. */
  readonly own: StepDoc;
  /** Defaults, then the step's own fields (env maps merged). */
  readonly merged: StepDoc;
  readonly values?: Readonly<Record<string, string>>;
  readonly mapping: boolean;
  /** The keys the step was written with (see CheckedStep). */
  readonly present: ReadonlySet<string>;
  /** Path fields with `${{ matrix.* }}` and `${{ plan.name }}` substituted. */
  readonly name: string;
  readonly writes: readonly string[];
  readonly reads: readonly string[];
  readonly copy: readonly string[];
  readonly symlink: readonly string[];
  readonly sparse: readonly string[];
  readonly cwd?: string;
  readonly output?: string;
  readonly agent?: string;
  /** `model` with its matrix values (a matrix may compare models). */
  readonly model?: string;
  /** Each entry of `alternatives`: its `model`, with its matrix values, as `model` is. */
  readonly alternativeModels?: readonly (string | undefined)[];
  readonly isolation: Isolation;
}

export interface Oversized {
  readonly group: string;
  readonly count: number;
  readonly limit: 'matrix' | 'plan';
  readonly before: number;
}

export interface NeedProblem {
  readonly group: string;
  /** The entry's position in the step's `needs` list. */
  readonly index: number;
  readonly entry: string;
  readonly kind: 'unknown' | 'self' | 'no-match' | 'bad-glob' | 'too-many';
  /** Why the glob cannot be used (kind `bad-glob`). */
  readonly reason?: string;
}

export interface PlanModel {
  readonly planName: string;
  readonly checked: CheckedPlan;
  readonly table: AgentTable;
  /** Every instance in file order (duplicates included). */
  readonly instances: readonly Instance[];
  /** The first instance of each id. */
  readonly byId: ReadonlyMap<string, Instance>;
  /** Step key → the ids it expanded to. */
  readonly groups: ReadonlyMap<string, readonly string[]>;
  readonly duplicates: readonly { readonly id: string; readonly groups: readonly string[] }[];
  /**
   * Steps not expanded: a matrix of more than MAX_MATRIX_STEPS steps (`matrix`), or one that would
   * take the plan past MAX_PLAN_STEPS (`plan`, with the steps before it in `before`).
   */
  readonly oversized: readonly Oversized[];
  /** Instance id → the ids it needs, sorted, without unknown entries or itself. */
  readonly needs: ReadonlyMap<string, readonly string[]>;
  readonly needProblems: readonly NeedProblem[];
}

/** Id-safe form of a matrix value: characters outside [A-Za-z0-9_-] become `-`. */
export const idPart = (value: string): string => value.replace(/[^A-Za-z0-9_-]/g, '-');

/**
 * Longest instance id. An id names files (logs, outputs) and worktree branches, and a long matrix
 * value made one too long for a file name (ENAMETOOLONG when the step ran); past this the id keeps
 * its start and ends in a short hash of the values, so it stays unique and the plan still runs.
 */
export const MAX_INSTANCE_ID = 100;

/** A matrix instance's id: the step key and its values, bounded to MAX_INSTANCE_ID. */
export function instanceId(group: string, values: readonly string[]): string {
  const full = [group, ...values.map(idPart)].join('-');
  if (full.length <= MAX_INSTANCE_ID) return full;
  // Loaded here, the one place it is used (rarely): node:crypto is ~1.5 ms of `braid validate`'s start.
  const hash = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(JSON.stringify(values))
    .digest('hex')
    .slice(0, 8);
  return `${full.slice(0, MAX_INSTANCE_ID - hash.length - 1)}-${hash}`;
}

/** Replaces `${{ matrix.<key> }}` (when the key exists) and `${{ plan.name }}`; other templates stay. */
export function substitutePath(
  text: string,
  values: Readonly<Record<string, string>> | undefined,
  planName: string,
): string {
  const { refs } = parseTemplates(text);
  if (refs.length === 0) return text;
  let out = '';
  let at = 0;
  for (const ref of refs) {
    const c = classifyRef(ref.path);
    const value =
      c?.kind === 'plan-name'
        ? planName
        : c?.kind === 'matrix' && c.key !== undefined
          ? ownValue(values, c.key)
          : undefined;
    out += text.slice(at, ref.start) + (value ?? text.slice(ref.start, ref.end));
    at = ref.end;
  }
  return out + text.slice(at);
}

/** Built-in default, then the `defaultIsolation` setting, then the plan's value; worktrees need git. */
export function resolveIsolation(kind: StepKind, planValue: Isolation | undefined, opts: ExpandOptions): Isolation {
  if (planValue !== undefined) return planValue;
  const wanted = opts.defaultIsolation ?? (kind === 'prompt' && opts.isGit ? 'worktree' : 'shared');
  // A setting cannot make a step fail validation: outside git it falls back to the workspace.
  return wanted === 'worktree' && !opts.isGit ? 'shared' : wanted;
}

/** Whether the step races alternatives (`best-of` or `alternatives`). */
export const isBestOf = (own: StepDoc): boolean => own['best-of'] !== undefined || own.alternatives !== undefined;

function combinations(matrix: Readonly<Record<string, readonly string[]>>): Record<string, string>[] {
  let acc: Record<string, string>[] = [{}];
  for (const [k, vals] of Object.entries(matrix)) acc = acc.flatMap((a) => vals.map((v) => ({ ...a, [k]: v })));
  return acc;
}

const matrixSize = (matrix: Readonly<Record<string, readonly string[]>>): number =>
  Object.values(matrix).reduce((n, vals) => n * vals.length, 1);

/** Expands the checked plan into concrete steps and resolves their needs. */
export function modelPlan(checked: CheckedPlan, planName: string, opts: ExpandOptions = {}): PlanModel {
  const table = agentTable(checked.agents, {
    ...(opts.agentOverrides ? { overrides: opts.agentOverrides } : {}),
    ...(opts.permission ? { permission: opts.permission } : {}),
  });
  const defaults = checked.defaults;
  const instances: Instance[] = [];
  const groups = new Map<string, string[]>();
  const oversized: Oversized[] = [];
  let total = 0;
  for (const step of checked.steps) {
    const own = step.doc;
    const merged: StepDoc = { ...defaults, ...own };
    if (defaults.env && own.env) merged.env = { ...defaults.env, ...own.env };
    // A malformed `prompt` (already reported) still makes an agent step, so no check mistakes it for `run`.
    const kind: StepKind =
      own.prompt !== undefined || (own.run === undefined && step.present.has('prompt')) ? 'prompt' : 'run';
    const count = own.matrix ? matrixSize(own.matrix) : 1;
    const limit = count > MAX_MATRIX_STEPS ? 'matrix' : total + count > MAX_PLAN_STEPS ? 'plan' : undefined;
    if (limit) {
      oversized.push({ group: step.id, count, limit, before: total });
      groups.set(step.id, []);
      continue;
    }
    total += count;
    const combos = own.matrix ? combinations(own.matrix) : [undefined];
    const ids: string[] = [];
    for (const values of combos) {
      const id = values ? instanceId(step.id, Object.values(values)) : step.id;
      const sub = (s: string) => substitutePath(s, values, planName);
      ids.push(id);
      instances.push({
        id,
        group: step.id,
        index: instances.length,
        kind,
        own,
        merged,
        mapping: step.mapping,
        present: step.present,
        name: sub(merged.name ?? id),
        writes: (merged.writes ?? []).map(sub),
        reads: (merged.reads ?? []).map(sub),
        copy: (merged.copy ?? []).map(sub),
        symlink: (merged.symlink ?? []).map(sub),
        sparse: (merged.sparse ?? []).map(sub),
        // Alternatives each need a worktree of their own: best-of makes one the default in git.
        isolation: resolveIsolation(
          kind,
          merged.isolation,
          isBestOf(own) && opts.isGit ? { ...opts, defaultIsolation: 'worktree' } : opts,
        ),
        ...(values ? { values } : {}),
        ...(merged.cwd !== undefined ? { cwd: sub(merged.cwd) } : {}),
        ...(merged.output !== undefined ? { output: sub(merged.output) } : {}),
        ...(merged.model !== undefined ? { model: sub(merged.model) } : {}),
        ...(own.alternatives
          ? { alternativeModels: own.alternatives.map((a) => (a.model === undefined ? undefined : sub(a.model))) }
          : {}),
        ...(kind === 'prompt' ? { agent: merged.agent ?? DEFAULT_AGENT } : {}),
      });
    }
    groups.set(step.id, ids);
  }
  const byId = new Map<string, Instance>();
  const dupGroups = new Map<string, Set<string>>();
  for (const inst of instances) {
    const first = byId.get(inst.id);
    if (!first) byId.set(inst.id, inst);
    else dupGroups.set(inst.id, (dupGroups.get(inst.id) ?? new Set([first.group])).add(inst.group));
  }
  const duplicates = [...dupGroups].map(([id, gs]) => ({ id, groups: [...gs] }));
  const { needs, problems } = resolveNeeds(checked, groups, byId);
  return { planName, checked, table, instances, byId, groups, duplicates, oversized, needs, needProblems: problems };
}

function resolveNeeds(
  checked: CheckedPlan,
  groups: ReadonlyMap<string, readonly string[]>,
  byId: ReadonlyMap<string, Instance>,
): { needs: Map<string, string[]>; problems: NeedProblem[] } {
  const allIds = [...byId.keys()];
  const globCache = new Map<string, string[] | string>();
  const globMatches = (pattern: string): string[] | string => {
    let hit = globCache.get(pattern);
    if (hit === undefined) {
      const glob = compileGlob(pattern);
      hit = 'error' in glob ? glob.error : allIds.filter((id) => glob.match(id));
      globCache.set(pattern, hit);
    }
    return hit;
  };
  const needs = new Map<string, string[]>();
  const problems: NeedProblem[] = [];
  let edges = 0;
  let globWork = 0;
  let over = false;
  for (const step of checked.steps) {
    const own = new Set(groups.get(step.id) ?? []);
    const out = new Set<string>();
    (step.doc.needs ?? []).forEach((entry, index) => {
      if (over) return;
      let matched: readonly string[];
      let glob = false;
      if (groups.has(entry)) matched = groups.get(entry) ?? [];
      else if (byId.has(entry)) matched = [entry];
      else if (!STEP_ID.test(entry) && picomatch.scan(entry).isGlob) {
        if (!globCache.has(entry)) globWork += allIds.length * entry.length;
        if (globWork > MAX_GLOB_WORK) {
          over = true;
          problems.push({ group: step.id, index, entry, kind: 'too-many' });
          return;
        }
        const hit = globMatches(entry);
        if (typeof hit === 'string') {
          problems.push({ group: step.id, index, entry, kind: 'bad-glob', reason: hit });
          return;
        }
        glob = true;
        matched = hit;
      } else {
        problems.push({ group: step.id, index, entry, kind: 'unknown' });
        return;
      }
      // A glob such as `review-*` in `review-all` means the others; naming oneself outright is a mistake.
      const others = matched.filter((id) => !own.has(id));
      if (!glob && (entry === step.id || others.length < matched.length))
        problems.push({ group: step.id, index, entry, kind: 'self' });
      else if (glob && others.length === 0) problems.push({ group: step.id, index, entry, kind: 'no-match' });
      // Each instance of the step needs each of these: the edges the graph will hold.
      edges += own.size * others.length;
      if (edges > MAX_PLAN_EDGES) {
        over = true;
        problems.push({ group: step.id, index, entry, kind: 'too-many' });
        return;
      }
      for (const id of others) out.add(id);
    });
    const sorted = [...out].sort();
    for (const id of own) needs.set(id, sorted);
  }
  return { needs, problems };
}
