// The plan document as plan-format.md lists it: one zod schema gives the types, the runtime check
// and the editors' JSON schema. Values come out normalised (lists always lists, durations in ms,
// agent commands as argv), so later phases never re-interpret the user's spelling.
import { z } from 'zod';
import { AGENT_PERMISSIONS } from '../agents/permission';
import { parseDuration } from './duration';
import { splitCommand } from './splitCommand';

export const STEP_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const SUPPORTED_VERSIONS = [1] as const;
// Matrix keys are template segments (`${{ matrix.<key> }}`).
const MATRIX_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const ENV_NAME = /^[^=\0]+$/;

/** A short rendering of a received value for messages: `"x"`, `3`, `a list`, `a mapping`. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return String(v);
}

const got = (iss: { input?: unknown }): string => `, got ${describeValue(iss.input)}`;

export const DURATION_HINT = 'expected a duration like 90s, 20m, 1h30m (or a number of seconds)';
const duration = z.union([z.string(), z.number()], { error: (iss) => DURATION_HINT + got(iss) }).transform((v, ctx) => {
  const ms = parseDuration(v);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `${DURATION_HINT}, got ${describeValue(v)}`, input: v });
    return z.NEVER;
  }
  return ms;
});

const pathList = (what: string) =>
  z
    .union([z.string(), z.array(z.string())], { error: (iss) => `expected ${what} or a list of them${got(iss)}` })
    .transform((v) => (typeof v === 'string' ? [v] : v));

// YAML reads `PORT: 3000` as a number; an environment only holds strings, so scalars are accepted.
const envValue = z
  .union([z.string(), z.number(), z.boolean()], { error: (iss) => `expected a string${got(iss)}` })
  .transform(String);
const envMap = z.record(
  z.string().regex(ENV_NAME, { error: 'an environment name cannot be empty or hold `=`' }),
  envValue,
);

const intRange = (min: number, max?: number) => {
  const expect =
    max === undefined ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`;
  const base = z
    .number({ error: (iss) => expect + got(iss) })
    .int({ error: (iss) => expect + got(iss) })
    .min(min, { error: (iss) => expect + got(iss) });
  return max === undefined ? base : base.max(max, { error: (iss) => expect + got(iss) });
};
const cost = z
  .number({ error: (iss) => `expected an amount in US dollars${got(iss)}` })
  .nonnegative({ error: (iss) => `expected an amount ≥ 0${got(iss)}` });
const nonEmpty = (what: string) => z.string().min(1, { error: `${what} cannot be empty` });

/** What a worktree step does when its change cannot land (plan-format.md, `on-conflict`). */
export const ON_CONFLICT = ['resolve', 'rerun', 'stop'] as const;

/** Step fields that `defaults` may also set. */
export const STEP_FIELDS = {
  name: z.string(),
  agent: nonEmpty('an agent name'),
  cwd: z.string(),
  env: envMap,
  writes: pathList('a path or glob'),
  reads: pathList('a path or glob'),
  isolation: z.enum(['shared', 'worktree']),
  timeout: duration,
  'idle-timeout': duration,
  pool: nonEmpty('a pool name'),
  'max-cost-usd': cost,
  setup: z.string(),
  copy: pathList('a path or glob'),
  symlink: pathList('a path or glob'),
  sparse: z.array(z.string(), { error: (iss) => `expected a list of paths${got(iss)}` }),
  retries: intRange(0, 10),
  'retry-delay': duration,
  'continue-on-error': z.boolean(),
  review: z.boolean(),
  if: z.enum(['always', 'success', 'failure']),
  check: z.string(),
  output: z.string(),
  model: nonEmpty('a model name'),
  'max-turns': intRange(1),
  permission: z.enum(AGENT_PERMISSIONS, {
    error: (iss) => `expected one of ${AGENT_PERMISSIONS.join(', ')}${got(iss)}`,
  }),
  tools: z
    .union([z.string(), z.array(z.string())], { error: (iss) => `expected a tool name or a list of them${got(iss)}` })
    .transform((v) => (typeof v === 'string' ? [v] : v)),
  'retry-context': z.boolean(),
  'retry-resume': z.boolean(),
  sandbox: z.boolean(),
  'on-conflict': z.enum(ON_CONFLICT, { error: (iss) => `expected resolve, rerun or stop${got(iss)}` }),
  'resolve-attempts': intRange(1, 10),
};

const matrixValue = z
  .union([z.string(), z.number(), z.boolean()], { error: (iss) => `expected a string or number${got(iss)}` })
  .transform(String);

/** How a best-of step chooses among its alternatives (plan-format.md, "Best of N"). */
export const PICK_POLICIES = ['first', 'check', 'review'] as const;

/** The keys one `alternatives` entry takes; what it leaves out comes from the step. */
export const ALTERNATIVE_FIELDS = {
  agent: nonEmpty('an agent name'),
  model: nonEmpty('a model name'),
  prompt: z.string(),
  env: envMap,
};

