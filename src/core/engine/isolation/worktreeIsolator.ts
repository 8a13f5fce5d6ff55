// Worktree isolation for a run: each `worktree` step attempt gets its own git worktree from the
// run's base (plus its needs' results), runs there, and on success its change is committed and
// merged back into the workspace. The step takes its write locks (through `mergeLocks`, the gate
// shared steps lock through) only around its merge-back: overlapping worktree steps work side by
// side in their own trees, and only their landings, and shared steps writing there, take turns.
// Without `mergeLocks` the scheduler is taken to hold the step's locks for the whole attempt.
// Clean-up never loses work: succeeded and canceled attempts' worktrees go, failed and conflicted
// ones stay for the user (`braid clean`).
// A step's worktree may also be prepared ahead (`prepare`, driven by prepareAhead.ts): made from
// the run's base and set up while its needs still run, so its attempt only merges their results.
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { classifyRef, parseTemplates } from '../../plan/templates';
import type { Graph, GraphStep } from '../../plan/types';
import type { Isolator } from '../steps/executor';
import { gitOk, splitZ } from '../../exec/git';
import { acquireWhenFree } from '../locks/lockGate';
import { mergeBack } from './mergeBack';
import { runProcess, shellArgv } from '../../exec/process';
import { stepEnv } from '../steps/render';
import type { LockGate } from '../scheduling/scheduler';
import { openStepLog } from '../records/stepLog';
import type { AttemptContext, AttemptResult, OutputStream, StepStatus } from '../types';
import {
  commitWorktree, createWorktree, mergeNeeds, pruneWorktrees, removeWorktree, snapshotBase, worktreeBranch, worktreePath,
} from './worktree';
import { touchesSetupInputs } from './worktreeSetup';

export interface WorktreeIsolatorOptions {
  /** The workspace: a git repository's top level. */
  readonly root: string;
  readonly runId: string;
  readonly graph: Graph;
  /** The step's log file, where a `setup` command's output goes. */
  log(stepId: string): string;
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Where merge-backs take their write locks; the scheduler must then start worktree steps without them. */
  readonly mergeLocks?: {
    readonly gate: LockGate;
    /** The step's merge-back waits for `holder` (once each holder): the run's `lock` event. */
    onWait(stepId: string, holder: string, paths: readonly string[]): void;
  };
}

type Base = { ok: true; sha: string } | { ok: false; message: string };

/** A worktree made ahead of its step's attempt: created from `from`, set up, now at `head`. */
interface PreparedTree { readonly path: string; readonly from: string; readonly head: string }
interface Preparation { readonly abort: AbortController; readonly done: Promise<PreparedTree | undefined> }

/** What a `setup` run needs besides the step: where it logs and the scope its environment is rendered in. */
interface SetupScope {
  readonly attempt: number;
  readonly title: string;
  readonly signal: AbortSignal;
  readonly outputs: ReadonlyMap<string, string>;
  readonly statuses: ReadonlyMap<string, StepStatus>;
  onOutput?(stream: OutputStream, text: string): void;
}

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

/** Whether the step's environment (plan's or its own) renders its needs' outputs or statuses, unknown before they end. */
function envNeedsResults(graph: Graph, step: GraphStep): boolean {
  return [graph.plan.env, step.env].some((layer) => Object.values(layer).some((v) => parseTemplates(v).refs.some((r) => {
    const kind = classifyRef(r.path)?.kind;
    return kind === 'step-output' || kind === 'step-status';
  })));
}

export class WorktreeIsolator implements Isolator {
  private base: Promise<Base> | undefined;
  /** Each succeeded step's result commit, which its dependents' worktrees merge in. */
  private readonly results = new Map<string, string>();
  private readonly kept = new Map<string, string>();
  private readonly preparing = new Map<string, Preparation>();
  /** Steps whose first attempt began: a preparation for them comes too late. */
  private readonly attempted = new Set<string>();
  private readonly removing = new Set<Promise<void>>();

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

  /**
   * Makes the step's worktree ahead of its attempt, while its needs still run: from the run's base,
   * with its copy, links, sparse cone and `setup` (the slow part). True when a tree is ready; false
   * when the step is not prepared (its attempt began, a worktree an earlier attempt kept for the
   * user is there, its setup's environment renders its needs' outputs) or preparing failed. Either
   * way nothing is lost: the attempt then makes its worktree itself, as without this.
   */
  async prepare(stepId: string): Promise<boolean> {
    const step = this.o.graph.steps.get(stepId);
    if (!step || step.bestOf || step.isolation !== 'worktree' || this.attempted.has(stepId) || this.preparing.has(stepId)) return false;
    if (step.setup !== undefined && envNeedsResults(this.o.graph, step)) return false;
    const abort = new AbortController();
    const done = this.prepareTree(step, abort.signal).catch(() => undefined);
    this.preparing.set(stepId, { abort, done });
    return (await done) !== undefined;
  }

