// Preparing a new worktree from the plan: a sparse cone, and untracked workspace files copied or
// linked in (`.env`, `node_modules`).
import { cp, lstat, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import picomatch from 'picomatch';
import { globMatcher } from '../../paths/glob';
import { git, splitZ } from '../../exec/git';
import { braidDir, braidGitignore, isBraidPath } from '../records/braidLayout';

/** Normalises sparse cone paths; a path escaping the repository is a message, not a path. */
export function normaliseConePaths(
  paths: readonly string[],
): { ok: true; dirs: string[] } | { ok: false; message: string } {
  const dirs: string[] = [];
  for (const raw of paths) {
    const p = raw
      .replace(/\\/g, '/')
      .replace(/^(\.\/)+/, '')
      .replace(/\/+$/, '');
    if (p === '' || p === '.')
      return { ok: false, message: `sparse path "${raw}" names the whole repository; omit sparse instead` };
    if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split('/').some((s) => s === '..' || s === '.' || s === '')) {
      return { ok: false, message: `sparse path "${raw}" must be a relative directory inside the repository` };
    }
    dirs.push(p);
  }
  return { ok: true, dirs: [...new Set(dirs)].sort() };
}

function escapePattern(p: string): string {
  return p.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`);
}

/**
 * The cone-mode sparse-checkout file for these directories, in git's own layout: every top-level
 * file, each listed directory recursively, and only the direct files of its ancestors.
 */
export function conePatterns(dirs: readonly string[]): string {
  const recursive = dirs.filter((d) => !dirs.some((o) => o !== d && d.startsWith(`${o}/`)));
  const parents = new Set<string>();
  for (const d of recursive) {
    const parts = d.split('/');
    for (let i = 1; i < parts.length; i++) parents.add(parts.slice(0, i).join('/'));
  }
  const lines = ['/*', '!/*/'];
  for (const p of [...parents].sort()) {
    if (recursive.includes(p)) continue;
    lines.push(`/${escapePattern(p)}/`, `!/${escapePattern(p)}/*/`);
  }
  for (const r of recursive) lines.push(`/${escapePattern(r)}/`);
  return `${lines.join('\n')}\n`;
}

async function kindOf(path: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await lstat(path);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    // Absent: the caller copies nothing.
    return undefined;
  }
}

/**
 * Untracked and ignored workspace paths matching `patterns`. Candidates come from
 * `git ls-files --others --directory` (wholly untracked directories collapsed, so `node_modules`
 * is one entry and never walked); a directory is only walked from a pattern's literal base inside
 * it (`config/local/*.json`), so patterns are best kept top-level-ish: `**` patterns match the
 * collapsed entries only.
 */
export async function untrackedMatches(root: string, patterns: readonly string[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const r = await git(['ls-files', '--others', '--directory', '--no-empty-directory', '-z'], { cwd: root });
  if (r.code !== 0) throw new Error(`git ls-files --others failed in ${root}: ${r.stderr.trim()}`);
  const entries = splitZ(r.stdout)
    .map((e) => ({ path: e.replace(/\/$/, ''), dir: e.endsWith('/') }))
    .filter((e) => !isBraidPath(e.path) && e.path !== '.git');
  // The plan's globs, matched in linear time (paths/glob.ts); picomatch only for scan() below.
  const isMatch = globMatcher(patterns, { dot: true });
  const found = new Set<string>();
  for (const e of entries) if (isMatch(e.path)) found.add(e.path);
  for (const pattern of patterns) {
    const base = picomatch.scan(pattern).base;
    if (base === '') continue;
    const inside = entries.find((e) => e.dir && !found.has(e.path) && base.startsWith(`${e.path}/`));
    if (!inside) continue;
    const kind = await kindOf(join(root, base));
    if (kind === 'file') {
      if (isMatch(base)) found.add(base);
    } else if (kind === 'dir') {
      const rels = await readdir(join(root, base), { recursive: true });
      for (const rel of rels) {
        const p = `${base}/${rel.replace(/\\/g, '/')}`;
        if (isMatch(p)) found.add(p);
      }
    }
  }
  // A matched directory brings its contents: drop matches beneath another match.
  const all = [...found].sort();
  return all.filter((p) => !all.some((o) => o !== p && p.startsWith(`${o}/`)));
}

/**
 * Copies (or links) the matched untracked files into the worktree; a path the checkout already
 * has is left alone. Returns the workspace-relative paths placed.
 */
export async function bringIn(
  root: string,
  worktree: string,
  paths: readonly string[],
  how: 'copy' | 'symlink',
): Promise<string[]> {
  const placed: string[] = [];
  for (const p of paths) {
    const src = join(root, p);
    const dst = join(worktree, p);
    if (await kindOf(dst)) continue;
    await mkdir(dirname(dst), { recursive: true });
    if (how === 'copy') {
      await cp(src, dst, {
        recursive: true,
        verbatimSymlinks: true,
        preserveTimestamps: true,
        errorOnExist: false,
        force: false,
      });
    } else {
      // Absolute target: the link works from any depth; 'junction' matters only on Windows.
      await symlink(src, dst, (await kindOf(src)) === 'dir' ? 'junction' : 'file');
    }
    placed.push(p);
  }
  return placed;
}

/** Writes `.braid/.gitignore` (`*`) if it is missing, so Braid's records never show as untracked. */
export async function ensureBraidDir(root: string): Promise<void> {
  await mkdir(braidDir(root), { recursive: true });
  try {
    await writeFile(braidGitignore(root), '*\n', { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

// Files whose change means dependencies must be installed again: package managers' manifests,
// lockfiles and their config, at any depth (a monorepo's packages have their own).
const SETUP_INPUTS = picomatch(
  [
    '**/package.json',
    '**/package-lock.json',
    '**/npm-shrinkwrap.json',
    '**/yarn.lock',
    '**/pnpm-lock.yaml',
    '**/pnpm-workspace.yaml',
    '**/bun.lock',
    '**/bun.lockb',
    '**/.npmrc',
    '**/.yarnrc.yml',
    '**/requirements*.txt',
    '**/pyproject.toml',
    '**/poetry.lock',
    '**/uv.lock',
    '**/Pipfile',
    '**/Pipfile.lock',
    '**/setup.py',
    '**/setup.cfg',
    '**/Cargo.toml',
    '**/Cargo.lock',
    '**/go.mod',
    '**/go.sum',
    '**/go.work',
    '**/Gemfile',
    '**/Gemfile.lock',
    '**/composer.json',
    '**/composer.lock',
    '**/pom.xml',
    '**/build.gradle',
    '**/build.gradle.kts',
    '**/settings.gradle',
    '**/settings.gradle.kts',
    '**/gradle.lockfile',
    '**/*.csproj',
    '**/packages.lock.json',
    '**/Directory.Packages.props',
    '**/flake.nix',
    '**/flake.lock',
  ],
  { dot: true },
);

/**
 * Whether changed `paths` (repository-relative) may change what a `setup` command does: a
 * manifest or lockfile, or a file the command names (`./scripts/bootstrap.sh`). A worktree set up
 * ahead of its needs' results is rebuilt when their change touches one of these.
 */
export function touchesSetupInputs(paths: readonly string[], setup: string): boolean {
  const named = new Set(
    setup
      .split(/[\s'"`;&|()<>=]+/)
      .map((t) => t.replace(/^(\.\/)+/, ''))
      .filter((t) => t !== ''),
  );
  return paths.some((p) => SETUP_INPUTS(p) || named.has(p));
}
