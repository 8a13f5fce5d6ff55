// What the workspace looks like, bounded for a prompt: the files git knows (tracked, and untracked
// but not ignored), else a directory walk. A big repository is cut to its shallowest paths, so the
// agent sees the shape of the project rather than the first folder in alphabetical order.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../exec/git';
import { BRAID_DIR } from '../engine/records/braidLayout';

export const DEFAULT_MAX_PATHS = 300;
// Folders no plan needs to see and that can hold millions of files.
const SKIPPED = new Set(['node_modules', '.git', BRAID_DIR]);
// A walk outside git stops after this many directory entries, however deep.
const WALK_LIMIT = 20_000;

export interface WorkspaceLayout {
  /** Workspace-relative paths with `/` separators, sorted; at most the maximum asked for. */
  readonly paths: readonly string[];
  /** How many files were found in all (more than `paths.length` when cut). */
  readonly total: number;
  /** Where the list came from; `git` also means the workspace is a git repository. */
  readonly source: 'git' | 'walk';
}

const skipped = (path: string): boolean => path.split('/').some((seg) => SKIPPED.has(seg));
const depth = (path: string): number => path.split('/').length;

/** The shallowest `max` of `all`, then in path order. */
export function boundPaths(all: readonly string[], max: number): string[] {
  if (all.length <= max) return [...all].sort();
  return [...all]
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, max)
    .sort();
}

/** A bounded listing of `workspace`'s files, skipping node_modules, .git and .braid. */
export async function workspaceLayout(workspace: string, max: number = DEFAULT_MAX_PATHS): Promise<WorkspaceLayout> {
  const r = await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: workspace });
  if (r.code === 0) {
    // --cached lists a file deleted from the tree but still staged; dedupe what both lists hold.
    const all = [...new Set(r.stdout.split('\0').filter((p) => p !== '' && !skipped(p)))];
    return { paths: boundPaths(all, max), total: all.length, source: 'git' };
  }
  const all = await walk(workspace);
  return { paths: boundPaths(all, max), total: all.length, source: 'walk' };
}

async function walk(root: string): Promise<string[]> {
  const files: string[] = [];
  let seen = 0;
  // Breadth first, so when the walk limit hits it has covered the top levels.
  let level = [''];
  while (level.length > 0 && seen < WALK_LIMIT) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = await readdir(join(root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (++seen > WALK_LIMIT) break;
        if (SKIPPED.has(e.name)) continue;
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) next.push(rel);
        else if (e.isFile() || e.isSymbolicLink()) files.push(rel);
      }
    }
    level = next.sort();
  }
  return files;
}

/** The listing as prompt text: one path a line, and how many were left out. */
export function formatLayout(layout: WorkspaceLayout): string {
  if (layout.paths.length === 0) return '(the workspace is empty)';
  const more = layout.total - layout.paths.length;
  return (
    layout.paths.join('\n') +
    (more > 0 ? `\n… and ${more} more file${more === 1 ? '' : 's'} (deeper paths left out)` : '')
  );
}
