// The real StepRunner: render, spawn, check, capture the output. Worktree isolation wraps it.
import { readFile } from 'node:fs/promises';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { agentFamily } from '../../agents/presets';
import { agentFailureReason, failureMessage } from '../../agents/failureReason';
import { launchOptions } from '../../agents/launchOptions';
import { detectRateLimit } from '../../agents/rateLimit';
import type { AgentSummary } from '../../agents/streams/types';
import { findExecutable, notInstalledMessage } from '../../agents/which';
import picomatch from 'picomatch';
import { resolveInside } from '../../paths/containment';
import type { Graph, GraphStep } from '../../plan/types';
import type { LauncherPool } from '../../exec/launcher';
import { runProcess, type ProcessResult } from '../../exec/process';
import { findBwrap, sandboxArgv } from '../../exec/sandbox';
import { checkScore, scoreFileFor } from './checkScore';
import { MAX_ARG_BYTES } from './largeValues';
import { nodeModulesHint, OutputTail } from './missingTool';
import { commandLine } from '../../format';
import { shellInvocation, stepEnv, stepInvocation, type RenderScope } from './render';
import { resolutionAgent, resolutionInvocation } from './resolutionInvocation';
import { AgentCapture } from './agentCapture';
import { usageOf, type Pricing } from '../../cost/agentCost';
import { configuredModel } from '../../cost/agentModel';
import type { PriceTable } from '../../cost/prices';
import { FailureTail } from './failureTail';
import { appendLog, checkHeader, DirMaker, startStepLog, type StepLog } from '../records/stepLog';
import type { AttemptContext, AttemptResult, Resolving, StepRunner } from '../types';
import type { ChangeRecord } from '../records/changeRecord';
import { afterTakeover, takesPeople, type Takeover, type Takeovers } from './takeover';
import { handoverOf, saidInvocation } from './takeoverRun';
import { LiveInput, liveArgv } from '../../agents/liveInput';

const OUTPUT_MAX = 64 * 1024;

// The folder a `writes` entry lets a sandboxed step write: a glob's literal folder (`out/**` →
// `out`, `**` → the workspace), a file's own folder (`docs/schema.md` → `docs`).
const writableFolder = (glob: string): string => {
  const scan = picomatch.scan(glob);
  return scan.isGlob ? scan.base || '.' : dirname(glob);
};

export interface ExecutorPaths {
  log(stepId: string): string;
  /** Stores a succeeded step's output, atomically (a dependent or `braid` never reads half of it): RunStore.writeOutput. */
  writeOutput(stepId: string, text: string): Promise<void>;
  /** Where a structured agent's raw event stream goes (JSON lines); without it, it is not kept. */
  rawLog?(stepId: string): string;
  /** Where a step's output is kept (values too large for the environment are written beside it). */
  output(stepId: string): string;
}

/** Where an attempt runs: the workspace, or (worktree isolation) a prepared tree around it. */
export interface Isolator {
  /** Runs `body` in a directory for the step; turns its result into the step's result (merge-back). */
  around(
    ctx: AttemptContext,
    body: (dir: string, resolving?: Resolving) => Promise<AttemptResult>,
  ): Promise<AttemptResult>;
  /** Workspace-relative path of a worktree the step's last attempt left for the user, if any. */
  keptWorktree?(stepId: string): string | undefined;
  land?(stepId: string, signal: AbortSignal): Promise<AttemptResult | undefined>;
  reject?(stepId: string): void;
  /** The change the step's last attempt committed, for its record. */
  changeOf?(stepId: string): ChangeRecord | undefined;
  /** Removes, in the background, the worktrees attempts of these steps kept, if any; `idle` waits for that. */
  release?(stepIds: readonly string[]): void;
  idle?(): Promise<void>;
}

