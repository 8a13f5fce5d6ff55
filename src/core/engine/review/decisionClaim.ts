// Exactly one decision a change: `approve` and `reject` of one step's change, from any number of
// processes (two terminals, a window's engine, the run's own process), race for one file made
// with link(2), which either creates it whole or fails because it exists. The winner acts; every
// other is told who decided and when. Files, not the run's lock alone: a live run decides in its
// own process while an ended one decides in the command's, and both must see the same claim.
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../../exec/pidAlive';
import type { StepRecord } from '../records/runRecord';

export interface Decision {
  readonly action: 'approve' | 'reject';
  /** Who asked: `braid approve (pid 4242)`, `VS Code (pid 77)`. */
  readonly by: string;
  readonly at: string;
  /** The process that claimed it (set by claimDecision). */
  readonly pid?: number;
  readonly host?: string;
}

export type Claim = { ok: true; release(): Promise<void> } | { ok: false; decided: Decision };

const decisionsDir = (runDir: string) => join(runDir, 'decisions');

/** The change a decision is about: the step's attempt and its change commit (a retry's new change is decided anew). */
export function decisionKey(step: Pick<StepRecord, 'id' | 'attempts' | 'changes'>): string {
  return `${step.id}@${step.attempts.length}-${step.changes?.commit.slice(0, 12) ?? 'none'}`;
}

function file(runDir: string, key: string): string {
  return join(decisionsDir(runDir), `${key}.json`);
}

/** The decision already made on this change, if any. */
export async function decisionOf(runDir: string, key: string): Promise<Decision | undefined> {
  try {
    return JSON.parse(await readFile(file(runDir, key), 'utf8')) as Decision;
  } catch {
    // No decision yet (or a torn one, which a new decision replaces).
    return undefined;
  }
}

/**
 * Claims the decision on this change for `d`. The claim file is written aside and linked into
 * place, so a reader never sees half of it; `release` withdraws a claim whose action then could
 * not be carried out (nothing was done: another may decide).
 */
export async function claimDecision(runDir: string, key: string, d: Decision): Promise<Claim> {
  const dir = decisionsDir(runDir);
  await mkdir(dir, { recursive: true });
  const target = file(runDir, key);
  const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify({ ...d, pid: process.pid, host: hostname() }));
  try {
    await link(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const decided = await decisionOf(runDir, key);
    if (decided) return { ok: false, decided };
    throw e;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return { ok: true, release: () => unlink(target).catch(() => undefined) };
}

/**
 * Whether a decision made stands against `action` on a step the record shows as `status`. One
 * exception: the claimant died before it recorded its decision (the step still in `review`), and
 * the same action is asked again: it completes that decision (landing is idempotent), never another.
 */
export function stands(d: Decision, status: string, action: string): boolean {
  if (status !== 'review' || d.action !== action) return true;
  return d.host !== hostname() || d.pid === undefined || pidAlive(d.pid);
}

/** The sentence the loser of a decision hears. */
export function decidedMessage(stepId: string, d: Decision): string {
  const when = d.at.replace(/^\d{4}-\d{2}-\d{2}T/, '').replace(/Z$/, ' UTC');
  return `step ${stepId} was ${d.action === 'approve' ? 'approved' : 'rejected'} by ${d.by} at ${when}; nothing was done`;
}

/** Who this process is, for a decision it claims. */
export function requester(what: string): string {
  return `${what} (pid ${process.pid})`;
}
