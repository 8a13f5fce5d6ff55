// `braid run`, `braid retry` and `braid resolve`: one run of a plan (or of a recorded run's steps
// again), with the human view or --json events, canceled by a signal; `--dry-run` is dryRun.ts.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_PERMISSIONS, type AgentPermission } from '../../core/agents/permission';
import type { RunOutcome } from '../../core/engine/runPlan';
import type { Selection } from '../../core/engine/scheduling/selection';
import type { EngineEvent } from '../../core/engine/types';
import { formatDiagnostic } from '../../core/format';
import type { CompileOptions } from '../../core/plan/compile';
import type { StepStatus } from '../../core/status';
import { err, out } from '../output';
import { Usage } from '../usage';
import type { HumanView } from '../view';
import { isFoundGitTop, workspaceForCwd, workspaceForPlanAsync } from '../workspace';
import { dryRun } from './dryRun';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const isPermission = (v: string): v is AgentPermission => (AGENT_PERMISSIONS as readonly string[]).includes(v);

async function finish(outcome: RunOutcome, json: boolean, view?: HumanView, retried = false): Promise<number> {
  if (!outcome.ok) {
    if (outcome.usage) {
      err(`braid: ${outcome.usage}\n`);
      return outcome.busy || outcome.refused ? 1 : 2;
    }
    for (const d of outcome.diagnostics) err(`${formatDiagnostic(d)}\n`);
    return 2;
  }
  if (!json) {
    view?.summary(outcome.result, outcome.record);
    // A retry's run holds every step as its own (a conflict it kept fails it): the report covers them all.
    out(
      await (
        await import('../failureReport')
      ).failureReport(outcome.record, new Set(retried ? Object.keys(outcome.record.steps) : outcome.ran)),
    );
  }
  if (outcome.result.status === 'canceled') return 130;
  return outcome.result.status === 'succeeded' ? 0 : 1;
}

