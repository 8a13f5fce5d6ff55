// `braid diff | approve | reject | revert | merge` (cli.md): each step's recorded change, looked at,
// landed or not, taken back, or merged again. The work is the core's (review/); this is the face.
import { parseArgs } from 'node:util';
import { RunStore } from '../../core/engine/records/runStore';
import type { ReviewAction } from '../../core/engine/review/reviewInbox';
import { reviewSteps } from '../../core/engine/review/reviewSteps';
import { stepDiff, stepsWithChanges } from '../../core/engine/review/stepDiff';
import { workspaceForCwd } from '../workspace';

export const REVIEW_HELP = `  braid diff RUN-ID [STEP...] [--stat]         each step's recorded change (default: every step that made one)
  braid diff RUN-ID STEP --alternative N       the change alternative N of a best-of step made (a loser's too)
  braid approve RUN-ID STEP... [--continue]    land the changes of steps in review (the run's process does it
                                               while it goes on; after it ended, this command does, and
                                               --continue then runs what they blocked, as braid retry)
  braid reject RUN-ID STEP... [--reason TEXT]  fail steps in review (reason rejected): their changes never land
  braid revert RUN-ID STEP                     take a landed step's change back out of the workspace
  braid merge RUN-ID STEP [--continue]         merge a conflict step's change again, onto the workspace as it is
                                               (--continue: then run what it blocked, as braid retry)
`;

export interface ReviewIo {
  out(s: string): void;
  err(s: string): void;
  readonly color: boolean;
}

/** Thrown for bad usage; main prints it with the help. */
export class ReviewUsage extends Error {}

export async function diffCommand(args: string[], io: ReviewIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      stat: { type: 'boolean', default: false },
      alternative: { type: 'string' },
      workspace: { type: 'string' },
    },
  });
  const [runId, ...named] = positionals;
  if (!runId) throw new ReviewUsage('diff needs a RUN-ID');
  const alternative = values.alternative === undefined ? undefined : Number(values.alternative);
  if (alternative !== undefined && (!Number.isInteger(alternative) || named.length !== 1)) {
    throw new ReviewUsage(
      `diff --alternative takes the number N of an alternative and one STEP (got ${values.alternative} and ${named.length} steps)`,
    );
  }
  const root = workspaceForCwd(values.workspace);
  const rec = await new RunStore(root).load(runId);
  if (!rec) {
    io.err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  if (alternative !== undefined) {
    const id = named[0]!;
    const d = await stepDiff(root, rec, id, { stat: values.stat, color: io.color, alternative });
    if (!d.ok) {
      io.err(`braid: ${d.message}\n`);
      return 1;
    }
    const alt = rec.steps[id]!.alternatives!.find((a) => a.index === alternative)!;
    io.out(
      `── ${id} · alternative ${alternative} (${alt.status}${rec.steps[id]!.winner === alternative ? ', the winner' : ''}) ──\n`,
    );
    io.out(d.text === '' ? '(no change)\n' : d.text);
    return 0;
  }
  const steps = named.length > 0 ? named : stepsWithChanges(rec);
  if (steps.length === 0) {
    io.err(`no step of ${runId} recorded a change\n`);
    return 0;
  }
  let failed = false;
  for (const id of steps) {
    const d = await stepDiff(root, rec, id, { stat: values.stat, color: io.color });
    const status = rec.steps[id]?.status;
    io.out(`── ${id}${status ? ` (${status}${rec.steps[id]?.revertedAt ? ', reverted' : ''})` : ''} ──\n`);
    if (!d.ok) {
      io.err(`braid: ${d.message}\n`);
      failed = true;
      continue;
    }
    io.out(d.text === '' ? '(no change)\n' : d.text);
  }
  return failed ? 1 : 0;
}

/** approve, reject, revert and merge: one RUN-ID and its steps; `retry` runs `braid retry ARGS` (for `--continue`). */
export async function reviewCommand(
  action: ReviewAction,
  args: string[],
  io: ReviewIo,
  retry?: (args: string[]) => Promise<number>,
): Promise<number> {
  const lands = action === 'approve' || action === 'merge';
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      ...(action === 'reject' ? { reason: { type: 'string' as const } } : {}),
      ...(lands ? { continue: { type: 'boolean' as const, default: false } } : {}),
    },
  });
  const [runId, ...steps] = positionals;
  if (!runId || steps.length === 0)
    throw new ReviewUsage(
      `${action} needs a RUN-ID and ${action === 'approve' || action === 'reject' ? 'at least one STEP' : 'a STEP'}`,
    );
  if ((action === 'revert' || action === 'merge') && steps.length > 1)
    throw new ReviewUsage(`${action} takes one STEP`);
  const reason = (values as { reason?: string }).reason;
  const goOn = (values as { continue?: boolean }).continue === true;
  const r = await reviewSteps(workspaceForCwd(values.workspace), runId, {
    action,
    steps,
    ...(reason !== undefined ? { reason } : {}),
  });
  if (!r.ok) {
    io.err(`braid: ${r.message}\n`);
    return 1;
  }
  let failed = false;
  const blocked: string[] = [];
  for (const o of r.results) {
    if (!o.ok) {
      failed = true;
      io.err(`braid: ${o.step}: ${o.message}\n`);
      continue;
    }
    if (lands && o.status !== 'succeeded') failed = true;
    const said =
      action === 'revert' ? 'reverted' : lands ? (o.status === 'succeeded' ? 'landed' : o.status) : 'rejected';
    io.err(`${o.step}: ${said}${o.message && o.message !== 'reverted' ? ` · ${o.message}` : ''}\n`);
    for (const d of o.dependents ?? []) if (!blocked.includes(d)) blocked.push(d);
  }
  if (blocked.length === 0) return failed ? 1 : 0;
  // The run has ended: what the landed change blocked has not run, and nothing runs it unasked.
  if (goOn && retry && !failed) {
    io.err(`running what it blocked: ${blocked.join(', ')}\n`);
    return retry([runId, ...blocked, ...(values.workspace !== undefined ? ['--workspace', values.workspace] : [])]);
  }
  io.err(
    `${blocked.join(', ')} ${blocked.length === 1 ? 'has' : 'have'} not run: braid retry ${runId}${lands ? ` (or ${action} with --continue)` : ''}\n`,
  );
  return failed ? 1 : 0;
}
