// One run from start to record: compile, choose steps, schedule with the real executor, and keep
// run.json current at every state change. Shared by the CLI and the engine process.
import { hostname } from 'node:os';
import { compilePlanFile, type CompileOptions } from '../plan/compile';
import type { Diagnostic, Graph, GraphStep } from '../plan/types';
import type { BudgetsAsk } from './scheduling/budgets';
import type { PriceTable } from '../cost/prices';
import { StepExecutor, type Isolator } from './steps/executor';
import { LauncherPool } from '../exec/launcher';
import { pidAlive, SELF_START } from '../exec/pidAlive';
import { startWatchdog } from '../exec/watchdog';
import type { LockDirOptions } from './locks/lockDir';
import { lockingOnly } from './locks/lockGate';
import { sharedLocks } from './locks/sharedLocks';
import { historyWeight } from './scheduling/priority';
import { waitForPick } from './records/pickRequest';
import { RunRecorder } from './records/runRecorder';
import { Scheduler } from './scheduling/scheduler';
import { DEFAULT_CONCURRENCY, type LockGate, type RunResult } from './scheduling/schedulerOptions';
import { missingAgents } from './steps/missingAgents';
import { selectSteps, unknownSteps } from './scheduling/selection';
import { snapshotGraph } from './records/snapshot';
import { RunStore } from './records/runStore';
import type { RunRecord, StepRecord } from './records/runRecord';
import { claimRun } from './records/runClaim';
import { contentKeys } from './reuse/contentKey';
import { reusableNeeds, reusedEvent, reusedRecord, type ReusedStep } from './reuse/reusable';
import type { EngineEvent, PreviousAttempt } from './types';
import type { StepStatus } from '../status';
import { FAILURE_TAIL_CHARS, failureTail } from '../agents/retryPrompt';
import { lastAttemptOutput, readLogTail } from './records/stepLog';
import { pruneWorktrees } from './isolation/worktree';
import { isGitWorkspace } from './isolation/gitWorkspace';
import { WorktreeIsolator } from './isolation/worktreeIsolator';
import { Emitter } from '../emitter';
import { prepareAhead } from './isolation/prepareAhead';
import { openInbox, type Handled, type ReviewRequest, type StepOutcome } from './review/reviewInbox';
import { revertChange, wrongState } from './review/landRecorded';
import { landedChanges, resolveAnswer } from './review/resolveRequest';
import { Takeovers, type Takeover } from './steps/takeover';
import { openTakeoverInbox } from './steps/takeoverInbox';
import { recordSaid } from './records/said';
import { RunObservers, type RunObserverFactory } from './runObservers';
import { decidedAlready } from './review/reviewSteps';
import { claimDecision, decidedMessage, decisionKey } from './review/decisionClaim';