/** Fields only a step itself may set (never `defaults`). */
export const STEP_ONLY_FIELDS = {
  needs: pathList('a step id or glob'),
  run: z.string(),
  prompt: z.string(),
  matrix: z
    .record(
      z
        .string()
        .regex(MATRIX_KEY, { error: 'a matrix key starts with a letter or _ and holds letters, digits, _ and -' }),
      z
        .array(matrixValue, { error: (iss) => `expected a list of values${got(iss)}` })
        .min(1, { error: 'a matrix key needs at least one value' }),
    )
    .refine((m) => Object.keys(m).length > 0, { error: 'a matrix needs at least one key' }),
  'best-of': intRange(2, 10),
  alternatives: z
    .array(z.strictObject(ALTERNATIVE_FIELDS).partial(), {
      error: (iss) => `expected a list of alternatives${got(iss)}`,
    })
    .min(2, { error: 'alternatives: expected from 2 to 10 entries' })
    .max(10, { error: 'alternatives: expected from 2 to 10 entries' }),
  pick: z.enum(PICK_POLICIES, { error: (iss) => `expected first, check or review${got(iss)}` }),
};

export const stepSchema = z.strictObject({ ...STEP_FIELDS, ...STEP_ONLY_FIELDS }).partial();
export const defaultsSchema = z.strictObject(STEP_FIELDS).partial();

const command = z
  .union([z.string(), z.array(z.string())], {
    error: (iss) => `expected an argv list or one command string${got(iss)}`,
  })
  .transform((v, ctx) => {
    const r = splitCommand(v);
    if ('error' in r) {
      ctx.addIssue({ code: 'custom', message: r.error, input: v });
      return z.NEVER;
    }
    return r.argv;
  });

/** The keys an `agents.<name>` entry takes. */
export const AGENT_FIELDS = {
  command,
  env: envMap.optional(),
  cwd: z.string().optional(),
  stdin: z
    .literal('prompt', { error: (iss) => `expected \`prompt\` (send the prompt on stdin)${got(iss)}` })
    .optional(),
  context: z.boolean().optional(),
  // How the command takes the prompt: `text` only where it never runs it (promptInput.ts).
  input: z
    .enum(['text', 'code'], {
      error: (iss) => `expected \`text\` (the command reads the prompt as text) or \`code\` (it may run it)${got(iss)}`,
    })
    .optional(),
  // Not in every agent's docs, but presets have one, so a custom agent can name its provider's.
  pool: nonEmpty('a pool name').optional(),
};
export const agentSchema = z.strictObject(AGENT_FIELDS);

/** Top-level keys of a plan. */
export const PLAN_FIELDS = {
  version: z.literal(1, {
    error: (iss) =>
      `unsupported version ${describeValue(iss.input)}; supported versions: ${SUPPORTED_VERSIONS.join(', ')}`,
  }),
  name: z.string().optional(),
  concurrency: intRange(1).optional(),
  context: z.string().optional(),
  env: envMap.optional(),
  defaults: defaultsSchema.optional(),
  agents: z.record(nonEmpty('an agent name'), agentSchema).optional(),
  // A pool is a cap (`openai: 3`) or a cap and a budget (`openai: { concurrency: 3, max-cost-usd: 5 }`).
  pools: z
    .record(
      z.string(),
      z.union([intRange(1), z.strictObject({ concurrency: intRange(1).optional(), 'max-cost-usd': cost.optional() })]),
    )
    .optional(),
  'max-cost-usd': cost.optional(),
  // USD per million tokens by model: what codex's and gemini's tokens (and any model's) cost; wins over the pinned prices.
  prices: z
    .record(nonEmpty('a model name'), z.strictObject({ input: cost, 'cached-input': cost.optional(), output: cost }))
    .optional(),
  // Webhooks told when the run ends or waits on someone (notify/): URLs, secrets as `${{ env.NAME }}`.
  notify: pathList('a webhook URL').optional(),
  base: nonEmpty('base').optional(),
  steps: z
    .record(
      z.string().regex(STEP_ID, {
        error: (iss) =>
          `step id ${describeValue(iss.input)} must start with a letter and hold only letters, digits, _ and - (at most 64)`,
      }),
      stepSchema,
    )
    .refine((s) => Object.keys(s).length > 0, { error: 'a plan needs at least one step' }),
};
export const planSchema = z.strictObject(PLAN_FIELDS);

export type PlanDoc = z.output<typeof planSchema>;
export type StepDoc = z.output<typeof stepSchema>;
export type DefaultsDoc = z.output<typeof defaultsSchema>;
export type AgentDoc = z.output<typeof agentSchema>;

/** The keys valid in the mapping at `path` (for "did you mean"); empty where any key goes. */
export function keysAt(path: readonly PropertyKey[]): string[] {
  if (path.length === 0) return Object.keys(PLAN_FIELDS);
  if (path.length === 1 && path[0] === 'defaults') return Object.keys(STEP_FIELDS);
  if (path.length === 2 && path[0] === 'steps') return [...Object.keys(STEP_FIELDS), ...Object.keys(STEP_ONLY_FIELDS)];
  if (path.length === 2 && path[0] === 'agents') return Object.keys(AGENT_FIELDS);
  if (path.length === 4 && path[0] === 'steps' && path[2] === 'alternatives') return Object.keys(ALTERNATIVE_FIELDS);
  return [];
}

/** The JSON schema of plan files (input shape), for editors' completion. */
export function planJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(planSchema, { io: 'input', unrepresentable: 'any' });
}
