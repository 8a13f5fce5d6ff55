// Worktree isolation for a run: each `worktree` step attempt gets its own git worktree from the
// run's base (plus its needs' results), runs there, and on success its change is committed and
// merged back into the workspace. The step takes its write locks (through `mergeLocks`, the gate
// shared steps lock through) only around its merge-back: overlapping worktree steps work side by
// side in their own trees, and only their landings, and shared steps writing there, take turns.
// Without `mergeLocks` the scheduler is taken to hold the step's locks for the whole attempt.
// Clean-up never loses work: succeeded and canceled attempts' worktrees go, failed, conflicted and budget-stopped
// ones stay for the user (`braid clean`). Every committed change is recorded (changeRecord.ts);
// a `review: true` step's waits, its worktree kept, until `land` (approve) or `reject`, and a
// conflicted one can `land` again (`braid merge`) without running the step again. An alternative
// of a best-of step asks `settle` before it lands, lands as its step, and its tree goes only once
// the race settled (`release`); every alternative's change is recorded under its own id
// (`refs/braid/runs/<run>/<step>.alt<i>`), a loser's or a failed one's as its tree was when it ended.
// A step's worktree may also be prepared ahead (`prepare`, driven by prepareAhead.ts; preparedTrees.ts): made from
// the run's base and set up while its needs still run, so its attempt only merges their results.
import { existsSync, rmSync } from 'node:fs';
import { git } from '../../exec/git';
import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Graph, GraphStep } from '../../plan/types';
import type { Isolator } from '../steps/executor';
import { acquireWhenFree } from '../locks/lockGate';
import { KeyedChain } from '../../keyedChain';
import { mergeBack } from './mergeBack';
import { recordChange, type ChangeRecord } from '../records/changeRecord';
import type { LockGate } from '../scheduling/schedulerOptions';
import type { AttemptContext, AttemptResult } from '../types';
import {
  commitWorktree,
  createWorktree,
  mergeNeeds,
  pruneWorktrees,
  removeWorktree,
  snapshotBase,
  worktreeBranch,
  worktreePath,
} from './worktree';
import { ignoredWrites } from './ignoredWrites';
import { PreparedTrees, type Base } from './preparedTrees';
import { runSetup } from './setupCommand';
import { resolveInWorktree, type Landing, type ResolveHost } from './resolveConflict';
import type { Resolving } from '../types';

export interface WorktreeIsolatorOptions {
  /** The workspace: a git repository's top level. */
  readonly root: string;
  readonly runId: string;
  readonly graph: Graph;
  /** The step's log file, where a `setup` command's output goes. */
  log(stepId: string): string;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Where a step's merge-back marks that it landed (its commit point, applyChanges.ts), so a run
   * killed right after it is recovered as succeeded, not run again (RunStore.markInterrupted).
   */
  landed?(stepId: string): string;
  /** Where merge-backs take their write locks; the scheduler must then start worktree steps without them. */
  /** Changes steps landed before this process ran the run (`braid resolve` of an ended run): whom a conflict names. */
  readonly landedBefore?: ReadonlyMap<string, ChangeRecord>;
  readonly mergeLocks?: {
    readonly gate: LockGate;
    /** The step's merge-back waits for `wait.holder` (once each holder); undefined: the wait is over (granted or canceled). */
    onWait(stepId: string, wait: { readonly holder: string; readonly paths: readonly string[] } | undefined): void;
  };
  /**
   * `braid attach` on an ended run: the step's next attempt continues in the worktree its last one
   * kept (the session the person resumes worked there), its change taken from `base` (a committed
   * change's own base), else from the tree's HEAD.
   */
  readonly adopt?: { readonly stepId: string; readonly base?: string };
}

/** A step's committed change, not landed yet, and the attempt result it lands with. */
interface PendingLanding extends Landing {
  readonly path: string;
}

// Merge-backs into one workspace, one at a time within this process: steps without `writes` take
// no lock, and two of their merges must not interleave their reads and renames.
const merges = new KeyedChain();
const serially = <T>(root: string, fn: () => Promise<T>): Promise<T> => merges.run(resolve(root), fn);