export interface RunRequest {
  readonly planFile: string;
  readonly workspace: string;
  readonly concurrency?: number;
  readonly only?: readonly string[];
  readonly from?: string;
  /**
   * With `only`: run the needs again too. Without it, a need whose content is what it succeeded
   * with the last time it ran here is reused, not run (reuse/reusable.ts); `from`, a whole run and
   * a retry never reuse.
   */
  readonly fresh?: boolean;
  /** Retry this run in place: its failed/canceled/skipped/interrupted steps (or `steps`) and what they block. */
  readonly retry?: { readonly runId: string; readonly steps?: readonly string[] };
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: EngineEvent) => void;
  /** The plan's warnings (overlapping writers, a template in single quotes), before anything runs. */
  readonly onWarning?: (warning: Diagnostic) => void;
  readonly compile?: CompileOptions;
  /** The caller found `workspace` to be a git top itself (the CLI does): no second `git rev-parse`. */
  readonly gitTop?: boolean;
  readonly graceMs?: number;
  /** Default: `sharedLocks` (this process's runs and, through `.braid/locks`, other processes). */
  readonly locks?: LockGate;
  /** Tuning of the default lock files (how often a wait re-checks for dead holders). */
  readonly lockFiles?: LockDirOptions;
  readonly isolator?: (graph: Graph, runId: string) => Isolator;
  /**
   * Called once the run record exists, with the scheduler (for cancelStep) and the record itself,
   * which the run keeps current in memory at every state change (before the change's event).
   */
  readonly onStart?: (runId: string, scheduler: Scheduler, graph: Graph, record: Readonly<RunRecord>) => void;
  /**
   * With `retry`: an agent step whose last attempt recorded a session, and whose agent can resume,
   * continues that session (with a "continue" prompt) instead of starting over. Default false.
   */
  readonly resume?: boolean;
  /**
   * The run's spending reached the plan's `max-cost-usd`: no new step starts until this answers.
   * `continue` allows one more budget's worth; `stop` (and the default, without it) cancels what
   * has not started, lets running steps finish, and ends the run `failed` with reason `budget`.
   */
  readonly onBudget?: BudgetsAsk;
  /** The run's budget, over the plan's `max-cost-usd` (`braid retry --max-cost-usd`: going on past a budget). */
  readonly maxCostUsd?: number;
  /** The user's own prices (the setting `braid.prices`): a plan's `prices:` win over them, they over the pinned table (cost/priceTable.ts). */
  readonly prices?: PriceTable;
  /**
   * With `retry` naming this one step: its first attempt resolves the conflict its last one ended
   * in (`braid resolve`): its agent (or `agent`) on its kept worktree, see resolveConflict.ts.
   */
  readonly resolve?: { readonly step: string; readonly agent?: string };
  /** Called once a step's process has spawned (benchmarks measure ready → spawned with it). */
  readonly onSpawn?: (stepId: string, pid: number, spawnMs: number) => void;
  /**
   * Warm launchers the caller keeps across runs (the engine process does), started with this
   * process's environment; without them the run makes and closes its own.
   */
  readonly launchers?: LauncherPool;
  /** With `retry` of one step: its attempt starts as this takeover (`braid attach` on an ended run). */
  readonly takeover?: { readonly step: string; readonly takeover: Takeover };
  /** Listeners made as the run starts (traces, webhooks), closed after its last event (runObservers.ts). */
  readonly observers?: readonly RunObserverFactory[];
  /** Something beside the run went wrong that the user should hear once (an observer's failure, a webhook refusing). */
  readonly onNotice?: (message: string) => void;
}

export type RunOutcome =
  /** `ran`: the steps this run selected (the others were kept from before, reused, or not selected); `reused`: needs reused from earlier runs. */
  | {
      readonly ok: true;
      readonly runId: string;
      readonly result: RunResult;
      readonly record: RunRecord;
      readonly ran: readonly string[];
      readonly reused: readonly string[];
    }
  /** `busy`: refused because another live process runs that run (`usage` says which). */
  | {
      readonly ok: false;
      readonly diagnostics: readonly Diagnostic[];
      readonly usage?: string;
      readonly busy?: true;
      readonly refused?: true;
    };

