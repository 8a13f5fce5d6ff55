// Landing a worktree step's change (base → result) in the workspace: every path is decided first,
// in memory and in temp files, as a 3-way merge of (base, the workspace file as it is now, result);
// only when all of them are clean does anything get written (see applyChanges).
//
// The user's index is deliberately left alone: it is theirs (what they staged stays staged), and
// updating it would take index.lock, racing their own git, their editor's git or a hook. The
// landed change shows as unstaged edits (new files as untracked), ready for them to review.
import { lstatSync, type Stats } from 'node:fs';
import { mkdir, mkdtemp, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { escapesWorkspace } from '../../paths/containment';
import { globMatcher } from '../../paths/glob';
import { randomUUID } from 'node:crypto';
import { gitBuffer, gitOk, readBlobs, splitZ } from '../../exec/git';
import { applyStaged, type ApplyOp, type LandedMark } from './applyChanges';
import { ensureBraidDir } from './worktreeSetup';
import { tmpDir } from '../records/braidLayout';

interface Side {
  readonly mode: string;
  readonly sha: string;
}
interface Change {
  readonly path: string;
  readonly base?: Side;
  readonly result?: Side;
}

type Current =
  | { kind: 'none' }
  | { kind: 'file'; exec: boolean }
  | { kind: 'link'; target: Buffer }
  | { kind: 'dir' }
  | { kind: 'other' };

type Decision =
  | { kind: 'noop' }
  | { kind: 'delete' }
  | { kind: 'put'; mode: string; sha: string }
  | { kind: 'merge'; exec: boolean }
  | { kind: 'conflict'; why: string };

export type MergeBackResult =
  | { ok: true; changed: string[] }
  | { ok: false; kind: 'out-of-set'; paths: string[]; message: string }
  | { ok: false; kind: 'conflict'; paths: string[]; message: string };

const ZERO = /^0+$/;
const MERGE_PARALLEL = 8;

/** The change base → result, renames split into a deletion and an addition. */
export async function diffTrees(root: string, base: string, result: string): Promise<Change[]> {
  const fields = splitZ(
    await gitOk(['diff-tree', '-r', '-z', '--no-renames', '--no-abbrev', base, result], { cwd: root }),
  );
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldSha, newSha] = fields[i]!.slice(1).split(' ');
    changes.push({
      path: fields[i + 1]!,
      ...(ZERO.test(oldMode!) ? {} : { base: { mode: oldMode!, sha: oldSha! } }),
      ...(ZERO.test(newMode!) ? {} : { result: { mode: newMode!, sha: newSha! } }),
    });
  }
  return changes;
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    // Absent (or unreadable) is the answer the caller compares.
    return undefined;
  }
}

function fingerprint(p: string): string {
  const s = lstatOrUndefined(p);
  return s ? `${s.mode}:${s.size}:${s.ino}:${s.mtimeMs}` : 'none';
}

async function current(root: string, path: string): Promise<Current> {
  const s = lstatOrUndefined(join(root, path));
  if (!s) return { kind: 'none' };
  if (s.isSymbolicLink())
    return { kind: 'link', target: Buffer.from(await readlink(join(root, path), { encoding: 'buffer' })) };
  if (s.isDirectory()) return { kind: 'dir' };
  if (s.isFile()) return { kind: 'file', exec: (s.mode & 0o100) !== 0 };
  return { kind: 'other' };
}

/** Blob ids of workspace files as git would store them (clean filters, eol): one process. */
async function hashFiles(root: string, paths: readonly string[], write: boolean): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  const out = await gitOk(['hash-object', ...(write ? ['-w'] : []), '--stdin-paths'], {
    cwd: root,
    input: paths.map((p) => `${p}\n`).join(''),
  });
  const shas = out.split('\n');
  return new Map(paths.map((p, i) => [p, shas[i]!]));
}

