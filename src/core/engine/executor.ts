// The real StepRunner: render, spawn, check, capture the output. Worktree isolation wraps it.
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { findExecutable, notInstalledMessage } from '../agents/which';
import { resolveInside } from '../paths/containment';
import type { Graph, GraphStep } from '../plan/types';
import { runProcess, type ProcessResult } from './process';
import { shellInvocation, stepEnv, stepInvocation, type RenderScope } from './render';
import { openStepLog } from './stepLog';
import type { AttemptContext, AttemptResult, StepRunner } from './types';

const OUTPUT_MAX = 64 * 1024;

export interface ExecutorPaths {
  log(stepId: string): string;
  output(stepId: string): string;
}

/** Where an attempt runs: the workspace, or (worktree isolation) a prepared tree around it. */
export interface Isolator {
  /** Runs `body` in a directory for the step; turns its result into the step's result (merge-back). */
  around(ctx: AttemptContext, body: (dir: string) => Promise<AttemptResult>): Promise<AttemptResult>;
  /** Workspace-relative path of a worktree the step's last attempt left for the user, if any. */
  keptWorktree?(stepId: string): string | undefined;
}

export interface ExecutorOptions {
  readonly graph: Graph;
  readonly workspace: string;
  readonly paths: ExecutorPaths;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  readonly graceMs?: number;
  readonly isolator?: Isolator;
}

export class StepExecutor implements StepRunner {
  constructor(private readonly o: ExecutorOptions) {}

  async execute(ctx: AttemptContext): Promise<AttemptResult> {
    const { step } = ctx;
    if (step.isolation === 'worktree' && this.o.isolator) return this.o.isolator.around(ctx, (dir) => this.attempt(ctx, dir));
    return this.attempt(ctx, this.o.workspace);
  }

  /** One attempt in `root` (the workspace or the step's worktree). */
  async attempt(ctx: AttemptContext, root: string): Promise<AttemptResult> {
    const { step } = ctx;
    const started = Date.now();
    const fail = (reason: AttemptResult['reason'], message: string): AttemptResult =>
      ({ status: 'failed', exitCode: null, signal: null, reason, message, durationMs: Date.now() - started });
    const cwd = resolveInside(root, step.cwd ?? '.');
    if (!cwd) return fail('spawn-failed', `cwd ${step.cwd} leaves the workspace`);
    const scope: RenderScope = { graph: this.o.graph, step, runId: ctx.runId, outputs: ctx.outputs, statuses: ctx.statuses, baseEnv: this.o.baseEnv ?? process.env };
    const inv = stepInvocation(scope);
    const runCwd = inv.cwd ? resolveInside(root, inv.cwd) : cwd;
    if (!runCwd) return fail('spawn-failed', `agent cwd ${inv.cwd} leaves the workspace`);
    if (step.kind === 'prompt' && !findExecutable(inv.argv[0]!, inv.env.PATH, runCwd)) {
      return fail('spawn-failed', notInstalledMessage(step.agent ?? '', inv.argv[0]!));
    }
    const log = await openStepLog(this.o.paths.log(step.id), ctx.attempt, step.name);
    let res: ProcessResult;
    try {
      res = await runProcess({
        argv: inv.argv, cwd: runCwd, env: inv.env, signal: ctx.signal, log: log.stream, onOutput: ctx.onOutput,
        ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}),
        ...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
        ...(step.idleTimeoutMs !== undefined ? { idleTimeoutMs: step.idleTimeoutMs } : {}),
        ...(this.o.graceMs !== undefined ? { graceMs: this.o.graceMs } : {}),
      });
      if (res.reason === 'exit' && res.exitCode === 0 && step.check) {
        log.stream.write(`──── check: ${step.check} ────\n`);
        const check = shellInvocation(scope, step.check, stepEnv(scope));
        const c = await runProcess({ argv: check.argv, cwd, env: check.env, signal: ctx.signal, log: log.stream, onOutput: ctx.onOutput });
        if (c.reason !== 'exit' || c.exitCode !== 0) {
          return { status: c.reason === 'canceled' ? 'canceled' : 'failed', exitCode: c.exitCode, signal: c.signal, reason: c.reason === 'exit' ? 'check-failed' : c.reason, message: `check failed (${c.message ?? `exit ${c.exitCode}`}): ${step.check}`, durationMs: Date.now() - started };
        }
      }
    } finally {
      await log.close().catch(() => {});
    }
    const base = { exitCode: res.exitCode, signal: res.signal, durationMs: res.durationMs, ...(res.message !== undefined ? { message: res.message } : {}) };
    if (res.reason === 'canceled') return { ...base, status: 'canceled', reason: 'canceled' };
    if (res.reason !== 'exit') return { ...base, status: 'failed', reason: res.reason };
    if (res.exitCode !== 0) return { ...base, status: 'failed', reason: 'exit', message: `exited with code ${res.exitCode}` };
    const output = await this.readOutput(step, cwd, res.stdoutTail);
    await mkdir(dirname(this.o.paths.output(step.id)), { recursive: true });
    await writeFile(this.o.paths.output(step.id), output);
    return { ...base, status: 'succeeded', output };
  }

  private async readOutput(step: GraphStep, cwd: string, tail: string): Promise<string> {
    if (step.output === undefined) return tail.trimEnd();
    const file = resolveInside(cwd, step.output);
    if (!file) return '';
    const text = await readFile(file, 'utf8').catch(() => '');
    return text.length > OUTPUT_MAX ? text.slice(-OUTPUT_MAX) : text;
  }
}
