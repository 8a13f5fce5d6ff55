// One plan step (or one matrix group) as one GitHub job: check out, merge the needs' work, set
// up the agent, run the command in a bounded retry loop, check, hand the work on as an artifact.
import type { AgentPermission } from '../agents/permission';
import { envNameFor } from '../templates';
import type { Graph, GraphStep } from '../plan/types';
import { agentCommand } from './agentCommand';
import { ACTIONS, type AgentSetup } from './agentInstall';
import { artifactName, artifactPattern, ghExpr, ghLiteral } from './ghText';
import type { JobPlan } from './jobs';
import { REVIEW_ENVIRONMENT } from './notes';
import { RefVars, hasTemplates, shellSource, shellWord } from './refVars';
import { HAND_ON_SCRIPT, MERGE_NEEDS_SCRIPT, commandScript, runScript } from './scripts';

export interface JobOptions {
  readonly graph: Graph;
  readonly permission: AgentPermission;
  /** strategy.max-parallel of matrix jobs: the closest GitHub has to the plan's cap. */
  readonly maxParallel?: number;
}

export interface BuiltJob {
  readonly job: Record<string, unknown>;
  readonly setups: readonly AgentSetup[];
  /** What this job could not map (for the header and stderr). */
  readonly notes: readonly string[];
}

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const IN_DIR = ghExpr('runner.temp') + '/braid-in';
const OUT_DIR = ghExpr('runner.temp') + '/braid-out';

const freeKey = (base: string, taken: ReadonlySet<string>): string => {
  let k = base;
  for (let n = 2; taken.has(k); n++) k = `${base}-${n}`;
  return k;
};

/** The value of one field for the job: the same in every instance, or a matrix key per instance. */
class PerInstance {
  readonly include: Record<string, string>[];
  private readonly keys: Set<string>;
  constructor(private readonly steps: readonly GraphStep[]) {
    this.keys = new Set(Object.keys(steps[0]!.matrix?.values ?? {}));
    this.include = steps.map((s) => {
      const entry: Record<string, string> = {};
      for (const [k, v] of Object.entries(s.matrix?.values ?? {})) entry[k] = ghLiteral(v);
      return entry;
    });
  }
  /** A literal when every instance agrees, else `${{ matrix.<key> }}` with the values in the include list. */
  field(base: string, value: (s: GraphStep) => string): string {
    const values = this.steps.map(value);
    if (values.every((v) => v === values[0])) return ghLiteral(values[0]!);
    const key = freeKey(base, this.keys);
    this.keys.add(key);
    values.forEach((v, i) => {
      this.include[i]![key] = ghLiteral(v);
    });
    return ghExpr(`matrix.${key}`);
  }
  get userKeys(): string[] {
    return Object.keys(this.steps[0]!.matrix?.values ?? {});
  }
}

