// Worktree isolation for a run: each `worktree` step attempt gets its own git worktree from the
// run's base (plus its needs' results), runs there, and on success its change is committed and
// merged back into the workspace. The scheduler holds the step's locks for the whole attempt, so
// the merge-back runs under its write locks. Clean-up never loses work: succeeded and canceled
// attempts' worktrees go, failed and conflicted ones stay for the user (`braid clean`).
import { relative, resolve } from 'node:path';
import type { Graph } from '../plan/types';
import type { Isolator } from './executor';
import { mergeBack } from './mergeBack';
import { runProcess, shellArgv } from './process';
import { stepEnv } from './render';
import { openStepLog } from './stepLog';
import type { AttemptContext, AttemptResult } from './types';
import {
  commitWorktree, createWorktree, mergeNeeds, pruneWorktrees, removeWorktree, snapshotBase, worktreeBranch, worktreePath,
} from './worktree';

export interface WorktreeIsolatorOptions {
  /** The workspace: a git repository's top level. */
  readonly root: string;
  readonly runId: string;
  readonly graph: Graph;
  /** The step's log file, where a `setup` command's output goes. */
  log(stepId: string): string;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

type Base = { ok: true; sha: string } | { ok: false; message: string };

// Merge-backs into one workspace, one at a time within this process: steps without `writes` take
// no lock, and two of their merges must not interleave their reads and renames.
const mergeChains = new Map<string, Promise<unknown>>();
function serially<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const key = resolve(root);
  const next = (mergeChains.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = next.catch(() => undefined);
  mergeChains.set(key, tail);
  void tail.then(() => { if (mergeChains.get(key) === tail) mergeChains.delete(key); });
  return next;
}

export class WorktreeIsolator implements Isolator {
  private base: Promise<Base> | undefined;
  /** Each succeeded step's result commit, which its dependents' worktrees merge in. */
  private readonly results = new Map<string, string>();
  private readonly kept = new Map<string, string>();

  constructor(private readonly o: WorktreeIsolatorOptions) {}

  /** Run start: drops orphan worktree registrations, rolls back half-done merges, takes the base. */
  async start(): Promise<void> {
    await pruneWorktrees(this.o.root);
    // Awaited: the base is the workspace as it was when the run began, not when a step starts.
    const base = await snapshotBase(this.o.root, this.o.graph.plan.base);
    this.base = Promise.resolve(base);
  }

  /** Workspace-relative path of the step's worktree if its last attempt left one for the user. */
  keptWorktree(stepId: string): string | undefined {
    const p = this.kept.get(stepId);
    return p === undefined ? undefined : relative(this.o.root, p).split('\\').join('/');
  }

  async around(ctx: AttemptContext, body: (dir: string) => Promise<AttemptResult>): Promise<AttemptResult> {
    const { step } = ctx;
    const started = Date.now();
    const end = (status: AttemptResult['status'], reason: AttemptResult['reason'], message: string): AttemptResult =>
      ({ status, exitCode: null, signal: null, reason, message, durationMs: Date.now() - started });
    const canceled = (): AttemptResult => end('canceled', 'canceled', 'canceled');
    this.kept.delete(step.id);
    this.results.delete(step.id);
    const path = worktreePath(this.o.root, this.o.runId, step.id);
    let made = false;
    try {
      const start = await this.startOf(ctx);
      if (!start.ok) return end('failed', 'spawn-failed', start.message);
      // An earlier attempt's (or, on `braid retry`, an earlier run's) worktree of this step.
      await this.remove(step.id);
      if (ctx.signal.aborted) return canceled();
      const create = (sha: string) => createWorktree({
        root: this.o.root, runId: this.o.runId, stepId: step.id, base: sha,
        sparse: step.sparse, copy: step.copy, symlink: step.symlink,
      });
      let wt = await create(start.sha);
      if (!wt.ok) return end('failed', 'spawn-failed', wt.message);
      made = true;
      let head = start.sha;
      if (start.merge.length > 0) {
        const m = await mergeNeeds({ worktree: wt.path, commits: start.merge });
        if (m.ok) head = m.head;
        else {
          // The needs' results did merge into the workspace, one after the other (each 3-way
          // against what was there): the workspace as it is now holds them all.
          await this.remove(step.id);
          made = false;
          const fresh = await this.freshSnapshot(step.needs.filter((n) => ctx.statuses.get(n) === 'succeeded'));
          if (!fresh.ok) return end('failed', 'spawn-failed', fresh.message);
          wt = await create(fresh.sha);
          if (!wt.ok) return end('failed', 'spawn-failed', wt.message);
          made = true;
          head = fresh.sha;
        }
      }
      if (ctx.signal.aborted) return await this.drop(step.id, canceled());
      if (step.setup) {
        const s = await this.setup(ctx, wt.path, step.setup);
        if (s) return s.status === 'canceled' ? await this.drop(step.id, s) : this.keep(step.id, path, s);
        // What set-up changed (a generated file) is preparation, not the step's change.
        head = (await commitWorktree({ worktree: wt.path, message: `braid: set-up of ${step.id}` })).sha;
      }
      const r = await body(wt.path);
      if (r.status === 'canceled') return await this.drop(step.id, r);
      if (r.status !== 'succeeded') return this.keep(step.id, path, r);
      const c = await commitWorktree({ worktree: wt.path, message: `braid: ${step.id} (run ${this.o.runId})` });
      // A worktree step without `writes` may change anything: its whole tree is its set.
      const writes = step.writes.length > 0 ? step.writes : ['**'];
      const m = await serially(this.o.root, () => mergeBack({ root: this.o.root, base: head, result: c.sha, writes }));
      if (!m.ok) {
        const status = m.kind === 'conflict' ? 'conflict' : 'failed';
        return this.keep(step.id, path, { ...r, status, reason: m.kind, message: m.message });
      }
      this.results.set(step.id, c.sha);
      return await this.drop(step.id, r);
    } catch (e) {
      const msg = `worktree isolation failed: ${(e as Error).message}`;
      return made ? this.keep(step.id, path, end('failed', 'spawn-failed', msg)) : end('failed', 'spawn-failed', msg);
    }
  }

