// A person stepping into an agent step's attempt: `attach` (the step's CLI handed to them in its
// folder, continuing its session) or `say` (a message, the session's next prompt). The attempt
// stays one attempt in the same folder: its agent process is stopped (its session kept), the
// takeover runs there, and what the folder then holds goes through the step's check, review and
// landing as any attempt's would. The executor asks `Takeovers` at each of these points.
import type { AgentDef } from '../../plan/types';
import { takesText } from '../../agents/promptInput';

/**
 * Whether a person may step into `agent`'s steps: an agent that takes prose. A shell agent's
 * prompt is a script, and a message or what it printed must never become shell source.
 */
export function takesPeople(agent: Pick<AgentDef, 'input' | 'context'>): boolean {
  return agent.context !== false && takesText(agent);
}

export interface Handover {
  /** The step's folder (its worktree, or the workspace for a shared step). */
  readonly cwd: string;
  /** The CLI to open, continuing the session where it can. */
  readonly argv: readonly string[];
  readonly resumed?: string;
  /** What the agent's definition sets in its environment (claude `full` as root: IS_SANDBOX=1), on top of the person's own. */
  readonly env: Readonly<Record<string, string>>;
  /** Said before it opens: why the session could not be continued. */
  readonly why?: string;
}

export type Takeover =
  /** `handover` runs the CLI for the person and resolves when they leave it. */
  | { readonly kind: 'attach'; handover(h: Handover, signal: AbortSignal): Promise<void> }
  | { readonly kind: 'say'; readonly message: string };

/** What a request found: `taken` once the running attempt is told; else why not. */
export type TakeoverAnswer = { ok: true } | { ok: false; message: string };

/** The run's registry of attempts a person may step into, and of takeovers waiting for their attempt. */
export class Takeovers {
  private readonly live = new Map<string, (t: Takeover) => void>();
  private readonly waiting = new Map<string, Takeover>();

  /** The next attempt of `stepId` starts as this takeover (an ended run's step taken over by `braid attach`). */
  atStart(stepId: string, t: Takeover): void {
    this.waiting.set(stepId, t);
  }

  /** The executor's side: an attempt's agent runs; `take` stops it for a takeover. Returns the queued one, if any. */
  enter(stepId: string, take: (t: Takeover) => void): Takeover | undefined {
    this.live.set(stepId, take);
    const t = this.waiting.get(stepId);
    this.waiting.delete(stepId);
    return t;
  }

  leave(stepId: string, take: (t: Takeover) => void): void {
    if (this.live.get(stepId) === take) this.live.delete(stepId);
  }

  /** A person steps into the running attempt of `stepId`. */
  request(stepId: string, t: Takeover): TakeoverAnswer {
    const take = this.live.get(stepId);
    if (!take)
      return {
        ok: false,
        message: `${stepId} is not running an agent session now (a person may step into a running agent step that takes prose, not a shell step or a shell agent, one person at a time)`,
      };
    take(t);
    return { ok: true };
  }
}

/**
 * The agent's summary once a takeover ended: a resumed run's, its tokens and cost added to what
 * the stopped process had used; after a handover (`after` undefined), the stopped process's,
 * no longer an error (the person's session, not the stopped process, decides the attempt).
 */
export function afterTakeover<
  T extends {
    sessionId?: string;
    turns?: number;
    inputTokens?: number;
    outputTokens?: number;
    costUsd?: number;
    isError?: boolean;
  },
>(before: T | undefined, after: T | undefined): T | undefined {
  if (after === undefined) return before ? { ...before, isError: false } : undefined;
  if (before === undefined) return after;
  const add = (a?: number, b?: number) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  const sum = {
    turns: add(before.turns, after.turns),
    inputTokens: add(before.inputTokens, after.inputTokens),
    outputTokens: add(before.outputTokens, after.outputTokens),
    costUsd: add(before.costUsd, after.costUsd),
  };
  const out = { ...after, sessionId: after.sessionId ?? before.sessionId };
  for (const [k, v] of Object.entries(sum)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
