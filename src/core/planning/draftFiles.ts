// The drafts of a best-of plan on disk: scratch files beside the plan file, named after it
// (plan.braid.yaml → plan.draft-1.braid.yaml, …), found again later by that name, and resolved
// by keeping one: it becomes the plan file, the others are removed unless asked to stay.
import { readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const EXT = /((?:\.braid)?\.(?:ya?ml|json))$/i;

function split(target: string): { dir: string; stem: string; ext: string } {
  const base = basename(target);
  const m = EXT.exec(base);
  return m
    ? { dir: dirname(target), stem: base.slice(0, m.index), ext: m[1]! }
    : { dir: dirname(target), stem: base, ext: '.braid.yaml' };
}

/** The scratch file of draft `index` (1-based) of the plan `target`. */
export function draftFile(target: string, index: number): string {
  const { dir, stem, ext } = split(target);
  return join(dir, `${stem}.draft-${index}${ext}`);
}

export interface DraftOnDisk {
  readonly index: number;
  readonly file: string;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The drafts of `target` that are on disk now, by number. */
export async function findDrafts(target: string): Promise<DraftOnDisk[]> {
  const { dir, stem, ext } = split(target);
  const pattern = new RegExp(`^${escape(stem)}\\.draft-([1-9]\\d*)${escape(ext)}$`);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .flatMap((n) => {
      const m = pattern.exec(n);
      return m ? [{ index: Number(m[1]), file: join(dir, n) }] : [];
    })
    .sort((a, b) => a.index - b.index);
}

export interface KeptDraft {
  readonly file: string;
  /** The other drafts, removed (or left, with keepOthers). */
  readonly others: readonly string[];
}

/**
 * Makes draft `keep` the plan file `target` (replacing it: callers ask first) and removes the
 * other drafts of `target` found on disk, unless `keepOthers`.
 */
export async function keepDraft(
  target: string,
  keep: string,
  o: { readonly keepOthers?: boolean } = {},
): Promise<KeptDraft> {
  const others = (await findDrafts(target)).map((d) => d.file).filter((f) => f !== keep);
  await rename(keep, target);
  if (!o.keepOthers) {
    for (const f of others)
      await unlink(f).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
  }
  return { file: target, others };
}

/** Removes every draft of `target` on disk (a race abandoned before one was kept, by choice). */
export async function removeDrafts(target: string): Promise<string[]> {
  const files = (await findDrafts(target)).map((d) => d.file);
  for (const f of files)
    await unlink(f).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  return files;
}