export interface ExecutorOptions {
  readonly graph: Graph;
  readonly workspace: string;
  readonly paths: ExecutorPaths;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  readonly graceMs?: number;
  readonly isolator?: Isolator;
  /**
   * Agent sessions to continue, by step id (a retry with resume): an agent step whose agent can
   * resume continues its session instead of starting over; each attempt's session replaces it.
   */
  readonly resumeSessions?: Map<string, string>;
  /**
   * The tokens each resumed session had used before (its earlier attempts), by step id: codex
   * reports a resumed thread's whole usage, of which only the growth is the attempt's.
   */
  readonly resumeUsage?: Map<
    string,
    { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; reasoningTokens?: number }
  >;
  /** The user's own prices (the setting `braid.prices`); the plan's `prices:` win over them, and both over the pinned table. */
  readonly prices?: PriceTable;
  /** Called once a step's own process has spawned (not its check or set-up); `spawnMs`: how long spawn() blocked. */
  readonly onSpawn?: (stepId: string, pid: number, spawnMs: number) => void;
  /** Warm launchers for steps' own processes (launcher.ts); without them each step is spawned at its start. */
  readonly launchers?: LauncherPool;
  /** Where a person steps into an agent step's attempt (`braid attach`, `braid say`): takeover.ts. */
  readonly takeovers?: Takeovers;
}

export class StepExecutor implements StepRunner {
  // One mkdir a directory a run, not one a step: every step's log shares a few.
  private readonly dirs = new DirMaker();
  // The engine's environment, read once: process.env is a slow accessor object, copied for every step.
  private readonly baseEnv: Readonly<Record<string, string | undefined>>;

