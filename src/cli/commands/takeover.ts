// `braid attach RUN STEP` and `braid say RUN STEP MESSAGE` (issue 34): a person steps into an agent
// step. A live run's process is asked through the run's `takeover/` folder (takeoverInbox.ts); an
// ended run's step is retried here, its attempt starting as the person's session in its kept
// worktree. Either way the CLI opens on this terminal, and what the folder holds when the person
// leaves it is the attempt's: its check, review and landing as any attempt's.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { personEnv } from '../../core/agents/interactive';
import { AGENT_PERMISSIONS, type AgentPermission } from '../../core/agents/permission';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunRecord } from '../../core/engine/records/runRecord';
import { runIsLive } from '../../core/engine/review/landRecorded';
import { runPlan } from '../../core/engine/runPlan';
import type { Handover } from '../../core/engine/steps/takeover';
import { postTakeover } from '../../core/engine/steps/takeoverInbox';
import { takeoverTarget } from '../../core/engine/takeoverTarget';
import { workspaceForCwd } from '../workspace';

export const TAKEOVER_HELP = `  braid attach RUN-ID STEP [--permission P]    open an agent step's CLI here, in its worktree, continuing its
                                               session (a running step is stopped first, its session kept);
                                               when you leave the CLI, what the worktree holds is the step's
                                               attempt: its check, review and landing as any attempt's
  braid say RUN-ID STEP MESSAGE                a running agent step gets MESSAGE as your next message: claude
                                               while it runs, others stopped and continued in their session
                                               (kept in its log and record)
`;

const isPermission = (v: string): v is AgentPermission => (AGENT_PERMISSIONS as readonly string[]).includes(v);

export interface TakeoverIo {
  out(s: string): void;
  err(s: string): void;
}

/** Thrown for bad usage; main prints it with the help. */
export class TakeoverUsage extends Error {}

/** Runs the handed-over CLI on this terminal; resolves when the person leaves it. */
function openHere(h: Handover, io: TakeoverIo, signal?: AbortSignal): Promise<number | null> {
  if (h.why) io.err(`braid: ${h.why}\n`);
  io.err(
    `braid: ${h.resumed !== undefined ? `continuing session ${h.resumed}` : 'a fresh session'} in ${h.cwd}; leave the CLI to hand the step back\n`,
  );
  // A SIGINT to the terminal's process group (a CLI out of raw mode, a Ctrl-C while it starts) is
  // the CLI's to handle: it must not end this process, which hands the step back when the CLI ends.
  const keep = (): void => undefined;
  process.on('SIGINT', keep);
  return new Promise<number | null>((resolve) => {
    const child = spawn(h.argv[0]!, h.argv.slice(1), {
      cwd: h.cwd,
      env: personEnv(process.env, h.env),
      stdio: 'inherit',
      ...(signal ? { signal } : {}),
    });
    child.on('error', (e) => {
      if (e.name !== 'AbortError') io.err(`braid: could not start ${h.argv[0]}: ${e.message}\n`);
      resolve(null);
    });
    child.on('exit', (code) => resolve(code));
  }).finally(() => process.off('SIGINT', keep));
}

/** Polls the record until the step has left `running` (or the run's process is gone). */
async function stepEnd(store: RunStore, runId: string, id: string): Promise<RunRecord['steps'][string] | undefined> {
  for (;;) {
    const rec = await store.load(runId);
    const s = rec?.steps[id];
    if (!rec || !s || s.status !== 'running' || !runIsLive(rec)) return s;
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function attachCommand(args: string[], io: TakeoverIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, permission: { type: 'string' } },
  });
  const [runId, id] = positionals;
  if (!runId || !id || positionals.length !== 2) throw new TakeoverUsage('attach needs a RUN-ID and a STEP');
  const permission = values.permission;
  if (permission !== undefined && !isPermission(permission))
    throw new TakeoverUsage(`--permission must be one of ${AGENT_PERMISSIONS.join(', ')}, got ${permission}`);
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) {
    io.err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  const target = takeoverTarget(rec, id, 'attach', runIsLive(rec));
  if (!target.ok) {
    io.err(`braid: ${target.message}\n`);
    return 1;
  }
  if (target.how === 'live') {
    const live = (): boolean => runIsLive(rec);
    const posted = await postTakeover(store.paths(runId).dir, { kind: 'attach', step: id, pid: process.pid }, live);
    if (!posted.ok) {
      io.err(`braid: ${posted.message}\n`);
      return 1;
    }
    await openHere(posted.open!, io);
    await posted.open!.done();
    io.err(`braid: ${id} handed back to run ${runId}; its check and landing follow\n`);
    const end = await stepEnd(store, runId, id);
    io.err(`braid: ${id}: ${end?.status ?? 'unknown'}${end?.message ? ` · ${end.message}` : ''}\n`);
    return end?.status === 'succeeded' || end?.status === 'review' ? 0 : 1;
  }
  const outcome = await runPlan({
    planFile: rec.planFile,
    workspace: store.root,
    retry: { runId, steps: [id] },
    resume: true,
    compile: { isGit: true, ...(permission ? { permission } : {}) },
    takeover: {
      step: id,
      takeover: {
        kind: 'attach',
        handover: async (h, signal) => {
          await openHere(h, io, signal);
        },
      },
    },
  });
  if (!outcome.ok) {
    io.err(`braid: ${outcome.usage ?? outcome.diagnostics.map((d) => d.message).join('\n')}\n`);
    return outcome.busy ? 1 : 2;
  }
  const end = outcome.record.steps[id];
  io.err(
    `braid: ${id}: ${end?.status ?? 'unknown'}${end?.message ? ` · ${end.message}` : ''}; run ${runId} ${outcome.result.status}\n`,
  );
  return outcome.result.status === 'succeeded' ? 0 : 1;
}

export async function sayCommand(args: string[], io: TakeoverIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' } },
  });
  const [runId, id, message] = positionals;
  if (!runId || !id || message === undefined || positionals.length !== 3)
    throw new TakeoverUsage('say needs a RUN-ID, a STEP and a MESSAGE (quoted)');
  if (message.trim() === '') throw new TakeoverUsage('say needs a MESSAGE that is not empty');
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) {
    io.err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  const target = takeoverTarget(rec, id, 'say', runIsLive(rec));
  if (!target.ok) {
    io.err(`braid: ${target.message}\n`);
    return 1;
  }
  const posted = await postTakeover(store.paths(runId).dir, { kind: 'say', step: id, message }, () => runIsLive(rec));
  if (!posted.ok) {
    io.err(`braid: ${posted.message}\n`);
    return 1;
  }
  io.err(`braid: said to ${id}; it gets your message as its next one\n`);
  return 0;
}
