// Planning by competition: N agents (or N runs of one) draft plans for the same goal at once, each
// into its own scratch file beside the plan file (plan.draft-1.braid.yaml, …), each validated and
// repaired once exactly as a single draft is. Every draft comes back, valid or not, with its shape.
import { resolve } from 'node:path';
import type { Diagnostic } from '../plan/types';
import { findExecutable, notInstalledMessage } from '../agents/which';
import { draftShape, type DraftShape } from './compareDrafts';
import { DEFAULT_PLAN_FILE, draftPlan, type DraftPlanOptions, type DraftProgress, type DraftResult } from './draftPlan';
import { draftFile } from './draftFiles';
import { choosePlanningAgent, type PlanningAgentSpec } from './planningAgent';
import { fileProblem } from './problems';

export const MIN_DRAFTS = 2;
export const MAX_DRAFTS = 10;

export interface DraftRaceOptions extends Omit<DraftPlanOptions, 'agent' | 'file' | 'onProgress'> {
  /** How many drafts, MIN_DRAFTS to MAX_DRAFTS. */
  readonly count: number;
  /** The drafting agents, used in turn: draft k gets agents[(k - 1) % agents.length]. */
  readonly agents: readonly PlanningAgentSpec[];
  /** The plan file the kept draft becomes (relative to the workspace or absolute); the drafts go beside it. */
  readonly file?: string;
  readonly onProgress?: (draft: number, p: DraftProgress) => void;
}

export interface RaceDraft {
  /** 1-based, as drafted. */
  readonly index: number;
  readonly result: DraftResult;
  /** The agent's name (the result's, else as given). */
  readonly agent: string;
  /** When the draft is valid. */
  readonly shape?: DraftShape;
}

export interface DraftRace {
  readonly drafts: readonly RaceDraft[];
  /** An agent that cannot draft (unknown, refused, not installed): nothing was run. */
  readonly problem?: Diagnostic;
}

/** The agent of draft `index` (1-based) when `agents` are used in turn. */
export function agentFor(agents: readonly PlanningAgentSpec[], index: number): PlanningAgentSpec {
  if (agents.length === 0) throw new TypeError('agentFor: no agents');
  return agents[(index - 1) % agents.length]!;
}

const specName = (spec: PlanningAgentSpec): string =>
  typeof spec === 'string'
    ? spec
    : Array.isArray(spec)
      ? (spec as readonly string[]).join(' ')
      : (spec as { name: string }).name;

/** Drafts `count` plans for one goal in parallel; resolves when every draft is done (valid, invalid or failed). */
export async function draftRace(o: DraftRaceOptions): Promise<DraftRace> {
  if (!Number.isInteger(o.count) || o.count < MIN_DRAFTS || o.count > MAX_DRAFTS) {
    throw new RangeError(`draftRace: count must be an integer ${MIN_DRAFTS}–${MAX_DRAFTS}, got ${o.count}`);
  }
  const workspace = resolve(o.workspace);
  const target = resolve(workspace, o.file ?? DEFAULT_PLAN_FILE);
  const env = o.env ?? process.env;
  // Every agent is checked before any runs: a typo in the third must not cost two drafts.
  for (const spec of new Set(o.agents)) {
    const choice = choosePlanningAgent(spec, {
      cwd: workspace,
      envPath: env.PATH,
      ...(o.permission ? { permission: o.permission } : {}),
    });
    if ('error' in choice) return { drafts: [], problem: fileProblem(target, 'agent-invalid', choice.error) };
    const exe = choice.agent.command[0]!;
    if (!o.runAgent && !findExecutable(exe, env.PATH, workspace))
      return { drafts: [], problem: fileProblem(target, 'agent-missing', notInstalledMessage(exe)) };
  }
  const indexes = Array.from({ length: o.count }, (_, i) => i + 1);
  const drafts = await Promise.all(
    indexes.map(async (index): Promise<RaceDraft> => {
      const spec = agentFor(o.agents, index);
      const { onProgress, count: _count, agents: _agents, ...shared } = o;
      const result = await draftPlan({
        ...shared,
        workspace,
        agent: spec,
        file: draftFile(target, index),
        // BRAID_PLAN_DRAFT tells a custom planner which draft it writes (as BRAID_ALTERNATIVE does a step).
        env: { ...env, BRAID_PLAN_DRAFT: String(index) },
        ...(onProgress ? { onProgress: (p: DraftProgress) => onProgress(index, p) } : {}),
      });
      return {
        index,
        result,
        agent: result.agent ?? specName(spec),
        ...(result.ok && result.graph ? { shape: draftShape(result.graph) } : {}),
      };
    }),
  );
  return { drafts };
}
