// What the one plan schema (schema.ts) says about a key at a path, for completion and hover:
// which keys a mapping takes, their docs (keyDocs.ts: the format's own tables), and the fixed
// values a field accepts (enums, literals, booleans), read from the zod types themselves so a
// value added to the schema is offered without touching this file.
import { z } from 'zod';
import type { KeyDocs } from '../plan/keyDocs';
import { AGENT_FIELDS, keysAt, PLAN_FIELDS, STEP_FIELDS, STEP_ONLY_FIELDS } from '../plan/schema';

// The format documents agent keys in prose (plan-format.md, "Agents"); these say the same.
const AGENT_DOCS: Readonly<Record<string, string>> = {
  command:
    "the agent's argv: a list, or one string split shell-style (never passed to a shell); `${{ prompt }}` is the step's prompt (argv list or string)",
  env: 'environment added for this agent (map string→string)',
  cwd: "the directory the agent runs in, relative to the step's (path)",
  stdin: '`prompt` sends the prompt on stdin instead of in argv (`prompt`)',
  context:
    "prepend the plan's `context` to the prompt when the prompt does not use `${{ context }}`; default true (bool)",
  input:
    '`text`: the command reads the prompt as text, never runs it, so templates become their values; `code` (the default): it may run it, so templates stay `${BRAID_…}` references to its environment (`text`, `code`)',
  pool: "the pool this agent's steps count against by default (name)",
};

export type KeyScope = 'plan' | 'step' | 'defaults' | 'agent';

/** Which kind of mapping a key path points into, when the schema knows it. */
export function scopeOf(path: readonly string[]): KeyScope | undefined {
  if (path.length === 0) return 'plan';
  if (path.length === 1 && path[0] === 'defaults') return 'defaults';
  if (path.length === 2 && path[0] === 'steps') return 'step';
  if (path.length === 2 && path[0] === 'agents') return 'agent';
  return undefined;
}

/** The keys valid in the mapping at `path` (schema.ts decides). */
export function keysFor(path: readonly string[]): string[] {
  return keysAt(path);
}

/** The docs of `key` in the mapping at `path`, as markdown, if it is a known key. */
export function keyDoc(path: readonly string[], key: string, docs: KeyDocs): string | undefined {
  const scope = scopeOf(path);
  if (!scope || !keysFor(path).includes(key)) return undefined;
  const text = scope === 'plan' ? docs.plan.get(key) : scope === 'agent' ? AGENT_DOCS[key] : docs.step.get(key);
  return text ?? '';
}

const FIELDS: Record<KeyScope, Record<string, z.ZodType>> = {
  plan: PLAN_FIELDS,
  step: { ...STEP_FIELDS, ...STEP_ONLY_FIELDS },
  defaults: STEP_FIELDS,
  agent: AGENT_FIELDS,
};

/** The schema of `key` in the mapping at `path`. */
function fieldSchema(path: readonly string[], key: string): z.ZodType | undefined {
  const scope = scopeOf(path);
  return scope ? FIELDS[scope][key] : undefined;
}

/** The fixed values a field takes (`shared`/`worktree`, `true`/`false`, `1`), else none. */
export function fixedValues(path: readonly string[], key: string): string[] {
  let s: unknown = fieldSchema(path, key);
  for (let i = 0; i < 8 && s; i++) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
    else if (s instanceof z.ZodPipe) s = s.in;
    else break;
  }
  if (s instanceof z.ZodEnum) return s.options.map(String);
  if (s instanceof z.ZodLiteral) return [...s.values].map(String);
  if (s instanceof z.ZodBoolean) return ['true', 'false'];
  return [];
}

/** A one-word type for a key's completion detail: the doc's trailing `(type)`. */
export function typeOf(doc: string | undefined): string | undefined {
  const m = doc === undefined ? null : /\(([^()]*)\)$/.exec(doc);
  return m?.[1];
}