  /** Removes the step's prepared worktree unless an attempt took it (the step was skipped or canceled, or the run ended). */
  async discard(stepId: string): Promise<void> {
    const p = this.preparing.get(stepId);
    if (!p) return;
    this.preparing.delete(stepId);
    await this.dropPrepared(stepId, p);
  }

  async around(ctx: AttemptContext, body: (dir: string) => Promise<AttemptResult>): Promise<AttemptResult> {
    const { step } = ctx;
    const started = Date.now();
    const end = (status: AttemptResult['status'], reason: AttemptResult['reason'], message: string): AttemptResult =>
      ({ status, exitCode: null, signal: null, reason, message, durationMs: Date.now() - started });
    const canceled = (): AttemptResult => end('canceled', 'canceled', 'canceled');
    // An alternative's tree goes only once the race is settled (release): the winner's merge-back
    // then never competes with the losers' clean-up, and the step's end never waits for it.
    const dropTree = (r: AttemptResult): Promise<AttemptResult> => (step.alternative ? Promise.resolve(this.keep(step.id, path, r)) : this.drop(step.id, r));
    this.kept.delete(step.id);
    this.results.delete(step.id);
    this.attempted.add(step.id);
    const prepared = this.preparing.get(step.id);
    this.preparing.delete(step.id);
    const path = worktreePath(this.o.root, this.o.runId, step.id);
    let made = false;
    try {
      const start = await this.startOf(ctx);
      if (!start.ok) {
        if (prepared) await this.dropPrepared(step.id, prepared);
        return end('failed', 'spawn-failed', start.message);
      }
      let tree = prepared ? await this.adopt(prepared, start, ctx) : undefined;
      const setUp = tree !== undefined;
      if (tree) made = true;
      else {
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
        tree = { path: wt.path, head };
      }
      let head = tree.head;
      if (ctx.signal.aborted) return await dropTree(canceled());
      if (step.setup && !setUp) {
        const s = await this.setup(step, tree.path, step.setup, { ...ctx, title: `${step.name} · setup: ${step.setup}` });
        if (s) return s.status === 'canceled' ? await dropTree(s) : this.keep(step.id, path, s);
        // What set-up changed (a generated file) is preparation, not the step's change.
        head = (await commitWorktree({ worktree: tree.path, message: `braid: set-up of ${step.id}` })).sha;
      }
      const r = await body(tree.path);
      if (r.status === 'canceled') return await dropTree(r);
      if (r.status !== 'succeeded') return this.keep(step.id, path, r);
      const c = await commitWorktree({ worktree: tree.path, message: `braid: ${step.id} (run ${this.o.runId})` });
      // An alternative of a best-of step lands only if it wins (alternatives.ts); a loser's tree goes.
      if (ctx.settle && !(await ctx.settle(r))) return await dropTree({ ...r, status: 'canceled', reason: 'canceled', message: 'another alternative won' });
      // A worktree step without `writes` may change anything: its whole tree is its set.
      const writes = step.writes.length > 0 ? step.writes : ['**'];
      const lock = await this.mergeLock(step, writes, ctx.signal);
      if (!lock) return await dropTree(canceled());
      let m: Awaited<ReturnType<typeof mergeBack>>;
      try {
        m = await serially(this.o.root, () => mergeBack({ root: this.o.root, base: head, result: c.sha, writes }));
      } finally { lock.release(); }
      if (!m.ok) {
        const status = m.kind === 'conflict' ? 'conflict' : 'failed';
        return this.keep(step.id, path, { ...r, status, reason: m.kind, message: m.message });
      }
      // Dependents merge in the best-of step's result, which is its winner's.
      this.results.set(step.alternative?.of ?? step.id, c.sha);
      return await dropTree(r);
    } catch (e) {
      const msg = `worktree isolation failed: ${(e as Error).message}`;
      return made ? this.keep(step.id, path, end('failed', 'spawn-failed', msg)) : end('failed', 'spawn-failed', msg);
    }
  }

  /** Removes, in the background, what attempts of these steps kept (a best-of step's alternatives, once it settled); `idle` waits for it. */
  release(stepIds: readonly string[]): void {
    for (const id of stepIds) {
      if (!this.kept.delete(id)) continue;
      const p = this.remove(id).catch(() => {}).finally(() => this.removing.delete(p));
      this.removing.add(p);
    }
  }

  /** Resolves once every removal `release` began has ended (the run's end waits for it). */
  async idle(): Promise<void> {
    while (this.removing.size > 0) await Promise.all([...this.removing]);
  }

