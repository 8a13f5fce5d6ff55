// Landing a merge-back in the workspace all or nothing. New contents are staged under
// `.braid/tmp/<tx>/new/` (same file system, so each step is a rename), a journal is written
// first, and the renames run synchronously: a SIGINT handler cannot run half-way, and a crash
// (SIGKILL, power) leaves a journal that the next start rolls back.
// The commit point is a file of its own (`landed`, under the run's folder, written and renamed
// into place): a crash after it leaves the change in place and says so, so recovery finishes the
// merge (and the run's record takes the step as succeeded) instead of rolling it back or running
// the step a second time on a workspace that already has its change.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { tmpDir } from '../records/braidLayout';
import { pidAlive } from '../../exec/pidAlive';

export interface ApplyOp {
  readonly kind: 'put' | 'delete';
  /** Workspace-relative, `/`-separated. A put's new content is at `<tx>/new/<path>`. */
  readonly path: string;
}

interface StatMark {
  ino: number;
  size: number;
  mtimeMs: number;
}

interface Journal {
  pid: number;
  host: string;
  /** Directories created for new files, parents first. */
  dirs: string[];
  ops: Array<ApplyOp & { newMark?: StatMark }>;
  /** The commit mark's path: once it exists (naming this transaction) the change stays. */
  landed?: string;
}

/** What marks the change as landed: `text` (JSON with a `tx` field added) written to `file`. */
export interface LandedMark {
  readonly file: string;
  readonly record: Readonly<Record<string, unknown>>;
}

const JOURNAL = 'journal.json';

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    // lstat fails only for a path that is not there (or cannot be reached, which is the same here).
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

// A rename, or where `.braid` is on another file system than the workspace (a mount, a symlink
// to a RAM disk) a copy beside the destination renamed into place, then the source removed.
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
  }
  const tmp = join(dirname(to), `.braid-move-${process.pid}-${randomBytes(4).toString('hex')}`);
  const s = lstatSync(from);
  if (s.isSymbolicLink()) symlinkSync(readlinkSync(from), tmp);
  else {
    copyFileSync(from, tmp);
    chmodSync(tmp, s.mode & 0o7777);
  }
  try {
    renameSync(tmp, to);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  unlinkSync(from);
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
      // A hard link fails across devices or on file systems without them: copy instead.
      copyFileSync(target, to);
    }
  }
}

// git writes new contents 0644 or 0755 (after the umask); a file the user had made read-only
// (0444) or private (0600) keeps its own bits, with the exec bits the merge decided.
function keepPermissions(target: string, staged: string): void {
  let old, now;
  try {
    old = lstatSync(target);
    now = lstatSync(staged);
  } catch {
    // Either side gone: there are no bits to keep.
    return;
  }
  if (!old.isFile() || !now.isFile()) return;
  const exec = (now.mode & 0o111) !== 0 ? (old.mode & 0o444) >> 2 : 0;
  const mode = (old.mode & 0o7666) | exec;
  if ((now.mode & 0o7777) !== mode) chmodSync(staged, mode);
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

// Temp file, fsync, rename: the mark is there whole or not at all.
function writeDurably(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Whether the transaction `tx` reached its commit mark. */
function committed(tx: string, journal: Journal): boolean {
  if (!journal.landed) return false;
  try {
    return (JSON.parse(readFileSync(journal.landed, 'utf8')) as { tx?: unknown }).tx === basename(tx);
  } catch {
    // No mark or a torn one: the transaction never committed.
    return false;
  }
}

function removeEmptyParents(root: string, rel: string): void {
  for (let d = dirname(rel); d !== '.' && d !== ''; d = dirname(d)) {
    try {
      rmdirSync(join(root, d));
    } catch {
      // Not empty, or already gone: parents above it are not empty either.
      return;
    }
  }
}

/**
 * Applies staged puts, then deletions, to the workspace. Either every op lands or none does
 * (an error rolls back what was done); returns the error's message in that case.
 */
export function applyStaged(
  root: string,
  tx: string,
  ops: readonly ApplyOp[],
  dirs: readonly string[],
  landed?: LandedMark,
): { ok: true } | { ok: false; message: string } {
  const ordered = [...ops.filter((o) => o.kind === 'put'), ...ops.filter((o) => o.kind === 'delete')];
  for (const op of ordered) if (op.kind === 'put') keepPermissions(join(root, op.path), join(tx, 'new', op.path));
  const journal: Journal = {
    pid: process.pid,
    host: hostname(),
    dirs: [...dirs],
    ops: ordered.map((o) => (o.kind === 'put' ? { ...o, newMark: mark(join(tx, 'new', o.path)) } : { ...o })),
    ...(landed ? { landed: landed.file } : {}),
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
        move(join(tx, 'new', op.path), target);
        rec.moved = true;
      } else if (lexists(target)) {
        move(target, old);
        rec.old = old;
      }
    });
    if (landed)
      writeDurably(
        landed.file,
        JSON.stringify({ ...landed.record, tx: basename(tx), time: new Date().toISOString() }) + '\n',
      );
  } catch (e) {
    for (const rec of done.reverse()) {
      const target = join(root, rec.op.path);
      if (rec.op.kind === 'put' && rec.moved) {
        if (rec.old) move(rec.old, target);
        else unlinkSync(target);
      } else if (rec.op.kind === 'delete' && rec.old) move(rec.old, target);
    }
    for (const d of created.reverse()) rmdirSync(join(root, d));
    rmSync(tx, { recursive: true, force: true });
    return {
      ok: false,
      message: `could not write the change into the workspace (${(e as Error).message}); nothing was changed`,
    };
  }
  // The commit point (with a mark: its rename, above): from here on the change stays.
  unlinkSync(join(tx, JOURNAL));
  rmSync(tx, { recursive: true, force: true });
  for (const op of ordered) if (op.kind === 'delete') removeEmptyParents(root, op.path);
  return { ok: true };
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
      move(old, target);
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
  const tmp = tmpDir(root);
  if (!existsSync(tmp)) return;
  for (const name of readdirSync(tmp)) {
    if (!name.startsWith('merge-') || name.endsWith('.kept')) continue;
    const tx = join(tmp, name);
    let journal: Journal | undefined;
    try {
      journal = JSON.parse(readFileSync(join(tx, JOURNAL), 'utf8')) as Journal;
    } catch {
      // No journal or a torn one: the transaction never began writing, so there is nothing to undo.
      journal = undefined;
    }
    const pid = Number(/^merge-(\d+)-/.exec(name)?.[1]);
    // Another live engine (a second window) may be mid-merge: not ours to touch.
    if (journal ? journal.host === hostname() && pidAlive(journal.pid) : pidAlive(pid)) continue;
    if (journal && !committed(tx, journal)) rollBack(root, tx, journal);
    else rmSync(tx, { recursive: true, force: true }); // nothing applied yet, or all of it landed
  }
}