function decide(c: Change, cur: Current, curSha: string | undefined, links: Map<string, Buffer>): Decision {
  const { base, result } = c;
  if (base?.mode === '160000' || result?.mode === '160000')
    return { kind: 'conflict', why: 'submodule changes are not merged back' };
  if (result?.mode === '120000') {
    // A link is data until something follows it: one out of the workspace would let the next
    // step, or the user's tools, write where no `writes` reaches.
    const target = links.get(result.sha)!.toString();
    if (escapesWorkspace(posix.join(posix.dirname(c.path), target)) || posix.isAbsolute(target)) {
      return { kind: 'conflict', why: `a symbolic link to ${JSON.stringify(target)}, outside the workspace` };
    }
  }
  const matches = (side: Side | undefined): boolean => {
    if (!side) return cur.kind === 'none';
    if (side.mode === '120000') return cur.kind === 'link' && cur.target.equals(links.get(side.sha)!);
    return cur.kind === 'file' && curSha === side.sha;
  };
  const baseExec = base?.mode === '100755';
  const curExec = cur.kind === 'file' && process.platform !== 'win32' ? cur.exec : baseExec;
  if (!result) {
    if (cur.kind === 'none') return { kind: 'noop' };
    return matches(base)
      ? { kind: 'delete' }
      : { kind: 'conflict', why: 'deleted by the step, changed in the workspace' };
  }
  const resExec = result.mode === '100755';
  // Each side may flip the exec bit; the workspace's own flip wins over none by the step.
  const exec = !base || curExec === baseExec ? resExec : curExec;
  const mode = result.mode === '120000' ? result.mode : exec ? '100755' : '100644';
  if (cur.kind === 'dir') return { kind: 'conflict', why: 'a directory is in the way' };
  if (cur.kind === 'other') return { kind: 'conflict', why: 'a special file is in the way' };
  if (matches(result)) {
    return result.mode === '120000' || cur.kind !== 'file' || curExec === exec
      ? { kind: 'noop' }
      : { kind: 'put', mode, sha: result.sha };
  }
  if (!base) {
    return cur.kind === 'none'
      ? { kind: 'put', mode, sha: result.sha }
      : { kind: 'conflict', why: 'an untracked file with other content is in the way' };
  }
  if (cur.kind === 'none') return { kind: 'conflict', why: 'changed by the step, deleted in the workspace' };
  if (matches(base)) return { kind: 'put', mode, sha: result.sha };
  if (cur.kind === 'file' && base.mode !== '120000' && result.mode !== '120000') return { kind: 'merge', exec };
  return { kind: 'conflict', why: 'changed on both sides' };
}

