// What the end of a run says about each step that failed: the last lines of its log, where its
// worktree was kept, and the commands that go on from there.
import { readFile } from 'node:fs/promises';
import type { RunRecord } from '../core/engine/records/runRecord';
import { RunStore } from '../core/engine/records/runStore';

const FAILED = new Set(['failed', 'conflict']);
const TAIL_LINES = 8;
const MAX_WIDTH = 200;

/** The text after the summary table: one block a failed step, then the next commands; empty when none failed. */
export async function failureReport(record: RunRecord, ran: ReadonlySet<string>): Promise<string> {
  const failed = Object.values(record.steps).filter((s) => FAILED.has(s.status) && ran.has(s.id));
  if (failed.length === 0) return '';
  const store = new RunStore(record.workspace);
  const blocks: string[] = [];
  for (const s of failed) {
    const lines = [`${s.id} ${s.status}${s.message ? `: ${s.message}` : ''}`];
    const tail = await logTail(store.paths(record.id).log(s.id));
    if (tail.length > 0) lines.push(`  last lines of its log:`, ...tail.map((l) => `  │ ${l}`));
    if (s.worktree) lines.push(`  its worktree is kept at ${s.worktree} (branch braid/${record.id}/${s.id})`);
    blocks.push(lines.join('\n'));
  }
  // A conflict's change is done work: look at it, have an agent resolve it, or merge it again
  // before paying for a new run of the step; retry comes last, and says what it costs.
  const conflicts = failed.filter((s) => s.status === 'conflict');
  const next = [
    ...conflicts.flatMap((s) => [
      `  braid diff ${record.id} ${s.id}      (its change)`,
      `  braid resolve ${record.id} ${s.id}   (an agent merges it into the workspace as it is now)`,
      `  braid merge ${record.id} ${s.id}     (merges it again, if what it conflicted with changed)`,
    ]),
    ...failed.filter((s) => s.status !== 'conflict').map((s) => `  braid logs ${record.id} ${s.id}`),
    ...(failed.some((s) => s.worktree)
      ? [`  braid clean ${record.id}   (removes the kept worktrees and branches)`]
      : []),
    conflicts.length > 0
      ? `  braid retry ${record.id}   (runs ${conflicts.map((s) => s.id).join(', ')} again from the start: a new paid session for an agent)`
      : `  braid retry ${record.id}`,
  ];
  return `\n${blocks.join('\n\n')}\n\nnext:\n${next.join('\n')}\n`;
}

async function logTail(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  // The log's own attempt headers (──── attempt 2 ────) are braid's, not the step's.
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '' && !/^──── .* ────$/.test(l));
  return lines.slice(-TAIL_LINES).map((l) => (l.length > MAX_WIDTH ? `${l.slice(0, MAX_WIDTH)}…` : l));
}
