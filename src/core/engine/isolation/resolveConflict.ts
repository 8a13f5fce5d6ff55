// `on-conflict: resolve` (and `braid resolve`): one attempt that answers a conflict. What landed in
// the workspace meanwhile is merged into the step's own worktree, markers left there
// (conflictMerge.ts); the step's agent runs again in that worktree, told the files and who changed
// them; then its `check`; then the resolved change lands as any change does. A resolution that
// fails, leaves markers or still cannot land ends `conflict`, its worktree kept.
import { existsSync } from 'node:fs';
import type { GraphStep } from '../../plan/types';
import type { AttemptContext, AttemptResult, Resolving } from '../types';
import { changedBy, filesWithMarkers, mergeWorkspaceIn } from './conflictMerge';
import { commitWorktree, createWorktree, worktreePath } from './worktree';
import { recordChange, type ChangeRecord } from '../records/changeRecord';

/** A committed change waiting to land, and the attempt result it lands with. */
export interface Landing {
  readonly step: GraphStep;
  readonly result: AttemptResult;
  readonly base: string;
  readonly commit: string;
  readonly attempt: number;
}

/** What of the worktree isolator a resolution uses. */
export interface ResolveHost {
  readonly root: string;
  readonly runId: string;
  /** The change of the step that could not land, while this process holds it. */
  pending(stepId: string): Landing | undefined;
  /** The attempt begins: nothing of the last one's landing speaks for it. */
  begin(stepId: string): void;
  workspaceNow(): Promise<{ ok: true; sha: string } | { ok: false; message: string }>;
  /** Each step's landed change (this run's, and an ended run's before this process), but `except`'s own. */
  landedChanges(except: string): ReadonlyMap<string, ChangeRecord>;
  recorded(stepId: string, change: ChangeRecord): void;
  /** The step's worktree stays for the user. */
  keep(stepId: string, r: AttemptResult): AttemptResult;
  /** Lands the resolved change (or holds it for review); canceled while waiting for locks: a canceled result. */
  land(p: Landing, signal: AbortSignal): Promise<AttemptResult>;
}

/** The resolution attempt (see the file comment). */
export async function resolveInWorktree(
  host: ResolveHost,
  ctx: AttemptContext,
  body: (dir: string, resolving: Resolving) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const { step } = ctx;
  const started = Date.now();
  const conflict = (message: string, r?: Partial<AttemptResult>): AttemptResult =>
    host.keep(step.id, {
      exitCode: null,
      signal: null,
      ...r,
      status: 'conflict',
      reason: 'conflict',
      message,
      durationMs: Date.now() - started,
    });
  const held = host.pending(step.id);
  const change = held ? { base: held.base, commit: held.commit } : ctx.conflict?.change;
  if (!change) return conflict('nothing to resolve: the change that conflicted is not recorded');
  host.begin(step.id);
  const path = worktreePath(host.root, host.runId, step.id);
  if (!existsSync(path)) {
    // Cleaned meanwhile (`braid clean`): the recorded change is enough to start from.
    const wt = await createWorktree({
      root: host.root,
      runId: host.runId,
      stepId: step.id,
      base: change.commit,
      sparse: step.sparse,
      copy: step.copy,
      symlink: step.symlink,
    });
    if (!wt.ok) return conflict(`could not make a worktree to resolve in: ${wt.message}`);
  }
  const now = await host.workspaceNow();
  if (!now.ok) return conflict(`could not snapshot the workspace to resolve against: ${now.message}`);
  const m = await mergeWorkspaceIn({ worktree: path, base: change.base, commit: change.commit, workspace: now.sha });
  if (!m.ok) return conflict(m.message);
  // BRAID_CONFLICT_FILES is one path a line: a name holding a line break would read as two (mergeBack refuses such names too).
  const odd = m.files.find((f) => /[\n\r]/.test(f));
  if (odd !== undefined) return conflict(`a file name with a line break is not supported: ${JSON.stringify(odd)}`);
  const resolving: Resolving = {
    files: m.files,
    changedBy: changedBy(m.files, host.landedChanges(step.id)),
    ...(ctx.conflict?.agent !== undefined ? { agent: ctx.conflict.agent } : {}),
    ...(ctx.conflict?.sessionId !== undefined ? { sessionId: ctx.conflict.sessionId } : {}),
  };
  const r = await body(path, resolving);
  if (r.status === 'canceled') return host.keep(step.id, r);
  if (r.status !== 'succeeded') return conflict(`the resolution failed: ${r.message ?? r.reason ?? r.status}`, r);
  const left = await filesWithMarkers(path, m.files);
  if (left.length > 0) return conflict(`the resolution left conflict markers in ${left.join(', ')}`, r);
  const c = await commitWorktree({
    worktree: path,
    message: `braid: ${step.id}, resolved (run ${host.runId})`,
    summary: true,
  });
  const rec = await recordChange({
    root: host.root,
    runId: host.runId,
    stepId: step.id,
    base: m.start,
    commit: c.sha,
    ...(c.files ? { files: c.files } : {}),
  });
  host.recorded(step.id, rec);
  const resolved =
    m.files.length > 0
      ? `resolved the conflict in ${m.files.join(', ')}`
      : 'merged what landed meanwhile, with no conflict';
  return host.land(
    { step, result: { ...r, message: resolved }, base: m.start, commit: c.sha, attempt: ctx.attempt },
    ctx.signal,
  );
}