/** 3-way merges of regular files in temp files (`git merge-file`); the merged blob, or why not. */
async function mergeFiles(
  root: string,
  merges: ReadonlyArray<{ c: Change; exec: boolean }>,
): Promise<Map<string, Decision>> {
  const out = new Map<string, Decision>();
  if (merges.length === 0) return out;
  const curShas = await hashFiles(
    root,
    merges.map((m) => m.c.path),
    true,
  );
  const blobs = await readBlobs(root, [
    ...merges.flatMap((m) => [m.c.base!.sha, m.c.result!.sha]),
    ...curShas.values(),
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'braid-merge-'));
  try {
    const clean: Array<{ path: string; file: string; exec: boolean }> = [];
    const mergeOne = async ({ c, exec }: { c: Change; exec: boolean }, i: number): Promise<void> => {
      const f = (n: string) => join(dir, `${i}.${n}`);
      await writeFile(f('ours'), blobs.get(curShas.get(c.path)!)!);
      await writeFile(f('base'), blobs.get(c.base!.sha)!);
      await writeFile(f('theirs'), blobs.get(c.result!.sha)!);
      const r = await gitBuffer(
        ['merge-file', '-p', '-L', 'workspace', '-L', 'base', '-L', 'step', f('ours'), f('base'), f('theirs')],
        { cwd: root },
      );
      if (r.code !== 0) {
        out.set(c.path, {
          kind: 'conflict',
          why: /binary/i.test(r.stderr) ? 'a binary file changed on both sides' : 'both sides changed the same lines',
        });
        return;
      }
      await writeFile(f('merged'), r.stdout);
      clean.push({ path: c.path, file: f('merged'), exec });
    };
    // A few merge-file processes at a time: each is a few milliseconds of mostly process start.
    for (let i = 0; i < merges.length; i += MERGE_PARALLEL) {
      await Promise.all(merges.slice(i, i + MERGE_PARALLEL).map((m, k) => mergeOne(m, i + k)));
    }
    if (clean.length > 0) {
      // The merged bytes are already clean (made from clean blobs): stored as they are.
      const shas = (
        await gitOk(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
          cwd: root,
          input: clean.map((m) => `${m.file}\n`).join(''),
        })
      ).split('\n');
      clean.forEach((m, i) => out.set(m.path, { kind: 'put', mode: m.exec ? '100755' : '100644', sha: shas[i]! }));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

/**
 * Merges a worktree step's change (base → result) into the workspace, keeping the user's own
 * uncommitted edits and untracked files; all of it lands, or nothing does and the paths are named.
 */
export async function mergeBack(o: {
  root: string;
  base: string;
  result: string;
  writes: readonly string[];
  landed?: LandedMark;
}): Promise<MergeBackResult> {
  const changes = await diffTrees(o.root, o.base, o.result);
  const changed = changes.map((c) => c.path);
  if (changes.length === 0) return { ok: true, changed };
  const allowed = o.writes.length > 0 ? globMatcher(o.writes, { dot: true }) : () => false;
  const outside = changed.filter((p) => !allowed(p));
  if (outside.length > 0) {
    return {
      ok: false,
      kind: 'out-of-set',
      paths: outside,
      message: `the step changed ${outside.length === 1 ? 'a path' : 'paths'} outside its writes (${o.writes.join(', ') || 'none'}): ${outside.join(', ')}; nothing was merged`,
    };
  }
  const marks = new Map(changed.map((p) => [p, fingerprint(join(o.root, p))]));
  const conflicts = new Map<string, string>();
  const missingDirs = new Map<string, string[]>();
  const currents = new Map<string, Current>();
  for (const c of changes) {
    if (/[\n\r]/.test(c.path)) conflicts.set(c.path, 'a file name with a line break is not supported');
    currents.set(c.path, await current(o.root, c.path));
    if (!c.result) continue;
    for (let d = dirname(c.path); d !== '.'; d = dirname(d)) {
      const s = lstatOrUndefined(join(o.root, d));
      if (!s) missingDirs.set(c.path, [...(missingDirs.get(c.path) ?? []), d]);
      else if (!s.isDirectory())
        conflicts.set(c.path, `${d} is in the way (${s.isSymbolicLink() ? 'a symbolic link' : 'a file'})`);
    }
  }
  const filePaths = changes
    .filter((c) => currents.get(c.path)!.kind === 'file' && !conflicts.has(c.path))
    .map((c) => c.path);
  const curShas = await hashFiles(o.root, filePaths, false);
  const links = await readBlobs(
    o.root,
    changes
      .flatMap((c) => [c.base, c.result])
      .filter((s) => s?.mode === '120000')
      .map((s) => s!.sha),
  );
  const decisions = new Map<string, Decision>();
  const merges: Array<{ c: Change; exec: boolean }> = [];
  for (const c of changes) {
    if (conflicts.has(c.path)) continue;
    const d = decide(c, currents.get(c.path)!, curShas.get(c.path), links);
    if (d.kind === 'merge') merges.push({ c, exec: d.exec });
    else decisions.set(c.path, d);
  }
  for (const [p, d] of await mergeFiles(o.root, merges)) decisions.set(p, d);
  for (const [p, d] of decisions) if (d.kind === 'conflict') conflicts.set(p, d.why);
  if (conflicts.size > 0) return conflict(conflicts);

  const puts = [...decisions].filter((e): e is [string, Extract<Decision, { kind: 'put' }>] => e[1].kind === 'put');
  const ops: ApplyOp[] = [];
  for (const [path, d] of decisions) if (d.kind === 'put' || d.kind === 'delete') ops.push({ kind: d.kind, path });
  if (ops.length === 0) return { ok: true, changed };
  await ensureBraidDir(o.root);
  const tx = join(tmpDir(o.root), `merge-${process.pid}-${randomUUID().slice(0, 8)}`);
  await mkdir(join(tx, 'new'), { recursive: true });
  try {
    if (puts.length > 0) {
      // git's own checkout writes the new contents (smudge filters, eol, exec bit, symlinks),
      // from a temporary index holding just these entries, into the staging directory.
      const env = { GIT_INDEX_FILE: join(tx, 'index') };
      const info = puts.map(([p, d]) => `${d.mode} ${d.sha}\t${p}\0`).join('');
      await gitOk(['update-index', '-z', '--index-info'], { cwd: o.root, env, input: info });
      await gitOk(['checkout-index', '-a', '-f', `--prefix=${join(tx, 'new')}/`], { cwd: o.root, env });
    }
  } catch (e) {
    await rm(tx, { recursive: true, force: true });
    throw e;
  }
  // The user may have saved a file while we worked: then our reading of it is stale.
  const moved = changed.filter((p) => fingerprint(join(o.root, p)) !== marks.get(p));
  if (moved.length > 0) {
    await rm(tx, { recursive: true, force: true });
    return conflict(new Map(moved.map((p) => [p, 'changed in the workspace during the merge'])));
  }
  const dirs = new Set(puts.flatMap(([p]) => missingDirs.get(p) ?? []));
  const order = [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  const applied = applyStaged(o.root, tx, ops, order, o.landed);
  if (!applied.ok) return { ok: false, kind: 'conflict', paths: ops.map((op) => op.path), message: applied.message };
  return { ok: true, changed };
}

function conflict(conflicts: ReadonlyMap<string, string>): MergeBackResult {
  const paths = [...conflicts.keys()];
  const list = [...conflicts].map(([p, why]) => `${p} (${why})`).join(', ');
  return {
    ok: false,
    kind: 'conflict',
    paths,
    message: `the step's change does not merge into the workspace: ${list}; nothing was changed`,
  };
}
