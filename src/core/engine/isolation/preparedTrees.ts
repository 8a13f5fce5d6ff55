// Worktrees made ahead of their steps' attempts (prepareAhead.ts decides when): from the run's
// base, with copy, links, sparse cone and `setup` (the slow part), while the step's needs still
// run. An attempt adopts one only when it can still serve; otherwise it goes and the attempt makes
// its own, as without preparing. Apart from worktreeIsolator.ts: a tree here is nobody's attempt yet.
import { existsSync } from 'node:fs';
import { classifyRef, parseTemplates } from '../../templates';
import type { Graph, GraphStep } from '../../plan/types';
import { gitOk, splitZ } from '../../exec/git';
import type { AttemptContext } from '../types';
import { commitWorktree, createWorktree, mergeNeeds, worktreePath } from './worktree';
import { touchesSetupInputs } from './worktreeSetup';
import { runSetup, type SetupRun } from './setupCommand';

/** The run's base commit, or why there is none. */
export type Base = { ok: true; sha: string } | { ok: false; message: string };

/** A worktree made ahead of its step's attempt: created from `from`, set up, now at `head`. */
interface PreparedTree {
  readonly path: string;
  readonly from: string;
  readonly head: string;
}
export interface Preparation {
  readonly abort: AbortController;
  readonly done: Promise<PreparedTree | undefined>;
}

/** What of the isolator preparing uses. */
export interface PrepareHost extends SetupRun {
  readonly root: string;
  /** The run's base, taken once. */
  base(): Promise<Base>;
  /** Removes the step's worktree and its branch. */
  remove(stepId: string): Promise<void>;
}

/** Whether the step's environment (plan's or its own) renders its needs' outputs or statuses, unknown before they end. */
function envNeedsResults(graph: Graph, step: GraphStep): boolean {
  const texts = [...Object.values(graph.plan.env), ...Object.values(step.env), step.setup ?? ''];
  return texts.some((v) =>
    parseTemplates(v).refs.some((r) => {
      const kind = classifyRef(r.path)?.kind;
      return kind === 'step-output' || kind === 'step-status';
    }),
  );
}

export class PreparedTrees {
  private readonly preparing = new Map<string, Preparation>();

  constructor(private readonly host: PrepareHost) {}

  /**
   * Prepares the step's tree (its caller checked it is a worktree step not attempted yet). False
   * when it is being prepared already, its setup's environment renders its needs' outputs, or
   * preparing failed.
   */
  async prepare(step: GraphStep): Promise<boolean> {
    if (this.preparing.has(step.id)) return false;
    if (step.setup !== undefined && envNeedsResults(this.host.graph, step)) return false;
    const abort = new AbortController();
    const done = this.prepareTree(step, abort.signal).catch(() => undefined);
    this.preparing.set(step.id, { abort, done });
    return (await done) !== undefined;
  }

  /** The step's preparation, if any, now the attempt's (adopt or drop it). */
  take(stepId: string): Preparation | undefined {
    const p = this.preparing.get(stepId);
    this.preparing.delete(stepId);
    return p;
  }

  /** Removes the step's prepared worktree unless an attempt took it. */
  async discard(stepId: string): Promise<void> {
    const p = this.preparing.get(stepId);
    if (!p) return;
    this.preparing.delete(stepId);
    await this.drop(stepId, p);
  }

  /**
   * Takes a prepared worktree for the attempt, its needs' results merged in. Undefined (the tree
   * removed) when it cannot serve: preparing failed, the attempt starts from another commit (a
   * need left its change in the workspace only), the results conflict with what setup did, or they
   * touch what setup depends on (a lockfile), so setup must run after them as it would have.
   */
  async adopt(
    p: Preparation,
    start: { sha: string; merge: readonly string[] },
    ctx: AttemptContext,
  ): Promise<{ path: string; head: string } | undefined> {
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
      const changed = splitZ(
        await gitOk(['diff', '--name-only', '-z', '--no-renames', tree.head, m.head], { cwd: tree.path }),
      );
      if (touchesSetupInputs(changed, setup)) return this.dropTree(ctx.step.id);
    }
    return { path: tree.path, head: m.head };
  }

  /** Stops the preparation and removes what it made. */
  async drop(stepId: string, p: Preparation): Promise<void> {
    p.abort.abort();
    if (await p.done) await this.host.remove(stepId);
  }

  /** A worktree from the run's base, set up; undefined (nothing left behind) when that fails or is aborted. */
  private async prepareTree(step: GraphStep, signal: AbortSignal): Promise<PreparedTree | undefined> {
    const { root, runId } = this.host;
    const base = await this.host.base();
    // A worktree already there is one an earlier attempt kept for the user: only an attempt replaces it.
    if (!base.ok || signal.aborted || existsSync(worktreePath(root, runId, step.id))) return undefined;
    const wt = await createWorktree({
      root,
      runId,
      stepId: step.id,
      base: base.sha,
      sparse: step.sparse,
      copy: step.copy,
      symlink: step.symlink,
    });
    if (!wt.ok) return undefined;
    try {
      let head: string | undefined = base.sha;
      if (step.setup !== undefined && !signal.aborted) {
        // Attempt 1: a step is only prepared before its first attempt in this run.
        const none = new Map<string, never>();
        const title = `${step.name} · setup, prepared ahead of its needs: ${step.setup}`;
        const failed = await runSetup(this.host, step, wt.path, step.setup, {
          attempt: 1,
          title,
          signal,
          outputs: none,
          statuses: none,
        });
        head = failed
          ? undefined
          : (await commitWorktree({ worktree: wt.path, message: `braid: set-up of ${step.id}` })).sha;
      }
      if (head !== undefined && !signal.aborted) return { path: wt.path, from: base.sha, head };
    } catch {
      // Falls through: a failed preparation is the attempt's to redo, not a step failure.
    }
    return this.dropTree(step.id);
  }

  private async dropTree(stepId: string): Promise<undefined> {
    await this.host.remove(stepId);
    return undefined;
  }
}
