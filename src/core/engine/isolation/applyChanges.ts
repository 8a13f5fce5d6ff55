// Landing a merge-back in the workspace all or nothing. New contents are staged under
// `.braid/tmp/<tx>/new/` (same file system, so each step is a rename), a journal is written
// first, and the renames run synchronously: a SIGINT handler cannot run half-way, and a crash
// (SIGKILL, power) leaves a journal that the next start rolls back.
import {
  closeSync, copyFileSync, existsSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync,
  readFileSync, readdirSync, readlinkSync, renameSync, rmSync, rmdirSync, symlinkSync, unlinkSync, writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

export interface ApplyOp {
  readonly kind: 'put' | 'delete';
  /** Workspace-relative, `/`-separated. A put's new content is at `<tx>/new/<path>`. */
  readonly path: string;
}

interface StatMark { ino: number; size: number; mtimeMs: number }

interface Journal {
  pid: number;
  host: string;
  /** Directories created for new files, parents first. */
  dirs: string[];
  ops: Array<ApplyOp & { newMark?: StatMark }>;
}

const JOURNAL = 'journal.json';

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function mark(p: string): StatMark {
  const s = lstatSync(p);
  return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
}

function sameMark(a: StatMark | undefined, p: string): boolean {
  if (!a || !lexists(p)) return false;
  const b = mark(p);
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

// Keeps the old content while the new one replaces it in a single rename (no moment where the
// file is missing for an editor or a watcher).
function backup(target: string, to: string): void {
  const s = lstatSync(target);
  if (s.isSymbolicLink()) symlinkSync(readlinkSync(target), to);
  else {
    try {
      linkSync(target, to);
    } catch {
      copyFileSync(target, to);
    }
  }
}

function writeJournal(tx: string, journal: Journal): void {
  const fd = openSync(join(tx, JOURNAL), 'w');
  try {
    writeSync(fd, JSON.stringify(journal));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function removeEmptyParents(root: string, rel: string): void {
  for (let d = dirname(rel); d !== '.' && d !== ''; d = dirname(d)) {
    try {
      rmdirSync(join(root, d));
    } catch {
      return;
    }
  }
}

/**
 * Applies staged puts, then deletions, to the workspace. Either every op lands or none does
 * (an error rolls back what was done); returns the error's message in that case.
 */
export function applyStaged(root: string, tx: string, ops: readonly ApplyOp[], dirs: readonly string[]): { ok: true } | { ok: false; message: string } {
  const ordered = [...ops.filter((o) => o.kind === 'put'), ...ops.filter((o) => o.kind === 'delete')];
  const journal: Journal = {
    pid: process.pid, host: hostname(), dirs: [...dirs],
    ops: ordered.map((o) => (o.kind === 'put' ? { ...o, newMark: mark(join(tx, 'new', o.path)) } : { ...o })),
  };
  mkdirSync(join(tx, 'old'), { recursive: true });
  writeJournal(tx, journal);
  const created: string[] = [];
  const done: Array<{ op: ApplyOp; old?: string; moved: boolean }> = [];
  try {
    for (const d of dirs) {
      if (lexists(join(root, d))) continue;
      mkdirSync(join(root, d));
      created.push(d);
    }
    ordered.forEach((op, i) => {
      const target = join(root, op.path);
      const rec: { op: ApplyOp; old?: string; moved: boolean } = { op, moved: false };
      done.push(rec);
      const old = join(tx, 'old', String(i));
      if (op.kind === 'put') {
        if (lexists(target)) {
          backup(target, old);
          rec.old = old;
        }
        renameSync(join(tx, 'new', op.path), target);
        rec.moved = true;
      } else if (lexists(target)) {
        renameSync(target, old);
        rec.old = old;
      }
    });
  } catch (e) {
    for (const rec of done.reverse()) {
      const target = join(root, rec.op.path);
      if (rec.op.kind === 'put' && rec.moved) {
        if (rec.old) renameSync(rec.old, target);
        else unlinkSync(target);
      } else if (rec.op.kind === 'delete' && rec.old) renameSync(rec.old, target);
    }
    for (const d of created.reverse()) rmdirSync(join(root, d));
    rmSync(tx, { recursive: true, force: true });
    return { ok: false, message: `could not write the change into the workspace (${(e as Error).message}); nothing was changed` };
  }
  unlinkSync(join(tx, JOURNAL)); // the commit point: from here on the change stays
  rmSync(tx, { recursive: true, force: true });
  for (const op of ordered) if (op.kind === 'delete') removeEmptyParents(root, op.path);
  return { ok: true };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Undoes one journal. A file the user changed since the crash is left as it is, and the
// transaction directory is kept (renamed `.kept`) so its old contents are not lost.
function rollBack(root: string, tx: string, journal: Journal): void {
  let keep = false;
  // Undo in reverse order, as the error path of applyStaged does.
  for (let i = journal.ops.length - 1; i >= 0; i--) {
    const op = journal.ops[i]!;
    const target = join(root, op.path);
    const old = join(tx, 'old', String(i));
    const moved = op.kind === 'put' ? !lexists(join(tx, 'new', op.path)) : lexists(old);
    if (!moved) continue;
    if (op.kind === 'put' && !sameMark(op.newMark, target)) {
      keep = true;
      continue;
    }
    if (lexists(old)) {
      if (op.kind === 'delete' && lexists(target)) {
        keep = true;
        continue;
      }
      renameSync(old, target);
    } else if (op.kind === 'put') unlinkSync(target);
  }
  for (const d of [...journal.dirs].reverse()) {
    try {
      rmdirSync(join(root, d));
    } catch {
      // not empty or not ours: leave it
    }
  }
  if (keep) renameSync(tx, `${tx}.kept`);
  else rmSync(tx, { recursive: true, force: true });
}

/** Rolls back merge-backs whose process died mid-way, and removes finished leftovers. */
export async function recoverInterruptedMerges(root: string): Promise<void> {
  const tmp = join(root, '.braid', 'tmp');
  if (!existsSync(tmp)) return;
  for (const name of readdirSync(tmp)) {
    if (!name.startsWith('merge-') || name.endsWith('.kept')) continue;
    const tx = join(tmp, name);
    let journal: Journal | undefined;
    try {
      journal = JSON.parse(readFileSync(join(tx, JOURNAL), 'utf8')) as Journal;
    } catch {
      journal = undefined;
    }
    const pid = Number(/^merge-(\d+)-/.exec(name)?.[1]);
    // Another live engine (a second window) may be mid-merge: not ours to touch.
    if ((journal ? journal.host === hostname() && alive(journal.pid) : alive(pid))) continue;
    if (journal) rollBack(root, tx, journal);
    else rmSync(tx, { recursive: true, force: true });
  }
}