  /**
   * Where the step's worktree starts: the run's base plus its needs' result commits. A need that
   * succeeded without a commit here (a shared step, or one kept from an earlier run) left its
   * change in the workspace only, so then the start is a fresh snapshot of the workspace.
   */
  private async startOf(ctx: AttemptContext): Promise<{ ok: true; sha: string; merge: string[] } | { ok: false; message: string }> {
    this.base ??= snapshotBase(this.o.root, this.o.graph.plan.base);
    const base = await this.base;
    if (!base.ok) return base;
    const done = ctx.step.needs.filter((n) => ctx.statuses.get(n) === 'succeeded');
    if (done.some((n) => !this.results.has(n))) {
      const fresh = await this.freshSnapshot(done);
      return fresh.ok ? { ok: true, sha: fresh.sha, merge: [] } : fresh;
    }
    const merge = [...new Set(done.map((n) => this.results.get(n)!))].filter((c) => c !== base.sha);
    return { ok: true, sha: base.sha, merge };
  }

  /**
   * The workspace as it is now, with the files the needs may have created: merge-backs and shared
   * steps leave new files untracked, which a snapshot of tracked files alone would miss.
   */
  private freshSnapshot(needs: readonly string[]) {
    const sets = needs.map((n) => this.o.graph.steps.get(n)!.writes);
    return snapshotBase(this.o.root, undefined, sets.some((w) => w.length === 0) ? 'all' : sets.flat());
  }

  /** Runs the step's `setup` in its new worktree; undefined when it succeeded. */
  private async setup(ctx: AttemptContext, dir: string, command: string): Promise<AttemptResult | undefined> {
    const { step } = ctx;
    const env = stepEnv({
      graph: this.o.graph, step, runId: this.o.runId, outputs: ctx.outputs, statuses: ctx.statuses, baseEnv: this.o.baseEnv ?? process.env,
    });
    const log = await openStepLog(this.o.log(step.id), ctx.attempt, `${step.name} · setup: ${command}`);
    try {
      const r = await runProcess({ argv: shellArgv(command), cwd: dir, env, signal: ctx.signal, log: log.stream, onOutput: ctx.onOutput });
      if (r.reason === 'exit' && r.exitCode === 0) return undefined;
      const base = { exitCode: r.exitCode, signal: r.signal, durationMs: r.durationMs };
      if (r.reason === 'canceled') return { ...base, status: 'canceled', reason: 'canceled', message: 'canceled during setup' };
      return { ...base, status: 'failed', reason: r.reason, message: `setup failed (${r.message ?? `exit ${r.exitCode}`}): ${command}` };
    } finally {
      await log.close().catch(() => {});
    }
  }

  private keep(stepId: string, path: string, r: AttemptResult): AttemptResult {
    this.kept.set(stepId, path);
    return r;
  }

  private async drop(stepId: string, r: AttemptResult): Promise<AttemptResult> {
    await this.remove(stepId);
    return r;
  }

  private remove(stepId: string): Promise<void> {
    return removeWorktree({
      root: this.o.root, path: worktreePath(this.o.root, this.o.runId, stepId), branch: worktreeBranch(this.o.runId, stepId),
    });
  }
}