/** Builds the job for `plan`. */
export function stepJob(plan: JobPlan, o: JobOptions): BuiltJob {
  const first = plan.steps[0]!;
  const notes: string[] = [];
  const vars = new RefVars();
  const per = new PerInstance(plan.steps);
  const jobEnv: Record<string, string> = {};
  // Lines before the command: the env exports (every command step), then the agent's prompt and env.
  const envSetup: string[] = [];
  const setup: string[] = [];

  const stepId = plan.matrix ? per.field('braid-id', (s) => s.id) : first.id;
  jobEnv.BRAID_STEP_ID = stepId;
  // A best-of step runs once there, as its first alternative (notes.ts says so).
  if (first.bestOf) jobEnv.BRAID_ALTERNATIVE = '1';
  for (const k of per.userKeys) jobEnv[envNameFor(['matrix', k])] = ghExpr(`matrix.${k}`);
  const artifact = plan.matrix ? `braid-${stepId}` : artifactName(first.id);

  // The plan's env with templates and the step's own env: literal values in the job's env,
  // templated ones rendered in the script (after the loads), in the order they are layered.
  const layered = new Map<string, string>();
  for (const [k, v] of Object.entries(o.graph.plan.env)) if (hasTemplates(v)) layered.set(k, v);
  for (const [k, v] of Object.entries(first.env)) {
    layered.delete(k);
    layered.set(k, v);
  }
  let n = 0;
  for (const [k, v] of layered) {
    if (!hasTemplates(v)) {
      jobEnv[k] = ghLiteral(v);
      continue;
    }
    if (!SHELL_NAME.test(k)) {
      notes.push(`${plan.id}: env ${JSON.stringify(k)} holds a template but is no shell name; not set`);
      continue;
    }
    envSetup.push(`export ${k}=${shellWord(v, `BRAID_ENV_${n++}`, vars, jobEnv)}`);
  }

  const runEnv: Record<string, string> = {};
  let command: string;
  const setups: AgentSetup[] = [];
  if (first.kind === 'run') {
    command = 'sh -c "$BRAID_RUN"';
    runEnv.BRAID_RUN = shellSource(first.run ?? '', vars, setup);
  } else {
    const agent = agentCommand(first, o.graph.agents[first.agent ?? '']!, o.graph.plan.context, o.permission, vars);
    command = agent.command;
    setup.push(...agent.setup);
    Object.assign(runEnv, agent.env);
    if (agent.install) setups.push(agent.install);
    notes.push(...agent.notes);
  }
  if (first.output !== undefined) runEnv.BRAID_OUTPUT_FILE = per.field('braid-output', (s) => s.output ?? '');
  if (first.timeoutMs !== undefined) runEnv.BRAID_TIMEOUT = `${Number((first.timeoutMs / 1000).toFixed(3))}s`;
  if (first.retries > 0) {
    runEnv.BRAID_RETRIES = String(first.retries);
    runEnv.BRAID_RETRY_DELAY_MS = String(Math.round(first.retryDelayMs));
  }
  const checkInside = first.check !== undefined && first.retries > 0;
  if (checkInside) runEnv.BRAID_CHECK_EACH = '1';
  const checkSetup: string[] = [];
  const checkEnv: Record<string, string> = {};
  if (first.check !== undefined) {
    const source = shellSource(first.check, vars, checkSetup);
    (checkInside ? runEnv : checkEnv).BRAID_CHECK = source;
  }
  const setupSetup: string[] = [];
  const setupSource = first.setup !== undefined ? shellSource(first.setup, vars, setupSetup) : undefined;
  const cwd = first.cwd !== undefined ? per.field('braid-cwd', (s) => s.cwd ?? '.') : undefined;
  const where = cwd !== undefined ? { 'working-directory': cwd } : {};

  const run = runScript(vars.loads, [...envSetup, ...setup, ...(checkInside ? checkSetup : [])], command);

  const steps: Record<string, unknown>[] = [{ uses: ACTIONS.checkout, with: { 'persist-credentials': false } }];
  const downloads = [...new Set([...plan.needSteps, ...vars.steps])];
  if (downloads.length > 0) {
    steps.push({
      name: "Download the needs' work",
      uses: ACTIONS.download,
      with: { pattern: artifactPattern(downloads.map(artifactName)), path: IN_DIR },
    });
  }
  if (plan.needSteps.length > 0) {
    steps.push({
      name: "Merge the needs' changes",
      env: { BRAID_NEEDS: plan.needSteps.map(artifactName).join(' ') },
      run: MERGE_NEEDS_SCRIPT,
    });
  }
  if (setupSource !== undefined) {
    steps.push({
      name: 'Set up',
      env: { BRAID_SETUP: setupSource },
      run: commandScript(vars.loads, [...envSetup, ...setupSetup], 'BRAID_SETUP'),
    });
  }
  for (const s of setups) steps.push(...s.steps);
  steps.push({
    name: first.kind === 'run' ? 'Run' : `Run ${first.agent}`,
    ...where,
    ...(first.timeoutMs !== undefined ? { 'timeout-minutes': timeoutMinutes(first) } : {}),
    env: runEnv,
    run,
  });
  if (first.check !== undefined && !checkInside) {
    steps.push({
      name: 'Check',
      ...where,
      env: checkEnv,
      run: commandScript(vars.loads, [...envSetup, ...checkSetup], 'BRAID_CHECK'),
    });
  }
  steps.push({ name: 'Hand the work on', if: 'always()', run: HAND_ON_SCRIPT });
  steps.push({
    name: 'Upload the work',
    if: 'always()',
    uses: ACTIONS.upload,
    with: { name: artifact, path: OUT_DIR, 'if-no-files-found': 'error' },
  });

  const job: Record<string, unknown> = {};
  const name = !plan.matrix
    ? ghLiteral(first.name)
    : plan.steps.every((s) => s.name === s.id)
      ? stepId
      : per.field('braid-name', (s) => s.name);
  if (name !== plan.id) job.name = name;
  job['runs-on'] = 'ubuntu-latest';
  if (plan.needs.length > 0) job.needs = [...plan.needs];
  if (first.if === 'always') job.if = 'always()';
  else if (first.if === 'failure') job.if = 'failure()';
  if (first.continueOnError) job['continue-on-error'] = true;
  // review: true waits for the environment's required reviewers (notes.ts says how to set them).
  if (first.review) job.environment = REVIEW_ENVIRONMENT;
  job.permissions = { contents: 'read' };
  if (plan.matrix) {
    job.strategy = {
      'fail-fast': false,
      ...(o.maxParallel !== undefined ? { 'max-parallel': o.maxParallel } : {}),
      matrix: { include: per.include },
    };
  }
  job.env = jobEnv;
  job.steps = steps;
  if (first.idleTimeoutMs !== undefined)
    notes.push(`${plan.id}: idle-timeout has no counterpart (its timeout still applies)`);
  if (first.copy.length > 0 || first.symlink.length > 0)
    notes.push(`${plan.id}: copy/symlink have no counterpart (untracked files are not in a checkout)`);
  if (first.sparse.length > 0) notes.push(`${plan.id}: sparse is not mapped (a full checkout)`);
  return { job, setups, notes };
}

/** The run step's limit: every attempt at its timeout (plus the kill grace) and the back-off between them. */
function timeoutMinutes(step: GraphStep): number {
  const attempts = step.retries + 1;
  const delays = step.retryDelayMs * (2 ** step.retries - 1) * 1.2;
  return Math.ceil((attempts * (step.timeoutMs! + 10_000) + delays) / 60_000);
}