  constructor(private readonly o: ExecutorOptions) {
    this.baseEnv = o.baseEnv ?? { ...process.env };
  }

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const { step } = ctx;
    if (step.isolation === 'worktree' && this.o.isolator)
      return this.o.isolator.around(ctx, (dir, resolving) => this.attempt(ctx, dir, resolving));
    return this.attempt(ctx, this.o.workspace);
  }

  /**
   * How a `sandbox: true` step is confined (exec/sandbox.ts): a worktree step may write its tree
   * and its own git folder; a shared step the folders its `writes` name (the whole workspace for
   * a catch-all such as `**`) and its output's; everything else, the workspace included, is read-only.
   */
  private sandboxFor(
    step: GraphStep,
    root: string,
    path: string | undefined,
  ): { wrap: (argv: readonly string[], cwd: string) => string[] } | { error: string } {
    const bwrap = findBwrap(path);
    if (!bwrap)
      return {
        error:
          'sandbox: true needs bubblewrap on Linux (Debian and Ubuntu: apt install bubblewrap), and bwrap is not on the PATH',
      };
    const workspace = this.o.workspace;
    const writable: string[] = [];
    if (root !== workspace) {
      writable.push(root);
      const gitFile = join(root, '.git');
      const gitDir = /^gitdir: (.+)$/m.exec(existsSync(gitFile) ? readFileSync(gitFile, 'utf8') : '')?.[1];
      if (gitDir) writable.push(gitDir.trim());
    } else {
      const folders = [
        ...step.writes.map(writableFolder),
        ...(step.output !== undefined ? [dirname(step.output)] : []),
      ];
      for (const f of folders) {
        const abs = resolveInside(workspace, f);
        if (abs) writable.push(abs);
      }
    }
    return { wrap: (argv, cwd) => sandboxArgv(argv, { bwrap, readOnly: [workspace], writable, cwd }) };
  }

  /** Writes a value too large for the step's environment beside its output; returns the path. */
  private valueFile(stepId: string, name: string, value: string): string {
    const out = this.o.paths.output(stepId);
    const dir = join(dirname(dirname(out)), 'values', basename(out));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, name);
    writeFileSync(file, value);
    return file;
  }

  /** How an agent attempt's tokens are priced: the plan's prices, then the user's, then the pinned table; the model from its argv or its CLI's config when its stream will not say. */
  private pricing(
    family: ReturnType<typeof agentFamily>,
    argv: readonly string[],
    env: Readonly<Record<string, string | undefined>>,
  ): Pricing {
    const tables = [this.o.graph.plan.prices, this.o.prices].filter((t): t is PriceTable => t !== undefined);
    const model = configuredModel(family, argv, env);
    return { tables, ...(model !== undefined ? { model } : {}) };
  }

  land(stepId: string, signal: AbortSignal): Promise<AttemptResult | undefined> {
    return this.o.isolator?.land?.(stepId, signal) ?? Promise.resolve(undefined);
  }

  reject(stepId: string): void {
    this.o.isolator?.reject?.(stepId);
  }

  /** One attempt in `root` (the workspace or the step's worktree). */
  async attempt(ctx: AttemptContext, root: string, resolving?: Resolving): Promise<AttemptResult> {
    const { step } = ctx;
    const started = Date.now();
    const fail = (reason: NonNullable<AttemptResult['reason']>, message: string): AttemptResult => ({
      status: 'failed',
      exitCode: null,
      signal: null,
      reason,
      message,
      durationMs: Date.now() - started,
    });
    const cwd = resolveInside(root, step.cwd ?? '.');
    if (!cwd) return fail('spawn-failed', `cwd ${step.cwd} leaves the workspace`);
    const scope: RenderScope = {
      graph: this.o.graph,
      step,
      runId: ctx.runId,
      outputs: ctx.outputs,
      statuses: ctx.statuses,
      baseEnv: this.baseEnv,
      valueFile: (name, value) => this.valueFile(step.id, name, value),
      ...(ctx.previous ? { previous: ctx.previous } : {}),
    };
    const sessions = this.o.resumeSessions;
    // A resolution (resolveConflict.ts) runs its agent on the conflict, a `run` step's too (`braid resolve --agent`).
    const agentDef = resolving
      ? resolutionAgent(scope, resolving)
      : step.kind === 'prompt'
        ? this.o.graph.agents[step.agent ?? '']
        : undefined;
    // A retry continues the failed attempt's session unless the step says not to (`retry --resume` asks for it anyway).
    const resume =
      step.kind !== 'prompt'
        ? undefined
        : (sessions?.get(step.id) ?? (step.retryResume !== false ? ctx.previous?.sessionId : undefined));
    const planned = resolving ? resolutionInvocation(scope, resolving) : stepInvocation(scope, resume);
    // The CLI's own retries bounded and the step's budget passed on (launchOptions.ts).
    const inv = agentDef
      ? { ...planned, ...(await launchOptions(agentFamily(agentDef), planned.argv, planned.env, step.maxCostUsd)) }
      : planned;
    // An agent's prompt is one argument: past exec's limit the process could not even start.
    const tooLong = inv.argv.find((a) => Buffer.byteLength(a) >= MAX_ARG_BYTES);
    if (tooLong !== undefined) {
      const size = `${Math.round(Buffer.byteLength(tooLong) / 1024)} KiB`;
      return {
        ...fail(
          'spawn-failed',
          `an argument of ${size} is past the ${MAX_ARG_BYTES / 1024} KiB one argument may hold; give the agent \`stdin: prompt\` under \`agents:\``,
        ),
        permanent: true,
      };
    }
    const runCwd = inv.cwd ? resolveInside(root, inv.cwd) : cwd;
    if (!runCwd) return fail('spawn-failed', `agent cwd ${inv.cwd} leaves the workspace`);
    const confine = step.sandbox ? this.sandboxFor(step, root, inv.env.PATH) : undefined;
    if (confine && 'error' in confine) return { ...fail('spawn-failed', confine.error), permanent: true };
    // runPlan refuses a run whose agents are missing (missingAgents.ts); this catches what it
    // could not know before the run (a command made by a need, a PATH from a step's output).
    // Not retried: the next attempt would find the same nothing.
    if (agentDef && !findExecutable(inv.argv[0]!, inv.env.PATH, runCwd)) {
      return { ...fail('spawn-failed', notInstalledMessage(inv.argv[0]!)), permanent: true };
    }
    // The log opens while the process starts: spawning never waits for the disk.
    const logPath = this.o.paths.log(step.id);
    const log = startStepLog(logPath, ctx.attempt, step.name, this.dirs.ensure(dirname(logPath)));
    const agent = agentDef;
    if (resolving)
      log.stream.write(
        `──── resolving the conflict${resolving.files.length > 0 ? ` in ${resolving.files.join(', ')}` : ''} ────\n`,
      );
    if (inv.resumed !== undefined) log.stream.write(`──── resuming session ${inv.resumed} ────\n`);
    const raw = agent && agent.format !== 'text' ? this.openRaw(step.id, ctx.attempt) : undefined;
    // An agent step keeps the end of what it prints: a failure's next attempt is shown it.
    const seen = agent ? new FailureTail() : undefined;
    const onOutput = seen ? seen.wrap(ctx.onOutput) : ctx.onOutput;
    const resumedUsage = inv.resumed !== undefined ? this.o.resumeUsage?.get(step.id) : undefined;
    const pricing: Pricing | undefined = agent ? this.pricing(agentFamily(agent), inv.argv, inv.env) : undefined;
    const newCapture = (usage?: ConstructorParameters<typeof AgentCapture>[4]) =>
      agent
        ? new AgentCapture(
            agent.format,
            log.stream,
            raw?.stream,
            { onOutput, ...(ctx.onAgent ? { onAgent: ctx.onAgent } : {}) },
            usage,
            pricing,
          )
        : undefined;
    let capture = newCapture(resumedUsage);
    const onSpawn = this.o.onSpawn;
    // A person may step in while the agent runs (takeover.ts): its process is stopped, not the attempt.
    let stop = new AbortController();
    let pending: Takeover | undefined;
    // A claude process reads a live input channel (liveInput.ts): a message reaches it as the
    // user's next one, the process going on; elsewhere it is stopped and its session continued.
    let live: LiveInput | undefined;
    const take = (t: Takeover): void => {
      if (t.kind === 'say' && live?.say(t.message)) {
        log.stream.write(`──── you said: ${t.message} ────\n`);
        return;
      }
      pending = t;
      // A closed channel: the process ends by itself, then the loop below continues its session.
      if (!(t.kind === 'say' && live)) stop.abort('takeover');
    };
    const takeovers = agent && takesPeople(agent) ? this.o.takeovers : undefined;
    pending = takeovers?.enter(step.id, take);
    const run = (i: typeof inv, c: AgentCapture | undefined): Promise<ProcessResult> => {
      const liveArgs = takeovers && i.prompt !== undefined ? liveArgv(agent!, i, i.prompt) : undefined;
      const channel = liveArgs ? new LiveInput(i.prompt!) : undefined;
      live = channel;
      const argv = liveArgs ?? i.argv;
      const out = c ? c.onOutput : onOutput;
      return runProcess({
        argv: confine ? confine.wrap(argv, runCwd) : argv,
        cwd: runCwd,
        env: i.env,
        signal: takeovers ? AbortSignal.any([ctx.signal, stop.signal]) : ctx.signal,
        // A structured agent's log is its readable lines, written by the capture; the rest log raw bytes.
        ...(c?.structured ? {} : { log: log.stream }),
        onOutput: channel
          ? (stream, text) => {
              if (stream === 'stdout') channel.onStdout(text);
              out(stream, text);
            }
          : out,
        ...(channel ? { input: channel.attach } : i.stdin !== undefined ? { stdin: i.stdin } : {}),
        ...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
        ...(step.idleTimeoutMs !== undefined ? { idleTimeoutMs: step.idleTimeoutMs } : {}),
        ...(this.o.graceMs !== undefined ? { graceMs: this.o.graceMs } : {}),
        ...(onSpawn ? { onSpawn: (pid: number, spawnMs: number) => onSpawn(step.id, pid, spawnMs) } : {}),
        ...(this.o.launchers ? { launcher: this.o.launchers } : {}),
      }).finally(() => {
        channel?.close();
      });
    };
    let res: ProcessResult;
    let summary: AgentSummary | undefined;
    let score: number | undefined;
    try {
      const queued = pending !== undefined;
      res = queued
        ? { exitCode: 0, signal: null, reason: 'exit', durationMs: 0, stdoutTail: '' }
        : await run(inv, capture);
      summary = queued ? undefined : capture?.end();
      // Each takeover continues the attempt in the same folder and session; another may follow it.
      while (pending !== undefined && !ctx.signal.aborted) {
        const t: Takeover = pending;
        pending = undefined;
        stop = new AbortController();
        const session = summary?.sessionId ?? inv.resumed ?? resume;
        if (t.kind === 'say') {
          log.stream.write(`──── you said: ${t.message} ────\n`);
          const next = saidInvocation(scope, session, t.message);
          if (next.resumed !== undefined) log.stream.write(`──── resuming session ${next.resumed} ────\n`);
          const before = summary;
          capture = newCapture();
          res = await run(next, capture);
          summary = afterTakeover(before, capture?.end());
          continue;
        }
        const h = handoverOf(scope, agent!, session, runCwd, capture?.readableTail ?? '');
        log.stream.write(
          h.resumed !== undefined
            ? `──── continued by hand in a terminal: session ${h.resumed} ────\n`
            : `──── continued by hand in a terminal: ${h.why} ────\n`,
        );
        const handed = Date.now();
        // One person at a time: while they have it, the attempt takes no other takeover.
        takeovers?.leave(step.id, take);
        await t.handover(h, ctx.signal);
        takeovers?.enter(step.id, take);
        log.stream.write(`──── left the terminal; the folder is this attempt's ────\n`);
        res = {
          exitCode: ctx.signal.aborted ? null : 0,
          signal: null,
          reason: ctx.signal.aborted ? 'canceled' : 'exit',
          durationMs: Date.now() - handed,
          stdoutTail: '',
        };
        summary = afterTakeover(summary, undefined);
      }
      takeovers?.leave(step.id, take);
      if (summary?.sessionId !== undefined && sessions) {
        const before = summary.sessionId === inv.resumed ? resumedUsage : undefined;
        sessions.set(step.id, summary.sessionId);
        this.o.resumeUsage?.set(step.id, {
          inputTokens: (before?.inputTokens ?? 0) + (summary.inputTokens ?? 0),
          outputTokens: (before?.outputTokens ?? 0) + (summary.outputTokens ?? 0),
          cachedInputTokens: (before?.cachedInputTokens ?? 0) + (summary.cachedInputTokens ?? 0),
          reasoningTokens: (before?.reasoningTokens ?? 0) + (summary.reasoningTokens ?? 0),
        });
      }
      const limited =
        agent && res.reason === 'exit'
          ? detectRateLimit({
              family: agentFamily(agent),
              exitCode: res.exitCode,
              stderr: capture!.stderrTail,
              stdoutTail: res.stdoutTail,
              ...(summary ? { summary } : {}),
              now: new Date(),
            })
          : undefined;
      if (limited?.limited) {
        log.stream.write(`──── rate-limited: ${limited.evidence ?? 'limit reached'} ────\n`);
        return {
          status: 'failed',
          exitCode: res.exitCode,
          signal: res.signal,
          reason: 'rate-limited',
          durationMs: res.durationMs,
          message: failureMessage(`rate-limited: ${limited.evidence ?? 'limit reached'}`, res.exitCode),
          rateLimit: {
            ...(limited.resetAt ? { resetAt: limited.resetAt } : {}),
            ...(limited.evidence ? { evidence: limited.evidence } : {}),
          },
          ...(summary ? { agent: usageOf(summary, pricing) } : {}),
        };
      }
      // An agent that says it failed has failed, whatever its exit status.
      if (res.reason === 'exit' && res.exitCode === 0 && summary?.isError) {
        return {
          status: 'failed',
          exitCode: 0,
          signal: null,
          reason: 'exit',
          durationMs: res.durationMs,
          message: failureMessage(`the agent reported an error: ${agentFailureReason(summary, '') ?? 'unknown'}`, 0),
          agent: usageOf(summary, pricing),
          ...seen!.result(),
        };
      }
      if (res.reason === 'exit' && res.exitCode === 0 && step.check) {
        log.stream.write(checkHeader(step.check));
        const scoreFile = step.alternative !== undefined ? scoreFileFor(root) : undefined;
        const check = shellInvocation(scope, step.check, {
          ...stepEnv(scope),
          ...(scoreFile !== undefined ? { BRAID_SCORE_FILE: scoreFile } : {}),
        });
        seen?.clear(); // the check's output, not the agent's, says why the check failed
        const printed = new OutputTail();
        const c = await runProcess({
          argv: confine ? confine.wrap(check.argv, cwd) : check.argv,
          cwd,
          env: check.env,
          signal: ctx.signal,
          log: log.stream,
          onOutput: (stream, text) => {
            printed.add(text);
            onOutput(stream, text);
          },
        });
        score = checkScore(c.stdoutTail, scoreFile);
        if (c.reason !== 'exit' || c.exitCode !== 0) {
          const hint =
            c.reason === 'exit'
              ? nodeModulesHint({
                  workspace: this.o.workspace,
                  tree: root,
                  command: step.check,
                  exitCode: c.exitCode,
                  output: printed.value,
                })
              : undefined;
          return {
            status: c.reason === 'canceled' ? 'canceled' : 'failed',
            exitCode: c.exitCode,
            signal: c.signal,
            reason: c.reason === 'exit' ? 'check-failed' : c.reason,
            message: `check failed (${c.message ?? `exit ${c.exitCode}`}): ${commandLine(step.check)}${hint ? `; ${hint}` : ''}`,
            durationMs: Date.now() - started,
            ...(summary ? { agent: usageOf(summary, pricing) } : {}),
            ...seen?.result(),
          };
        }
      }
    } finally {
      takeovers?.leave(step.id, take);
      await log.close().catch(() => {});
      if (raw) await raw.close().catch(() => {}); // a full disk loses the raw copy, never the step
    }
    const base = {
      exitCode: res.exitCode,
      signal: res.signal,
      durationMs: res.durationMs,
      ...(res.message !== undefined ? { message: res.message } : {}),
      ...(summary ? { agent: usageOf(summary, pricing) } : {}),
    };
    if (res.reason === 'canceled') return { ...base, status: 'canceled', reason: 'canceled' };
    if (res.reason !== 'exit') return { ...base, status: 'failed', reason: res.reason, ...seen?.result() };
    if (res.exitCode !== 0) {
      // The agent's own reason ("API Error: 500 …"), not only its exit code.
      const why = capture ? agentFailureReason(summary, capture.stderrTail) : undefined;
      return {
        ...base,
        status: 'failed',
        reason: 'exit',
        message: failureMessage(why, res.exitCode),
        ...seen?.result(),
      };
    }
    // A structured agent's output is its final answer (else the readable end of its log), not the raw stream.
    const tail = capture?.structured ? (summary?.finalText ?? capture.readableTail) : res.stdoutTail;
    const output = await this.readOutput(step, cwd, tail);
    await this.o.paths.writeOutput(step.id, output);
    return { ...base, status: 'succeeded', output, ...(score !== undefined ? { score } : {}) };
  }

  /** A best-of step ended: it gets its winner's output file; its alternatives' worktrees go unless kept for a look. */
  async alternativesSettled(
    stepId: string,
    winner: string | undefined,
    losers: readonly string[],
    keep: 'all' | 'none',
  ): Promise<void> {
    if (winner !== undefined) {
      const text = await readFile(this.o.paths.output(winner), 'utf8').catch(() => undefined);
      if (text !== undefined) await this.o.paths.writeOutput(stepId, text);
    }
    if (keep === 'none') this.o.isolator?.release?.([...(winner !== undefined ? [winner] : []), ...losers]);
  }

  /** The raw stream's file, opened for appending; each attempt opens with a JSON line of its own. */
  private openRaw(stepId: string, attempt: number): StepLog | undefined {
    const path = this.o.paths.rawLog?.(stepId);
    if (!path) return undefined;
    const line = JSON.stringify({ braid: 'attempt', attempt, time: new Date().toISOString() }) + '\n';
    return appendLog(path, this.dirs.ensure(dirname(path)), () => line);
  }

  private async readOutput(step: GraphStep, cwd: string, tail: string): Promise<string> {
    if (step.output === undefined) return tail.trimEnd();
    const file = resolveInside(cwd, step.output);
    if (!file) return '';
    const text = await readFile(file, 'utf8').catch(() => '');
    return text.length > OUTPUT_MAX ? text.slice(-OUTPUT_MAX) : text;
  }
}
