// A worktree step's `setup` command, run in its worktree before the step (or ahead of its needs,
// preparedTrees.ts). Its own file because both an attempt and a preparation run it, each with its
// own scope, and its result is an attempt's result only when it fails.
import type { Graph, GraphStep } from '../../plan/types';
import { runProcess } from '../../exec/process';
import { shellInvocation, stepEnv } from '../steps/render';
import { openStepLog } from '../records/stepLog';
import { commandLine } from '../../format';
import type { AttemptContext, AttemptResult, OutputStream } from '../types';

/** The run a setup belongs to. */
export interface SetupRun {
  readonly graph: Graph;
  readonly runId: string;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** The step's log file, where the setup's output goes. */
  log(stepId: string): string;
}

/**
 * What a `setup` run needs besides the step: an attempt's scope (its number, signal, and the
 * outputs and statuses its environment is rendered from), a title for its log, and, from an
 * attempt (not a preparation), where its output streams.
 */
export interface SetupScope extends Pick<AttemptContext, 'attempt' | 'signal' | 'outputs' | 'statuses'> {
  readonly title: string;
  onOutput?(stream: OutputStream, text: string): void;
}

/** Runs the step's `setup` in its worktree; undefined when it succeeded. */
export async function runSetup(
  run: SetupRun,
  step: GraphStep,
  dir: string,
  command: string,
  scope: SetupScope,
): Promise<AttemptResult | undefined> {
  const render = {
    graph: run.graph,
    step,
    runId: run.runId,
    outputs: scope.outputs,
    statuses: scope.statuses,
    baseEnv: run.baseEnv ?? process.env,
  };
  // Templates in `setup` become environment-variable references, as in `run`.
  const inv = shellInvocation(render, command, stepEnv(render));
  const log = await openStepLog(run.log(step.id), scope.attempt, scope.title);
  try {
    const r = await runProcess({
      argv: inv.argv,
      cwd: dir,
      env: inv.env,
      signal: scope.signal,
      log: log.stream,
      ...(scope.onOutput ? { onOutput: scope.onOutput } : {}),
    });
    if (r.reason === 'exit' && r.exitCode === 0) return undefined;
    const base = { exitCode: r.exitCode, signal: r.signal, durationMs: r.durationMs };
    if (r.reason === 'canceled')
      return { ...base, status: 'canceled', reason: 'canceled', message: 'canceled during setup' };
    return {
      ...base,
      status: 'failed',
      reason: r.reason,
      message: `setup failed (${r.message ?? `exit ${r.exitCode}`}): ${commandLine(command)}`,
    };
  } finally {
    await log.close().catch(() => {});
  }
}
