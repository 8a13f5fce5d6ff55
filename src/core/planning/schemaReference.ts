// The exact keys and value types of a plan, read from the JSON schema the zod schema produces, so
// the reference a planning agent gets can never drift from what validation accepts.
import { planJsonSchema } from '../plan/compile';

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const props = (s: unknown): Json => (isObj(s) && isObj(s.properties) ? s.properties : {});
const required = (s: unknown): readonly unknown[] => (isObj(s) && Array.isArray(s.required) ? s.required : []);
// `Number.MAX_SAFE_INTEGER` is how zod spells "no maximum".
const bound = (v: unknown): v is number => typeof v === 'number' && v < Number.MAX_SAFE_INTEGER;

/** A short type for one JSON schema node: `string | list of strings`, `shared | worktree`, `integer 0–10`. */
export function describeType(s: unknown): string {
  if (!isObj(s)) return 'any';
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(String).join(' | ');
  if (Array.isArray(s.anyOf)) return s.anyOf.map(describeType).join(' | ');
  const type = s.type;
  if (Array.isArray(type)) return (type as unknown[]).map((t) => describeType({ type: t })).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'integer': {
      const name = type === 'integer' ? 'integer' : 'number';
      const lo = s.minimum;
      const hi = s.maximum;
      if (bound(lo) && bound(hi)) return `${name} ${lo}–${hi}`;
      return bound(lo) ? `${name} ≥ ${lo}` : name;
    }
    case 'array':
      return `list of ${plural(describeType(s.items))}`;
    case 'object':
      if (isObj(s.properties)) return 'mapping (keys below)';
      return `map of name → ${describeType(s.additionalProperties)}`;
    default:
      return 'any';
  }
}

const plural = (t: string): string => (/^(string|number|integer|boolean)$/.test(t) ? `${t}s` : t);

function section(
  title: string,
  schema: unknown,
  describe: (key: string, s: unknown) => string = (_k, s) => describeType(s),
): string[] {
  const req = required(schema);
  const lines = [title];
  for (const [key, s] of Object.entries(props(schema)))
    lines.push(`  ${key}: ${describe(key, s)}${req.includes(key) ? ' (required)' : ''}`);
  return lines;
}

/** Every key a plan may hold, by level, with its type: generated from planJsonSchema(). */
export function schemaReference(schema: Json = planJsonSchema()): string {
  const top = props(schema);
  const step = isObj(top.steps) ? top.steps.additionalProperties : undefined;
  const agent = isObj(top.agents) ? top.agents.additionalProperties : undefined;
  const topLine = (key: string, s: unknown): string => {
    if (key === 'steps') return 'map of step id → step (keys below)';
    if (key === 'agents') return 'map of agent name → agent (keys below)';
    if (key === 'defaults') return 'mapping of step keys (all below except needs, matrix, run, prompt)';
    return describeType(s);
  };
  return [
    ...section('Top-level keys:', schema, topLine),
    ...section('Step keys (steps.<id>):', step, (key, s) =>
      key === 'matrix' ? 'map of key → list of values' : describeType(s),
    ),
    ...section('Agent keys (agents.<name>):', agent),
  ].join('\n');
}

/** The key names at each level, for tests and for callers that want a plain list. */
export function schemaKeys(schema: Json = planJsonSchema()): { top: string[]; step: string[]; agent: string[] } {
  const top = props(schema);
  return {
    top: Object.keys(top),
    step: Object.keys(props(isObj(top.steps) ? top.steps.additionalProperties : undefined)),
    agent: Object.keys(props(isObj(top.agents) ? top.agents.additionalProperties : undefined)),
  };
}
