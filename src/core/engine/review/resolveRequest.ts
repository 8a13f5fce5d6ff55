// `braid resolve RUN STEP [--agent NAME]` (and *Resolve with Agent*): a `conflict` step of an ended
// run gets the attempt `on-conflict: resolve` would have given it, as a retry of that step whose
// first attempt is the resolution (scheduler `answers`; resolveConflict.ts does the work). Here:
// whether the record allows it, which agent resolves, and what the resolution starts from.
import type { Graph } from '../../plan/types';
import { takesText } from '../../agents/promptInput';
import type { RunRecord } from '../records/runRecord';
import type { ChangeRecord } from '../records/changeRecord';
import type { ConflictAttempt } from '../types';

/** The resolution attempt for `req.step`, or why the record rules it out. */
export function resolveAnswer(
  graph: Graph,
  rec: RunRecord,
  req: { readonly step: string; readonly agent?: string },
): { ok: true; answers: Map<string, ConflictAttempt> } | { ok: false; message: string } {
  const step = graph.steps.get(req.step);
  const old = rec.steps[req.step];
  if (!step || !old) return { ok: false, message: `run ${rec.id} has no step ${req.step}` };
  if (old.status !== 'conflict')
    return { ok: false, message: `step ${req.step} is ${old.status}, not conflict: nothing to resolve` };
  if (!old.changes || old.changes.files.length === 0)
    return { ok: false, message: `step ${req.step} has no recorded change to resolve` };
  if (step.isolation !== 'worktree' || step.bestOf)
    return {
      ok: false,
      message: `step ${req.step} is not a worktree step of its own (a best-of step's conflict is its winner's): merge it again with braid merge ${rec.id} ${req.step}`,
    };
  const agent = req.agent ?? step.agent;
  if (agent === undefined)
    return {
      ok: false,
      message: `step ${req.step} runs a shell command and has no agent: name the one that resolves it (--agent NAME)`,
    };
  if (!graph.agents[agent])
    return {
      ok: false,
      message: `unknown agent ${agent}; the plan's agents and the presets: ${Object.keys(graph.agents).sort().join(', ')}`,
    };
  const own = agent === step.agent;
  // A command that may run its prompt (no `input: text`) gets no prose made of file and step names:
  // it can run its own step's script again, with BRAID_CONFLICT_FILES, and nothing else.
  if (!own && !takesText(graph.agents[agent]))
    return {
      ok: false,
      message: `agent ${agent} may run its prompt as code (its definition has no \`input: text\`): it can resolve only its own steps; name an agent that takes text (claude, codex, gemini) with --agent`,
    };
  const answer: ConflictAttempt = {
    mode: 'resolve',
    change: { base: old.changes.base, commit: old.changes.commit },
    ...(req.agent !== undefined && !own ? { agent } : {}),
    ...(own && old.sessionId !== undefined ? { sessionId: old.sessionId } : {}),
  };
  return { ok: true, answers: new Map([[req.step, answer]]) };
}

/** The changes the run's succeeded steps landed: whom a conflict names. */
export function landedChanges(rec: RunRecord): Map<string, ChangeRecord> {
  const out = new Map<string, ChangeRecord>();
  for (const s of Object.values(rec.steps))
    if (s.status === 'succeeded' && s.changes && s.revertedAt === undefined) out.set(s.id, s.changes);
  return out;
}