/** Runs a plan (or retries a run) to the end. Invalid plans, bad selections and missing agent CLIs are data. */
export async function runPlan(req: RunRequest): Promise<RunOutcome> {
  // Worktrees need the workspace to be a repository's top level (merge-back paths are relative to it).
  const isGit = (req.compile?.isGit ?? true) && (req.gitTop === true || (await isGitWorkspace(req.workspace)));
  const compiled = await compilePlanFile(req.planFile, { ...req.compile, isGit });
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
  if (!compiled.graph || errors.length > 0) return { ok: false, diagnostics: compiled.diagnostics };
  for (const d of compiled.diagnostics) if (d.severity === 'warning') req.onWarning?.(d);
  const graph = compiled.graph;
  const store = new RunStore(req.workspace);
  await store.markInterrupted();

  const named = [...(req.only ?? []), ...(req.from ? [req.from] : []), ...(req.retry?.steps ?? [])];
  const unknown = unknownSteps(graph, named);
  if (unknown.length > 0)
    return { ok: false, diagnostics: [], usage: `unknown step${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` };

  let previous: RunRecord | undefined;
  if (req.retry) {
    previous = await store.load(req.retry.runId);
    if (!previous) return { ok: false, diagnostics: [], usage: `unknown run ${req.retry.runId}` };
    if (
      previous.status === 'running' &&
      previous.host.hostname === hostname() &&
      previous.host.pid !== process.pid &&
      pidAlive(previous.host.pid, previous.host.procStart)
    ) {
      return {
        ok: false,
        diagnostics: [],
        busy: true,
        usage: `run ${previous.id} is still running (pid ${previous.host.pid}); wait for it to end or stop it first`,
      };
    }
    // A step taken over (`braid attach`) leaves review by its new attempt.
    const inReview = Object.values(previous.steps)
      .filter((s) => s.status === 'review' && s.id !== req.takeover?.step)
      .map((s) => s.id);
    if (inReview.length > 0) {
      return {
        ok: false,
        diagnostics: [],
        usage: `${inReview.join(', ')} ${inReview.length > 1 ? 'wait' : 'waits'} for review: approve or reject first (braid approve|reject ${req.retry.runId} STEP...)`,
      };
    }
  } else if (req.from) {
    previous = await latestOfPlan(store, req.planFile);
  }
  const answers = req.resolve && previous ? resolveAnswer(graph, previous, req.resolve) : undefined;
  // `refused`: the step's state rules it out (exit 1, as `braid merge` of a step that is not `conflict`).
  if (answers && !answers.ok) return { ok: false, diagnostics: [], usage: answers.message, refused: true };

  const selected = selectSteps(graph, {
    ...(req.only ? { only: req.only } : {}),
    ...(req.from ? { from: req.from } : {}),
    ...(req.retry
      ? {
          retry: {
            previous: new Map(Object.entries(previous!.steps).map(([id, s]) => [id, s.status] as const)),
            ...(req.retry.steps ? { steps: req.retry.steps } : {}),
          },
        }
      : {}),
  });
  // `--only`: what the named steps need and already did with the same content is reused, not run.
  const keys = contentKeys(graph);
  const reused =
    req.only && req.only.length > 0 && !req.fresh && !req.retry
      ? await reusableNeeds(store, req.planFile, graph, selected, req.only, keys)
      : new Map<string, ReusedStep>();
  for (const id of reused.keys()) selected.delete(id);
  // A missing agent CLI refuses the run here, before its record, worktrees or any step: one
  // message a missing executable, not one a step and an attempt.
  const missing = missingAgents(graph, selected, req.workspace, process.env);
  if (missing.length > 0) return { ok: false, diagnostics: missing };
  // One process a run: a retry while the run (or another retry of it) still runs is refused.
  let claim = req.retry ? claimRun(store.paths(req.retry.runId).dir, req.retry.runId) : undefined;
  if (claim && !claim.ok) return { ok: false, diagnostics: [], busy: true, usage: claim.message };
  const concurrency = req.concurrency ?? graph.plan.concurrency ?? DEFAULT_CONCURRENCY;
  // A launcher a slot and one more, warming while the others are used (launcher.ts); made now,
  // so they start up while the run's record, locks and worktrees are prepared.
  const baseEnv = { ...process.env };
  const launcherCount = Math.min(concurrency + 1, selected.size, 17);
  const ownLaunchers =
    req.launchers === undefined && selected.size > 0 ? LauncherPool.create(launcherCount, baseEnv) : undefined;
  const launchers = req.launchers ?? ownLaunchers;
  if (selected.size > 0) req.launchers?.reserve(launcherCount);
  // What ends the steps should this process die before they do (watchdog.ts).
  if (selected.size > 0) startWatchdog();

  // Everything from here ends in the finally: a failed preparation (a git error, a full disk)
  // still closes the run's own launchers and locks.
  let runId: string;
  let record: RunRecord;
  let emit: (e: EngineEvent) => void;
  let ownLocks: ReturnType<typeof sharedLocks> | undefined;
  let ahead: ReturnType<typeof prepareAhead> | undefined;
  let inbox: { close(): Promise<void> } | undefined;
  let takeoverInbox: { close(): void } | undefined;
  let result: RunResult;
  let scheduler: Scheduler | undefined;
  let observers: RunObservers | undefined;
  try {
    runId = req.retry?.runId ?? RunStore.newRunId();
    const keep = new Map<string, { status: StepStatus; output?: string }>();
    const steps: Record<string, StepRecord> = {};
    for (const id of graph.order) {
      const old = previous?.steps[id];
      if (selected.has(id)) {
        steps[id] = {
          ...(req.retry && old ? old : {}),
          id,
          status: 'pending',
          attempts: req.retry && old ? old.attempts : [],
          contentKey: keys.get(id)!,
        };
        delete steps[id].reused; // a reused step retried runs here
        continue;
      }
      const reuse = reused.get(id);
      if (reuse) {
        keep.set(id, { status: 'succeeded', output: reuse.output });
        steps[id] = reusedRecord(reuse);
        continue;
      }
      // Not selected: what it needs already ran (keep its output), or it simply does not run now.
      const output = old ? await store.readOutput(previous!.id, id) : undefined;
      const status: StepStatus =
        old?.status === 'succeeded' || (!old && req.from) ? 'succeeded' : (old?.status ?? 'skipped');
      keep.set(id, { status: req.only ? 'skipped' : status, ...(output !== undefined ? { output } : {}) });
      steps[id] = old
        ? { ...old }
        : {
            id,
            status: req.only ? 'skipped' : status,
            attempts: [],
            ...(req.only ? { reason: 'not-selected' as const, message: 'not selected for this run' } : {}),
          };
    }

    record = {
      version: 1,
      id: runId,
      planFile: req.planFile,
      planName: graph.plan.name,
      workspace: req.workspace,
      status: 'running',
      createdAt: previous && req.retry ? previous.createdAt : new Date().toISOString(),
      host: { pid: process.pid, hostname: hostname(), ...(SELF_START !== undefined ? { procStart: SELF_START } : {}) },
      graph: snapshotGraph(graph),
      steps,
    };
    delete record.endedAt;
    delete record.reason;
    // Attempts already recorded (a retry): the scheduler numbers this run's on from them.
    const recordedAttempts = new Map(Object.values(steps).map((s) => [s.id, s.attempts.length] as const));
    // The record is the engine's events folded, as every live view folds them.
    const recorder = new RunRecorder(record, (r) => void store.save(r));
    if (req.retry) await store.save(record);
    else {
      await store.create(record);
      claim = claimRun(store.paths(runId).dir, runId);
    }

    const paths = store.paths(runId);
    // The run keeps what it reused, as if it had run it: a retry or a later reuse reads it here.
    await Promise.all([...reused.values()].map((r) => store.writeOutput(runId, r.id, r.output)));
    ownLocks = req.locks ? undefined : sharedLocks({ root: req.workspace, runId, ...req.lockFiles });
    const gate = req.locks ?? ownLocks!;
    // Events go to the bus (worktrees prepared ahead listen) and the caller.
    const bus = new Emitter<EngineEvent>();
    emit = (e: EngineEvent) => {
      recorder.on(e);
      bus.fire(e);
      req.onEvent?.(e);
      observers?.fire(e);
    };
    let locks = gate;
    // Steps that take their locks later than their start (worktree steps: at merge-back).
    let locksLater: ((s: GraphStep) => boolean) | undefined;
    let isolator = req.isolator?.(graph, runId);
    if (isGit) {
      // Every run in a repository starts by clearing what a crash may have left (registrations of
      // vanished worktrees, half-applied merge-backs); the base is taken only when a step needs it.
      if (!isolator && [...selected].some((id) => graph.steps.get(id)!.isolation === 'worktree')) {
        // Worktree steps lock only their merge-backs, through the same gate as shared steps.
        const mergeLocks = {
          gate,
          // The step stays `running` while its merge-back waits: the scheduler notes the wait on it.
          onWait: (id: string, wait: { holder: string; paths: readonly string[] } | undefined) =>
            scheduler?.lockWait(id, wait),
        };
        const wt = new WorktreeIsolator({
          root: req.workspace,
          runId,
          graph,
          log: paths.log,
          landed: paths.landed,
          mergeLocks,
          ...(previous && req.retry ? { landedBefore: landedChanges(previous) } : {}),
          ...adoptOf(req, previous),
        });
        await wt.start();
        isolator = wt;
        locksLater = (s) => s.isolation === 'worktree';
        locks = lockingOnly(gate, locksLater);
      } else await pruneWorktrees(req.workspace);
    }
    const resumeSessions = req.retry && req.resume ? new Map<string, string>() : undefined;
    const resumeUsage = resumeSessions ? new Map<string, { inputTokens: number; outputTokens: number }>() : undefined;
    if (resumeSessions) {
      for (const id of selected) {
        const sessionId = previous?.steps[id]?.sessionId;
        if (sessionId === undefined) continue;
        resumeSessions.set(id, sessionId);
        // What the session's earlier attempts used: a resumed codex thread reports it again.
        const earlier = (previous?.steps[id]?.attempts ?? []).filter((a) => a.sessionId === sessionId);
        resumeUsage!.set(id, {
          inputTokens: earlier.reduce((n, a) => n + (a.inputTokens ?? 0), 0),
          outputTokens: earlier.reduce((n, a) => n + (a.outputTokens ?? 0), 0),
        });
      }
    }
    // Past durations only rank ready steps against each other: one step has nothing to rank, and
    // reading up to ten past records, each checked against the schema, is on its way to its start.
    const history = selected.size > 1 ? await store.durationHistory(req.planFile) : new Map<string, number>();
    // `braid attach | say` from elsewhere reach a running agent step's attempt here.
    const takeovers = new Takeovers();
    if (req.takeover) takeovers.atStart(req.takeover.step, req.takeover.takeover);
    const executor = new StepExecutor({
      graph,
      workspace: req.workspace,
      baseEnv,
      paths: {
        log: paths.log,
        writeOutput: (id, text) => store.writeOutput(runId, id, text),
        rawLog: paths.rawLog,
        output: paths.output,
      },
      ...(resumeSessions ? { resumeSessions } : {}),
      ...(resumeUsage ? { resumeUsage } : {}),
      ...(req.graceMs !== undefined ? { graceMs: req.graceMs } : {}),
      ...(req.prices ? { prices: req.prices } : {}),
      ...(isolator ? { isolator } : {}),
      ...(req.onSpawn ? { onSpawn: req.onSpawn } : {}),
      ...(launchers ? { launchers } : {}),
      takeovers,
    });
    // Worktrees of steps about to become ready are made (and set up) while their needs run.
    ahead = prepareAhead(graph, isolator, bus, { concurrency, selected });
    scheduler = new Scheduler({
      graph,
      runId,
      runner: executor,
      keep,
      keptAreOwn: req.retry !== undefined,
      weight: historyWeight(history),
      ...(req.concurrency !== undefined ? { concurrency: req.concurrency } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      locks,
      ...(locksLater ? { takesLocks: (s: GraphStep) => !locksLater(s) } : {}),
      attemptsBefore: recordedAttempts,
      ...(req.retry && previous ? { failedBefore: await failedBefore(graph, previous, selected, store) } : {}),
      ...(answers?.ok ? { answers: answers.answers } : {}),
      onEvent: emit,
      ...(req.onBudget ? { onBudget: req.onBudget } : {}),
      ...(req.maxCostUsd !== undefined ? { budgetUsd: req.maxCostUsd } : {}),
      isolation: {
        keptWorktree: (id) => isolator?.keptWorktree?.(id),
        changeOf: (id) => isolator?.changeOf?.(id),
      },
      waitForPick: (stepId, candidates, signal) => waitForPick(paths.dir, stepId, candidates, signal),
    });
    if (req.observers && req.observers.length > 0) {
      const notice = (e: unknown) => req.onNotice?.(e instanceof Error ? e.message : String(e));
      observers = await RunObservers.start(
        req.observers,
        { runId, graph, record, env: baseEnv, notice: (m) => req.onNotice?.(m) },
        notice,
      );
    }
    emit({
      type: 'run',
      status: 'started',
      plan: graph.plan.name,
      steps: selected.size,
      time: new Date().toISOString(),
      run: runId,
    });
    for (const id of reused.keys()) emit(reusedEvent(record.steps[id]!, runId));
    // `braid approve | reject | merge | revert` from elsewhere, carried out here while the run goes on.
    const [rec, sched] = [record, scheduler];
    inbox = await openInbox(paths.dir, (r) => liveReview(req.workspace, paths.dir, rec, sched, store, r));
    takeoverInbox = await openTakeoverInbox(paths.dir, takeovers, (id, message) => {
      recordSaid(rec, id, message);
      void store.save(rec);
    });
    req.onStart?.(runId, scheduler, graph, record);
    result = await scheduler.run();
    await isolator?.idle?.(); // best-of alternatives' worktrees, removed after their steps ended
  } finally {
    await inbox?.close();
    takeoverInbox?.close();
    if (claim?.ok) claim.release();
    ownLaunchers?.close();
    await ahead?.close();
    await ownLocks?.close();
  }
  record.status = result.status;
  record.endedAt = new Date().toISOString();
  if (result.reason) record.reason = result.reason;
  // Flush first: it writes at once, where an awaited save could wait out the write interval.
  const saved = store.save(record);
  await store.flush();
  await saved;
  emit({
    type: 'run',
    status: result.status,
    plan: graph.plan.name,
    steps: selected.size,
    time: record.endedAt,
    run: runId,
    ...(result.costUsd !== undefined
      ? { costUsd: result.costUsd, ...(result.costSource ? { costSource: result.costSource } : {}) }
      : {}),
    ...(result.reason ? { reason: result.reason } : {}),
  });
  await observers?.close();
  return { ok: true, runId, result, record, ran: [...selected], reused: [...reused.keys()] };
}

/** A review request for this run, carried out by its own scheduler (revert: on the workspace and record). */
async function liveReview(
  root: string,
  runDir: string,
  record: RunRecord,
  scheduler: Scheduler,
  store: RunStore,
  r: ReviewRequest,
): Promise<Handled> {
  const decided = await decidedAlready(runDir, record, r);
  if (decided) return { refused: decided };
  const problems = r.steps.map((id) => wrongState(record, id, r.action)).filter((p) => p !== undefined);
  if (problems.length > 0) return { refused: `${problems.join('; ')}; nothing was done` };
  const out: StepOutcome[] = [];
  for (const id of r.steps) {
    if (r.action === 'revert') {
      out.push(await revertChange(root, record, id));
      void store.save(record);
      continue;
    }
    // One decision a change, across processes: a command that found this run ended decides from the record (decisionClaim.ts).
    const claim =
      r.action === 'approve' || r.action === 'reject'
        ? await claimDecision(runDir, decisionKey(record.steps[id]!), {
            action: r.action,
            by: r.by ?? 'an unnamed requester',
            at: new Date().toISOString(),
          })
        : undefined;
    if (claim && !claim.ok) {
      out.push({ step: id, ok: false, message: decidedMessage(id, claim.decided) });
      continue;
    }
    const d = scheduler.review(
      id,
      r.action === 'reject'
        ? { action: 'reject', ...(r.reason !== undefined ? { reason: r.reason } : {}) }
        : { action: r.action },
    );
    const o = await d;
    if (!o.ok) await claim?.release();
    out.push(
      o.ok
        ? { step: id, ok: true, status: o.status, ...(o.message !== undefined ? { message: o.message } : {}) }
        : { step: id, ok: false, message: o.message },
    );
  }
  // The requester reads run.json next: it must hold the outcome.
  await store.flush();
  return out;
}

/**
 * `braid retry`: each selected agent step whose last attempt failed, with that failure's message
 * and the end of what it printed (read back from its log), so its next attempt hears why. Its
 * session is not carried: whether a retry across runs continues it is `--resume`'s choice.
 */
async function failedBefore(
  graph: Graph,
  previous: RunRecord,
  selected: ReadonlySet<string>,
  store: RunStore,
): Promise<Map<string, PreviousAttempt>> {
  const out = new Map<string, PreviousAttempt>();
  for (const id of selected) {
    const old = previous.steps[id];
    if (graph.steps.get(id)?.kind !== 'prompt' || old?.status !== 'failed' || old.attempts.length === 0) continue;
    const log = await readLogTail(store.paths(previous.id).log(id), 4 * FAILURE_TAIL_CHARS);
    out.set(id, {
      attempt: old.attempts.length,
      reason: old.message ?? old.reason ?? 'failed',
      output: failureTail(lastAttemptOutput(log)),
    });
  }
  return out;
}

/** Whether `dir` is a git repository's top level: what worktree isolation needs (run, validate and --dry-run alike). */
export { isGitWorkspace };

async function latestOfPlan(store: RunStore, planFile: string): Promise<RunRecord | undefined> {
  const summary = (await store.list()).find((r) => r.planFile === planFile);
  return summary ? store.load(summary.id) : undefined;
}

/** `braid attach` on an ended run: the step's kept worktree is its attempt's (a committed change's base kept). */
function adoptOf(req: RunRequest, previous: RunRecord | undefined): { adopt?: { stepId: string; base?: string } } {
  const id = req.takeover?.step;
  if (id === undefined || !req.retry) return {};
  const old = previous?.steps[id];
  const committed = old?.status === 'review' || old?.status === 'conflict' ? old.changes?.base : undefined;
  return { adopt: { stepId: id, ...(committed !== undefined ? { base: committed } : {}) } };
}
