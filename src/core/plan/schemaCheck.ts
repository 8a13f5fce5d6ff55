// The schema phase: every zod issue becomes a located, readable diagnostic, and the parts of the
// document that are well-formed are kept (salvaged), so the graph checks can still look at every
// other step when one of them is broken.
import type { z } from 'zod';
import { hasOwnKey, ownValue } from './dict';
import { didYouMean, hint } from './didYouMean';
import type { LoadedPlan } from './load';
import { reporter } from './reporter';
import {
  AGENT_FIELDS,
  agentSchema,
  defaultsSchema,
  describeValue,
  DURATION_HINT,
  keysAt,
  PLAN_FIELDS,
  planSchema,
  STEP_FIELDS,
  STEP_ONLY_FIELDS,
  stepSchema,
  type AgentDoc,
  type DefaultsDoc,
  type PlanDoc,
  type StepDoc,
} from './schema';
import type { Diagnostic } from './types';

export interface CheckedStep {
  readonly id: string;
  /** The step's well-formed fields (all of them when the schema passed). */
  readonly doc: StepDoc;
  /** False when the step's value is not a mapping at all (already reported). */
  readonly mapping: boolean;
  /** The keys the step was written with, well-formed or not (so a bad `run` is not also "missing"). */
  readonly present: ReadonlySet<string>;
}

/** What the schema accepted: the whole document when `complete`, else the salvaged parts. */
export interface CheckedPlan {
  readonly complete: boolean;
  readonly top: Omit<Partial<PlanDoc>, 'steps' | 'agents' | 'defaults'>;
  readonly defaults: DefaultsDoc;
  /** Every agent the plan names; undefined where its definition is broken (already reported). */
  readonly agents: Readonly<Record<string, AgentDoc | undefined>>;
  readonly steps: readonly CheckedStep[];
  /** Agents whose `command` is written as a list (each element its own node), not one string. */
  readonly listCommands: ReadonlySet<string>;
}

type Issue = z.core.$ZodIssue;
type Shape = Record<string, z.ZodType>;

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  int: 'a whole number',
};

