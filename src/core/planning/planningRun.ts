// One run of a planning agent (a drafter or a judge): its argv from the agent definition with the
// prompt as one argument or on stdin (never shell source), readable lines as they come, a
// heartbeat while it is silent, and what it said at the end.
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { agentInvocation } from '../agents/invocation';
import { createAgentStream } from '../agents/streams/createStream';
import type { AgentSummary, ParsedLine } from '../agents/streams/types';
import { runProcess, type ProcessResult, type SpawnSpec } from '../exec/process';
import type { AgentDef } from '../agents/agentDef';

const DEFAULT_TIMEOUT_MS = 20 * 60_000;
export const DEFAULT_HEARTBEAT_MS = 15_000;
const STDERR_TAIL = 4096;
const STDOUT_KEPT = 256 * 1024;

export interface PlanningRunOptions {
  readonly agent: AgentDef;
  readonly prompt: string;
  readonly workspace: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly heartbeatMs?: number;
  readonly runAgent?: (spec: SpawnSpec) => Promise<ProcessResult>;
  /** Each readable line, as it arrives. */
  readonly onLine?: (line: ParsedLine) => void;
  /** No output for `quietMs`; every heartbeat while the agent stays silent. */
  readonly onWaiting?: (elapsedMs: number, quietMs: number) => void;
}

export interface PlanningRun {
  readonly result: ProcessResult;
  readonly summary: AgentSummary;
  /** The last 4 KiB of stderr. */
  readonly stderr: string;
  /** What the agent answered: its final text (event-stream agents), else its stdout (the first 256 KiB). */
  readonly answer: string;
}

/** Runs `agent` once on `prompt` in `workspace`. */
export async function runPlanningAgent(o: PlanningRunOptions): Promise<PlanningRun> {
  // Only `${{ prompt }}` means something in a planning agent's command; other text stays as written.
  const inv = agentInvocation(o.agent, (t) => t, o.prompt);
  const stream = createAgentStream(o.agent.format);
  const emit = (lines: readonly ParsedLine[]): void => {
    for (const line of lines) o.onLine?.(line);
  };
  let stderr = '';
  let stdout = '';
  let partial = '';
  const started = performance.now();
  let lastOutput = started;
  const every = o.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const heartbeat = o.onWaiting
    ? setInterval(() => {
        const now = performance.now();
        const quietMs = now - lastOutput;
        if (quietMs >= every) o.onWaiting!(Math.round(now - started), Math.round(quietMs));
      }, every)
    : undefined;
  heartbeat?.unref();
  const spec: SpawnSpec = {
    argv: inv.argv,
    cwd: inv.cwd !== undefined ? resolve(o.workspace, inv.cwd) : o.workspace,
    env: { ...o.env, ...inv.env },
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}),
    ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    onOutput(which, text) {
      lastOutput = performance.now();
      if (which === 'stdout') {
        if (stdout.length < STDOUT_KEPT) stdout += text.slice(0, STDOUT_KEPT - stdout.length);
        emit(stream.push(text));
        return;
      }
      stderr = (stderr + text).slice(-STDERR_TAIL);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      emit(lines.filter((l) => l.trim() !== '').map((text) => ({ kind: 'raw' as const, text })));
    },
  };
  let result: ProcessResult;
  try {
    result = await (o.runAgent ?? runProcess)(spec);
  } finally {
    clearInterval(heartbeat);
  }
  emit(stream.end());
  if (partial.trim() !== '') emit([{ kind: 'raw', text: partial }]);
  const summary = stream.summary;
  return { result, summary, stderr, answer: summary.finalText ?? stdout };
}
