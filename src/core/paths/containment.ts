import * as fs from 'node:fs';
import * as path from 'node:path';

// Plan paths (`cwd`, `writes`, `reads`, `output`) are relative to the workspace and must stay in
// it. Backslashes count as separators here: on Windows `..\x` escapes, and a glob escape
// (`\*`) never forms a `..` segment, so treating them alike only rejects paths that could escape.

/** True if a relative path or glob is absolute, has a drive letter, or climbs out of the root. */
export function escapesWorkspace(relPathOrGlob: string): boolean {
  const p = relPathOrGlob.trim().replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || path.win32.isAbsolute(relPathOrGlob)) return true;
  let depth = 0;
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      depth--;
      if (depth < 0) return true;
    } else if (seg !== '**') {
      // `**` may match no segment at all, so it earns no depth a later `..` could spend.
      depth++;
    }
  }
  return false;
}

/**
 * The absolute path of `rel` under `root`, or undefined if it escapes the root, lexically or
 * through a symlink on the part of the path that already exists.
 */
export function resolveInside(root: string, rel: string): string | undefined {
  if (escapesWorkspace(rel)) return undefined;
  const absRoot = path.resolve(root);
  const abs = path.resolve(absRoot, rel);
  if (!isWithin(absRoot, abs)) return undefined;
  // The root itself (a step's usual directory): nothing between them to resolve.
  if (abs === absRoot) return abs;
  const realRoot = realpathOrSelf(absRoot);
  const realTarget = realpathOfExistingPrefix(abs);
  return realTarget !== undefined && isWithin(realRoot, realTarget) ? abs : undefined;
}

function isWithin(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function realpathOrSelf(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

// The path may not exist yet (an output file a step will write), but a part that does exist may
// be a symlink pointing elsewhere, even a dangling one (writing through it would create the file
// outside): resolve the longest existing prefix, follow dangling links, keep the rest.
// Undefined when it cannot be resolved (a loop, no permission): not provably inside.
function realpathOfExistingPrefix(abs: string): string | undefined {
  let existing = abs;
  let rest: string[] = [];
  for (let hops = 0; hops < 64; hops++) {
    try {
      const real = fs.realpathSync.native(existing);
      return path.join(real, ...rest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
    }
    const link = readlinkOrUndefined(existing);
    if (link !== undefined) {
      existing = path.resolve(path.dirname(existing), link);
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return path.join(existing, ...rest);
    rest = [path.basename(existing), ...rest];
    existing = parent;
  }
  return undefined;
}

function readlinkOrUndefined(p: string): string | undefined {
  try {
    return fs.readlinkSync(p);
  } catch {
    return undefined;
  }
}