// Messages for the issues no schema gave its own words to.
const errorMap = (iss: z.core.$ZodRawIssue): string | undefined => {
  const got = `, got ${describeValue(iss.input)}`;
  switch (iss.code) {
    case 'invalid_type':
      return `expected ${ownValue(ARTICLE, iss.expected) ?? iss.expected}${got}`;
    case 'invalid_value':
      return iss.values.length === 1
        ? `expected ${JSON.stringify(iss.values[0])}${got}`
        : `expected one of ${iss.values.map((v) => String(v)).join(', ')}${got}`;
    case 'too_small':
      return iss.origin === 'array'
        ? `expected at least ${String(iss.minimum)} item(s)`
        : `expected at least ${String(iss.minimum)}${got}`;
    case 'too_big':
      return iss.origin === 'array'
        ? `expected at most ${String(iss.maximum)} item(s)`
        : `expected at most ${String(iss.maximum)}${got}`;
    default:
      return undefined;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const keysOf = (v: unknown): ReadonlySet<string> => new Set(isObject(v) ? Object.keys(v) : []);

const listCommands = (raw: Record<string, unknown>): ReadonlySet<string> =>
  new Set(
    isObject(raw.agents)
      ? Object.entries(raw.agents)
          .filter(([, a]) => Array.isArray(valueAt(a, ['command'])))
          .map(([n]) => n)
      : [],
  );

const valueAt = (root: unknown, path: readonly PropertyKey[]): unknown => {
  let v = root;
  for (const seg of path) v = isObject(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return v;
};

/** Runs the plan schema: located diagnostics for every issue, and what could be kept (`jitless`: CompileOptions'). */
export function checkSchema(lp: LoadedPlan, jitless = false): { plan: CheckedPlan; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const add = reporter(lp, diagnostics);
  const report = (path: readonly PropertyKey[], message: string, code: string, key = false) =>
    add(path, message, code, { key });

  const raw = lp.value;
  if (!isObject(raw)) {
    const message =
      raw === null || raw === undefined
        ? 'the plan is empty; expected a mapping with `version: 1` and `steps`'
        : `expected a mapping with \`version: 1\` and \`steps\`, got ${describeValue(raw)}`;
    report([], message, 'type');
    return {
      plan: { complete: false, top: {}, defaults: {}, agents: {}, steps: [], listCommands: new Set() },
      diagnostics,
    };
  }
  const parsed = planSchema.safeParse(raw, { error: errorMap, jitless });
  if (parsed.success) {
    const { steps, agents, defaults, ...top } = parsed.data;
    return {
      plan: {
        complete: true,
        top,
        defaults: defaults ?? {},
        agents: agents ?? {},
        steps: Object.entries(steps).map(([id, doc]) => ({
          id,
          doc,
          mapping: true,
          present: keysOf(valueAt(raw, ['steps', id])),
        })),
        listCommands: listCommands(raw),
      },
      diagnostics,
    };
  }
  const mapIssue = (issue: Issue, prefix: readonly PropertyKey[]): void => {
    const path = [...prefix, ...issue.path];
    // A required key that is absent fails its type or literal check; say it is missing instead.
    if (
      (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
      path.length > 0 &&
      valueAt(raw, path) === undefined
    ) {
      const key = String(path[path.length - 1]);
      report(path, `missing required key \`${key}\`${key === 'version' ? ' (add `version: 1`)' : ''}`, 'missing-key');
      return;
    }
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const k of issue.keys) {
          const h = hint(k, keysAt(path));
          const message = unknownKeyMessage(path, k);
          add([...path, k], message, 'unknown-key', { key: true, ...(message.endsWith(h.text) ? h.fix : {}) });
        }
        return;
      case 'invalid_union': {
        // A list with a bad element fails both `string` and `string[]`; the branch that got past
        // the top-level type says what is actually wrong.
        const deeper = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
        const [only] = deeper;
        if (deeper.length === 1 && only) for (const i of only) mapIssue(i, path);
        else report(path, issue.message, 'type');
        return;
      }
      case 'invalid_key': {
        report(path, issue.issues[0]?.message ?? issue.message, 'step-id', true);
        // zod skips the value of a bad key; check it anyway so its problems show now, not later.
        if (path.length === 2 && path[0] === 'steps') {
          const sub = stepSchema.safeParse(valueAt(raw, path), { error: errorMap, jitless });
          if (!sub.success) for (const i of sub.error.issues) mapIssue(i, path);
        }
        return;
      }
      default:
        report(path, issue.message, issue.message.startsWith(DURATION_HINT) ? 'duration' : 'type');
    }
  };
  for (const issue of parsed.error.issues) mapIssue(issue, []);
  return { plan: salvage(raw), diagnostics };
}

function unknownKeyMessage(path: readonly PropertyKey[], key: string): string {
  if (path.length === 1 && path[0] === 'defaults' && hasOwnKey(STEP_ONLY_FIELDS, key)) {
    return `\`${key}\` cannot be set in defaults, only in a step`;
  }
  if (path.length === 0 && hasOwnKey(STEP_FIELDS, key))
    return `unknown key \`${key}\`; step fields for every step go under \`defaults\``;
  return `unknown key \`${key}\`${didYouMean(key, keysAt(path))}`;
}

/** The fields of `raw` that parse on their own. */
function salvageFields(raw: unknown, shape: Shape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(raw)) return out;
  for (const [k, v] of Object.entries(raw)) {
    const field = ownValue(shape, k);
    if (!field || v === undefined) continue;
    const r = field.safeParse(v);
    if (r.success && r.data !== undefined) out[k] = r.data;
  }
  return out;
}

function salvage(raw: Record<string, unknown>): CheckedPlan {
  const { steps: _s, agents: _a, defaults: _d, ...topShape } = PLAN_FIELDS;
  const top = salvageFields(raw, topShape) as CheckedPlan['top'];
  const defaults = salvageFields(raw.defaults, defaultsSchema.shape) as DefaultsDoc;
  const agents: Record<string, AgentDoc | undefined> = {};
  if (isObject(raw.agents)) {
    for (const [name, a] of Object.entries(raw.agents)) {
      const whole = agentSchema.safeParse(a);
      if (whole.success) agents[name] = whole.data;
      else {
        const fields = salvageFields(a, AGENT_FIELDS);
        agents[name] = fields.command === undefined ? undefined : (fields as AgentDoc);
      }
    }
  }
  const steps: CheckedStep[] = [];
  if (isObject(raw.steps)) {
    for (const [id, s] of Object.entries(raw.steps)) {
      steps.push({ id, doc: salvageFields(s, stepSchema.shape), mapping: isObject(s), present: keysOf(s) });
    }
  }
  return { complete: false, top, defaults, agents, steps, listCommands: listCommands(raw) };
}