  /** The step's write locks for its merge-back, waited for; undefined when the attempt is canceled meanwhile. */
  private async mergeLock(step: GraphStep, writes: readonly string[], signal: AbortSignal): Promise<{ release(): void } | undefined> {
    const locks = this.o.mergeLocks;
    if (!locks) return { release: () => {} };
    // Only what lands is locked: its reads were of its own tree.
    const got = await acquireWhenFree(locks.gate, { ...step, writes, reads: [] }, signal,
      (holder, paths) => locks.onWait(step.id, holder, paths));
    return got.ok ? got : undefined;
  }

  /** A worktree from the run's base, set up; undefined (nothing left behind) when that fails or is aborted. */
  private async prepareTree(step: GraphStep, signal: AbortSignal): Promise<PreparedTree | undefined> {
    this.base ??= snapshotBase(this.o.root, this.o.graph.plan.base);
    const base = await this.base;
    // A worktree already there is one an earlier attempt kept for the user: only an attempt replaces it.
    if (!base.ok || signal.aborted || existsSync(worktreePath(this.o.root, this.o.runId, step.id))) return undefined;
    const wt = await createWorktree({
      root: this.o.root, runId: this.o.runId, stepId: step.id, base: base.sha, sparse: step.sparse, copy: step.copy, symlink: step.symlink,
    });
    if (!wt.ok) return undefined;
    try {
      let head: string | undefined = base.sha;
      if (step.setup !== undefined && !signal.aborted) {
        // Attempt 1: a step is only prepared before its first attempt in this run.
        const none = new Map<string, never>();
        const title = `${step.name} · setup, prepared ahead of its needs: ${step.setup}`;
        const failed = await this.setup(step, wt.path, step.setup, { attempt: 1, title, signal, outputs: none, statuses: none });
        head = failed ? undefined : (await commitWorktree({ worktree: wt.path, message: `braid: set-up of ${step.id}` })).sha;
      }
      if (head !== undefined && !signal.aborted) return { path: wt.path, from: base.sha, head };
    } catch {
      // Falls through: a failed preparation is the attempt's to redo, not a step failure.
    }
    return this.dropTree(step.id);
  }

  /**
   * Takes a prepared worktree for the attempt, its needs' results merged in. Undefined (the tree
   * removed) when it cannot serve: preparing failed, the attempt starts from another commit (a
   * need left its change in the workspace only), the results conflict with what setup did, or they
   * touch what setup depends on (a lockfile), so setup must run after them as it would have.
   */
  private async adopt(p: Preparation, start: { sha: string; merge: readonly string[] }, ctx: AttemptContext): Promise<{ path: string; head: string } | undefined> {
    const stop = (): void => p.abort.abort();
    ctx.signal.addEventListener('abort', stop, { once: true });
    let tree: PreparedTree | undefined;
    try {
      tree = await p.done;
    } finally {
      ctx.signal.removeEventListener('abort', stop);
    }
    if (!tree) return undefined;
    if (ctx.signal.aborted || start.sha !== tree.from) return this.dropTree(ctx.step.id);
    if (start.merge.length === 0) return { path: tree.path, head: tree.head };
    const m = await mergeNeeds({ worktree: tree.path, commits: start.merge });
    if (!m.ok) return this.dropTree(ctx.step.id);
    const setup = ctx.step.setup;
    if (setup !== undefined) {
      const changed = splitZ(await gitOk(['diff', '--name-only', '-z', '--no-renames', tree.head, m.head], { cwd: tree.path }));
      if (touchesSetupInputs(changed, setup)) return this.dropTree(ctx.step.id);
    }
    return { path: tree.path, head: m.head };
  }

  private async dropPrepared(stepId: string, p: Preparation): Promise<void> {
    p.abort.abort();
    if (await p.done) await this.remove(stepId);
  }

  private async dropTree(stepId: string): Promise<undefined> {
    await this.remove(stepId);
    return undefined;
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

  /** Runs the step's `setup` in its worktree; undefined when it succeeded. */
  private async setup(step: GraphStep, dir: string, command: string, scope: SetupScope): Promise<AttemptResult | undefined> {
    const env = stepEnv({
      graph: this.o.graph, step, runId: this.o.runId, outputs: scope.outputs, statuses: scope.statuses, baseEnv: this.o.baseEnv ?? process.env,
    });
    const log = await openStepLog(this.o.log(step.id), scope.attempt, scope.title);
    try {
      const r = await runProcess({
        argv: shellArgv(command), cwd: dir, env, signal: scope.signal, log: log.stream, ...(scope.onOutput ? { onOutput: scope.onOutput } : {}),
      });
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