export async function run(args: string[], retry = false, resolving = false): Promise<number> {
  const { values, positionals: given } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      concurrency: { type: 'string' },
      only: { type: 'string', multiple: true },
      from: { type: 'string' },
      json: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      workspace: { type: 'string' },
      resume: { type: 'boolean', default: false },
      permission: { type: 'string' },
      last: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      agent: { type: 'string' },
      'max-cost-usd': { type: 'string' },
      otel: { type: 'boolean', default: false },
    },
  });
  if (values.agent !== undefined && !resolving) throw new Usage('--agent is for resolve');
  let maxCostUsd: number | undefined;
  if (values['max-cost-usd'] !== undefined) {
    maxCostUsd = Number(values['max-cost-usd']);
    if (!Number.isFinite(maxCostUsd) || maxCostUsd < 0 || values['max-cost-usd'].trim() === '')
      throw new Usage(`--max-cost-usd must be an amount in US dollars ≥ 0, got ${values['max-cost-usd']}`);
  }
  const permission = values.permission;
  if (permission !== undefined && !isPermission(permission)) {
    throw new Usage(`--permission must be one of ${AGENT_PERMISSIONS.join(', ')}, got ${permission}`);
  }
  // One plan checked once: zod's interpreter (CompileOptions.jitless).
  const compile: CompileOptions = { isGit: true, jitless: true, ...(permission ? { permission } : {}) };
  // `retry RUN-ID [STEP...]`: the run id is the first positional, wherever the options stand.
  if (values.last && !retry) throw new Usage('--last is for retry');
  if (values.fresh && (retry || !values.only))
    throw new Usage('--fresh goes with --only (a whole run, --from and retry never reuse)');
  // A new run starts git (its workspace), the launchers and the watchdog first: their processes
  // start up while the engine's modules initialise and the plan is checked.
  const early = retry ? undefined : await startEarly(given, values.workspace, values['dry-run']);
  const { RunStore } = await import('../../core/engine/records/runStore');
  const latest = values.last ? (await new RunStore(workspaceForCwd(values.workspace)).latest())?.id : undefined;
  if (values.last && !latest) {
    err('braid: no runs here\n');
    return 1;
  }
  const retryId = retry ? (latest ?? given[0]) : undefined;
  const positionals = retry && !latest ? given.slice(1) : given;
  if (retry && !retryId) throw new Usage('retry needs a RUN-ID (or --last)');
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Usage(`--concurrency must be an integer ≥ 1, got ${values.concurrency}`);
  }
  let planFile: string;
  let workspace: string;
  let steps: string[] = [];
  if (retryId) {
    workspace = workspaceForCwd(values.workspace);
    const rec = await new RunStore(workspace).load(retryId);
    if (!rec) {
      err(`braid: unknown run ${retryId}\n`);
      return 1;
    }
    planFile = rec.planFile;
    steps = positionals;
    if (resolving && steps.length !== 1) throw new Usage('resolve needs a RUN-ID and one STEP');
  } else {
    if (positionals.length !== 1) throw new Usage('run needs exactly one FILE');
    planFile = resolve(positionals[0]!);
    [workspace] = await Promise.all([early!.workspace.then(unsettled), import('../../core/engine/runPlan')]);
  }
  // --only accepts `--only a b c` as well as repeated flags.
  const only = values.only ? [...values.only, ...(retryId ? [] : [])] : undefined;
  if (values['dry-run']) {
    const selection: Selection = retryId
      ? { retry: { previous: await retryStatuses(workspace, retryId), ...(steps.length > 0 ? { steps } : {}) } }
      : { ...(only ? { only } : {}), ...(values.from ? { from: values.from } : {}) };
    return dryRun(planFile, workspace, values.json, compile, selection, values.fresh);
  }
  const [{ runPlan }, { killGuardedNow }, { HumanView }, { JsonEventWriter }, { runWatchers }] = await Promise.all([
    import('../../core/engine/runPlan'),
    import('../../core/exec/watchdog'),
    import('../view'),
    import('../jsonEvents'),
    import('../runWatchers'),
  ]);
  const json = values.json;
  const fancy = !json && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const view = json ? undefined : new HumanView(process.stdout, fancy);
  const ac = new AbortController();
  let interrupted = false;
  // HUP (the terminal closed, SSH dropped) cancels as INT does. A second signal skips the steps'
  // grace, not their end: every group is KILLed before the exit.
  const onSignal = () => {
    if (interrupted) {
      killGuardedNow();
      process.exit(130);
    }
    interrupted = true;
    err('\nbraid: canceling… (again to stop at once)\n');
    ac.abort();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  // A slow reader of --json costs dropped output events (counted), never unbounded memory.
  const events = json ? new JsonEventWriter(process.stdout) : undefined;
  const onEvent = (e: EngineEvent) => (events ? process.stdout.destroyed || events.write(e) : view!.on(e));
  const notice = (m: string) => err(`braid: ${m}\n`);
  const outcome = await runPlan({
    planFile,
    workspace,
    signal: ac.signal,
    onEvent,
    compile,
    ...(isFoundGitTop(workspace) ? { gitTop: true } : {}),
    onWarning: (d) => err(`${formatDiagnostic(d)}\n`),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(only ? { only } : {}),
    ...(values.from ? { from: values.from } : {}),
    ...(values.fresh ? { fresh: true } : {}),
    ...(retryId ? { retry: { runId: retryId, steps }, resume: values.resume } : {}),
    ...(resolving
      ? { resolve: { step: steps[0]!, ...(values.agent !== undefined ? { agent: values.agent } : {}) } }
      : {}),
    // Traces (with an OTLP endpoint) and the plan's webhooks; what fails there is said, never fatal.
    observers: runWatchers(process.env, { otel: { enabled: values.otel } }, notice),
    onNotice: notice,
    // No onBudget: at the plan's max-cost-usd the CLI stops (running steps finish, the rest are canceled).
    ...(early?.launchers ? { launchers: early.launchers } : {}),
  }).finally(() => early?.launchers?.close());
  for (const s of SIGNALS) process.off(s, onSignal);
  const code = await finish(outcome, json, view, retryId !== undefined);
  return interrupted ? 130 : code;
}

/**
 * What a new run starts before it loads the engine: `git rev-parse` for its workspace, and (unless
 * --dry-run) the resident launcher its steps start from and the watchdog, as runPlan.ts would start
 * them before the first step. The run takes the pool as a caller's (growing it to its need); the
 * command closes it. A usage error found later leaves them to end with this process.
 */
async function startEarly(given: readonly string[], override: string | undefined, dry: boolean) {
  const workspace = settled(
    given.length === 1 ? workspaceForPlanAsync(resolve(given[0]!), override) : Promise.resolve(''),
  );
  if (dry) return { workspace, launchers: undefined };
  const [{ LauncherPool }, { startWatchdog }] = await Promise.all([
    import('../../core/exec/launcher'),
    import('../../core/exec/watchdog'),
  ]);
  const launchers = LauncherPool.create(1, { ...process.env });
  startWatchdog();
  return { workspace, launchers };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** A promise awaited later, whose rejection (a WorkspaceError) is not unhandled if a usage error comes first. */
const settled = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
const unsettled = <T>(s: Settled<T>): T => {
  if (!s.ok) throw s.error;
  return s.value;
};

async function retryStatuses(workspace: string, runId: string): Promise<Map<string, StepStatus>> {
  const { RunStore } = await import('../../core/engine/records/runStore');
  const rec = await new RunStore(workspace).load(runId);
  return new Map(Object.values(rec?.steps ?? {}).map((s) => [s.id, s.status] as const));
}