export class WorktreeIsolator implements Isolator {
  private base: Promise<Base> | undefined;
  /** Each succeeded step's result commit, which its dependents' worktrees merge in. */
  private readonly results = new Map<string, string>();
  private readonly kept = new Map<string, string>();
  private readonly changes = new Map<string, ChangeRecord>();
  /** Committed changes not landed yet: steps in `review`, and `conflict` steps (for a merge again). */
  private readonly pending = new Map<string, PendingLanding>();
  private readonly prepared: PreparedTrees;
  /** Steps whose first attempt began: a preparation for them comes too late. */
  private readonly attempted = new Set<string>();
  private readonly removing = new Set<Promise<void>>();
  private adopt: WorktreeIsolatorOptions['adopt'];

  constructor(private readonly o: WorktreeIsolatorOptions) {
    this.adopt = o.adopt;
    this.prepared = new PreparedTrees({
      root: o.root,
      runId: o.runId,
      graph: o.graph,
      log: (stepId) => o.log(stepId),
      ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}),
      base: () => this.baseOf(),
      remove: (stepId) => this.remove(stepId),
    });
  }

  /** Run start: drops orphan worktree registrations, rolls back half-done merges, takes the base. */
  async start(): Promise<void> {
    await pruneWorktrees(this.o.root);
    // Awaited: the base is the workspace as it was when the run began, not when a step starts.
    const base = await snapshotBase(this.o.root, this.o.graph.plan.base);
    this.base = Promise.resolve(base);
  }

  /** The absolute path of the step's worktree if its last attempt left one for the user (outside the workspace). */
  keptWorktree(stepId: string): string | undefined {
    return this.kept.get(stepId);
  }

  /**
   * Makes the step's worktree ahead of its attempt, while its needs still run: from the run's base,
   * with its copy, links, sparse cone and `setup` (the slow part). True when a tree is ready; false
   * when the step is not prepared (its attempt began, a worktree an earlier attempt kept for the
   * user is there, its setup's environment renders its needs' outputs) or preparing failed. Either
   * way nothing is lost: the attempt then makes its worktree itself, as without this.
   */
  async prepare(stepId: string): Promise<boolean> {
    const step = this.o.graph.steps.get(stepId);
    if (!step || step.bestOf || step.isolation !== 'worktree' || this.attempted.has(stepId)) return false;
    return this.prepared.prepare(step);
  }

  /** The kept worktree `adopt` names, once, as the attempt's tree; undefined when there is none. */
  private async adopted(stepId: string, path: string): Promise<{ path: string; head: string } | undefined> {
    const a = this.adopt;
    if (a?.stepId !== stepId || !existsSync(path)) return undefined;
    this.adopt = undefined;
    const head = a.base ?? (await git(['rev-parse', 'HEAD'], { cwd: path })).stdout.trim();
    return head ? { path, head } : undefined;
  }

  /** Removes the step's prepared worktree unless an attempt took it (the step was skipped or canceled, or the run ended). */
  discard(stepId: string): Promise<void> {
    return this.prepared.discard(stepId);
  }

  async around(
    ctx: AttemptContext,
    body: (dir: string, resolving?: Resolving) => Promise<AttemptResult>,
  ): Promise<AttemptResult> {
    const { step } = ctx;
    if (ctx.conflict?.mode === 'resolve') return resolveInWorktree(this.resolveHost, ctx, body);
    const started = Date.now();
    const end = (
      status: AttemptResult['status'],
      reason: NonNullable<AttemptResult['reason']>,
      message: string,
    ): AttemptResult => ({
      status,
      exitCode: null,
      signal: null,
      reason,
      message,
      durationMs: Date.now() - started,
    });
    const canceled = (): AttemptResult => end('canceled', 'canceled', 'canceled');
    // An alternative's tree goes only once the race is settled (release): the winner's merge-back
    // then never competes with the losers' clean-up, and the step's end never waits for it.
    const dropTree = (r: AttemptResult): Promise<AttemptResult> =>
      step.alternative ? Promise.resolve(this.keep(step.id, path, r)) : this.drop(step.id, r);
    this.kept.delete(step.id);
    this.results.delete(step.id);
    this.changes.delete(step.id);
    this.pending.delete(step.id);
    this.attempted.add(step.id);
    // An earlier attempt's mark would speak for this one.
    if (this.o.landed) rmSync(this.o.landed(step.id), { force: true });
    const prepared = this.prepared.take(step.id);
    const path = worktreePath(this.o.root, this.o.runId, step.id);
    let made = false;
    try {
      // `on-conflict: rerun`: the step again, on the workspace as it is now (what landed meanwhile included).
      const start = ctx.conflict?.mode === 'rerun' ? await this.workspaceNow() : await this.startOf(ctx);
      if (!start.ok) {
        if (prepared) await this.prepared.drop(step.id, prepared);
        return end('failed', 'spawn-failed', start.message);
      }
      let tree = prepared ? await this.prepared.adopt(prepared, start, ctx) : await this.adopted(step.id, path);
      const setUp = tree !== undefined;
      if (tree) made = true;
      else {
        // An earlier attempt's (or, on `braid retry`, an earlier run's) worktree of this step.
        await this.remove(step.id);
        if (ctx.signal.aborted) return canceled();
        const create = (sha: string) =>
          createWorktree({
            root: this.o.root,
            runId: this.o.runId,
            stepId: step.id,
            base: sha,
            sparse: step.sparse,
            copy: step.copy,
            symlink: step.symlink,
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
            const fresh = await this.freshSnapshot();
            if (!fresh.ok) return end('failed', 'spawn-failed', fresh.message);
            wt = await create(fresh.sha);
            if (!wt.ok) return end('failed', 'spawn-failed', wt.message);
            made = true;
            head = fresh.sha;
          }
        }
        tree = { path: wt.path, head };
      }
      let head = tree.head;
      const work = tree.path;
      // An alternative's work is recorded however it ended (a loser canceled mid-way, a failed
      // one), before its tree can go: every alternative's change can be looked at (`braid diff --alternative`).
      const unfinished = async (r: AttemptResult): Promise<AttemptResult> => {
        if (step.alternative) await this.recordUnfinished(step, work, head).catch(() => {});
        return r;
      };
      if (ctx.signal.aborted) return await dropTree(canceled());
      if (step.setup && !setUp) {
        const s = await runSetup(this.o, step, tree.path, step.setup, {
          ...ctx,
          title: `${step.name} · setup: ${step.setup}`,
        });
        if (s) return s.status === 'canceled' ? await dropTree(s) : this.keep(step.id, path, s);
        // What set-up changed (a generated file) is preparation, not the step's change.
        head = (await commitWorktree({ worktree: tree.path, message: `braid: set-up of ${step.id}` })).sha;
      }
      const bodyStarted = Date.now() - 1000; // mtimes are coarse on some file systems
      let r = await body(tree.path);
      // Stopped at a budget: what it did so far cost money, and stays in its worktree for a look or a retry.
      if (r.status === 'canceled' && ctx.signal.reason !== 'budget') return await dropTree(await unfinished(r));
      if (r.status !== 'succeeded') return this.keep(step.id, path, await unfinished(r));
      const extra = await ignoredWrites(tree.path, step.writes, bodyStarted);
      if (extra.notLanded.length > 0) {
        const note = `did not land: ${extra.notLanded.join('; ')}`;
        r = { ...r, message: r.message ? `${r.message}; ${note}` : note };
        await appendFile(this.o.log(step.id), `──── ${note} ────\n`).catch(() => {});
      }
      const { sha, change } = await this.commitChange(
        step,
        tree.path,
        head,
        `braid: ${step.id} (run ${this.o.runId})`,
        extra.land,
      );
      // An alternative of a best-of step lands only if it wins (alternatives.ts); a loser's tree goes.
      if (ctx.settle && !(await ctx.settle(r)))
        return await dropTree({ ...r, status: 'canceled', reason: 'canceled', message: 'another alternative won' });
      const pending: PendingLanding = { step, result: r, base: head, commit: sha, path, attempt: ctx.attempt };
      // Nothing changed: nothing to look at before it lands. (A best-of step's winner waits as its step.)
      if (step.review && change.files.length > 0) {
        this.pending.set(step.id, pending);
        return this.keep(step.id, path, { ...r, status: 'review' });
      }
      const landed = await this.landPending(pending, ctx.signal, true);
      return landed ?? (await dropTree(canceled()));
    } catch (e) {
      const msg = `worktree isolation failed: ${(e as Error).message}`;
      return made ? this.keep(step.id, path, end('failed', 'spawn-failed', msg)) : end('failed', 'spawn-failed', msg);
    }
  }

  /** Commits an alternative's tree as its attempt left it and records that as its change. */
  private async recordUnfinished(step: GraphStep, tree: string, head: string): Promise<void> {
    await this.commitChange(step, tree, head, `braid: ${step.id}, as it ended (run ${this.o.runId})`);
  }

  /** Commits `tree` over `head` and records that commit as the step's change (what review and revert see). */
  private async commitChange(step: GraphStep, tree: string, head: string, message: string, force?: readonly string[]) {
    const c = await commitWorktree({
      worktree: tree,
      message,
      ...(force !== undefined ? { force } : {}),
      summary: true,
    });
    const change = await recordChange({
      root: this.o.root,
      runId: this.o.runId,
      stepId: step.id,
      base: head,
      commit: c.sha,
      ...(c.files ? { files: c.files } : {}),
    });
    this.changes.set(step.id, change);
    return { sha: c.sha, change };
  }

  /** The change the step's last attempt committed (recorded before the attempt's result is returned). */
  changeOf(stepId: string): ChangeRecord | undefined {
    return this.changes.get(stepId);
  }

  /**
   * Lands the change of a step in `review` (its approval), or of a `conflict` step again onto the
   * workspace as it is now (`braid merge`): a merge-back under its write locks, as at the end of
   * its attempt. Undefined when the step has no change waiting here; `signal` aborts a lock wait.
   */
  async land(stepId: string, signal: AbortSignal): Promise<AttemptResult | undefined> {
    // A best-of step's change waiting here is its winner's (whose merge-back conflicted).
    const pending =
      this.pending.get(stepId) ?? [...this.pending.values()].find((p) => p.step.alternative?.of === stepId);
    if (!pending) return undefined;
    const started = Date.now();
    const landed = await this.landPending(pending, signal, false);
    return (
      landed ?? {
        ...pending.result,
        status: 'canceled',
        reason: 'canceled',
        message: 'canceled while waiting for its locks to land',
        durationMs: Date.now() - started,
      }
    );
  }

  /** A rejected step's change does not land; its worktree stays for the user. */
  reject(stepId: string): void {
    this.pending.delete(stepId);
    for (const [id, p] of this.pending) if (p.step.alternative?.of === stepId) this.pending.delete(id);
  }

  /** The merge-back of a committed change (`inAttempt`: at the end of its attempt); undefined when canceled while waiting for its locks. */
  private async landPending(
    p: PendingLanding,
    signal: AbortSignal,
    inAttempt: boolean,
  ): Promise<AttemptResult | undefined> {
    const step = p.step;
    // A best-of step's winner lands as the step: its mark and its result (which dependents merge in) are the step's.
    const as = step.alternative?.of ?? step.id;
    // A worktree step without `writes` may change anything: its whole tree is its set.
    const writes = step.writes.length > 0 ? step.writes : ['**'];
    const lock = await this.mergeLock(step, writes, signal);
    if (!lock) return undefined;
    let m: Awaited<ReturnType<typeof mergeBack>>;
    try {
      // The landing's durable mark (records/landed): a crash after it finishes the merge on recovery, never re-runs the step.
      const landed = this.o.landed
        ? { file: this.o.landed(as), record: { run: this.o.runId, step: as, attempt: p.attempt, result: p.commit } }
        : undefined;
      m = await serially(this.o.root, () =>
        mergeBack({ root: this.o.root, base: p.base, result: p.commit, writes, ...(landed ? { landed } : {}) }),
      );
    } finally {
      lock.release();
    }
    if (!m.ok) {
      const status = m.kind === 'conflict' ? 'conflict' : 'failed';
      // Kept for `braid merge` (a lost race with the user's save is no reason to run it again).
      this.pending.set(step.id, p);
      return this.keep(step.id, p.path, {
        ...p.result,
        status,
        reason: m.kind,
        message: m.message,
        ...(m.kind === 'conflict' ? { conflictPaths: m.paths } : {}),
      });
    }
    this.pending.delete(step.id);
    this.results.set(as, p.commit);
    const r: AttemptResult = { ...p.result, status: 'succeeded' };
    // An alternative's tree goes once the race settled (release), never while its step ends.
    if (step.alternative && inAttempt) return this.keep(step.id, p.path, r);
    this.kept.delete(step.id);
    return await this.drop(step.id, r);
  }

  /** Removes, in the background, what attempts of these steps kept (a best-of step's alternatives, once it settled); `idle` waits for it. */
  release(stepIds: readonly string[]): void {
    for (const id of stepIds) {
      // A winner whose change waits in `review` keeps its tree until it is decided (`land` removes it).
      if (this.pending.has(id) || !this.kept.delete(id)) continue;
      const p = this.remove(id)
        .catch(() => {})
        .finally(() => this.removing.delete(p));
      this.removing.add(p);
    }
  }

  /** Resolves once every removal `release` began has ended (the run's end waits for it). */
  async idle(): Promise<void> {
    while (this.removing.size > 0) await Promise.all([...this.removing]);
  }

  /** The step's write locks for its merge-back, waited for; undefined when the attempt is canceled meanwhile. */
  private async mergeLock(
    step: GraphStep,
    writes: readonly string[],
    signal: AbortSignal,
  ): Promise<{ release(): void } | undefined> {
    const locks = this.o.mergeLocks;
    if (!locks) return { release: () => {} };
    // Only what lands is locked: its reads were of its own tree.
    let waited = false;
    const got = await acquireWhenFree(locks.gate, { ...step, writes, reads: [] }, signal, (holder, paths) => {
      waited = true;
      locks.onWait(step.id, { holder, paths });
    });
    if (waited) locks.onWait(step.id, undefined);
    return got.ok ? got : undefined;
  }

  /** The run's base: taken at `start`, or by the first preparation or attempt when none ran. */
  private baseOf(): Promise<Base> {
    this.base ??= snapshotBase(this.o.root, this.o.graph.plan.base);
    return this.base;
  }

  /**
   * Where the step's worktree starts: the run's base plus its needs' result commits. A need that
   * succeeded without a commit here (a shared step, or one kept from an earlier run) left its
   * change in the workspace only, so then the start is a fresh snapshot of the workspace.
   */
  private async startOf(
    ctx: AttemptContext,
  ): Promise<{ ok: true; sha: string; merge: string[] } | { ok: false; message: string }> {
    const base = await this.baseOf();
    if (!base.ok) return base;
    const done = ctx.step.needs.filter((n) => ctx.statuses.get(n) === 'succeeded');
    if (done.some((n) => !this.results.has(n))) {
      const fresh = await this.freshSnapshot();
      return fresh.ok ? { ok: true, sha: fresh.sha, merge: [] } : fresh;
    }
    const merge = [...new Set(done.map((n) => this.results.get(n)!))].filter((c) => c !== base.sha);
    return { ok: true, sha: base.sha, merge };
  }

  /** A snapshot of the workspace as it is now, as `git add -A` sees it. */
  workspaceNow(): Promise<{ ok: true; sha: string; merge: string[] } | { ok: false; message: string }> {
    return snapshotBase(this.o.root).then((s) => (s.ok ? { ...s, merge: [] } : s));
  }

  /** What a resolution (resolveConflict.ts) uses of this isolator. */
  private get resolveHost(): ResolveHost {
    return {
      root: this.o.root,
      runId: this.o.runId,
      pending: (id) => this.pending.get(id),
      begin: (id) => {
        this.attempted.add(id);
        this.kept.delete(id);
        if (this.o.landed) rmSync(this.o.landed(id), { force: true });
      },
      workspaceNow: () => this.workspaceNow(),
      landedChanges: (except) => {
        const out = new Map(this.o.landedBefore ?? []);
        for (const id of this.results.keys()) {
          const c = this.changes.get(id);
          if (c) out.set(id, c);
        }
        out.delete(except);
        return out;
      },
      recorded: (id, change) => this.changes.set(id, change),
      keep: (id, r) => this.keep(id, worktreePath(this.o.root, this.o.runId, id), r),
      land: async (pending, signal) => {
        const p = { ...pending, path: worktreePath(this.o.root, this.o.runId, pending.step.id) };
        if (pending.step.review && (this.changes.get(pending.step.id)?.files.length ?? 0) > 0) {
          this.pending.set(pending.step.id, p);
          return this.keep(pending.step.id, p.path, { ...p.result, status: 'review' });
        }
        return (
          (await this.landPending(p, signal, true)) ??
          this.keep(pending.step.id, p.path, {
            ...p.result,
            status: 'canceled',
            reason: 'canceled',
            message: 'canceled while waiting for its locks to land',
          })
        );
      },
    };
  }

  /** The workspace as it is now, untracked files included (merge-backs and shared steps leave new files untracked). */
  private freshSnapshot() {
    return snapshotBase(this.o.root);
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
      root: this.o.root,
      path: worktreePath(this.o.root, this.o.runId, stepId),
      branch: worktreeBranch(this.o.runId, stepId),
    });
  }
}
