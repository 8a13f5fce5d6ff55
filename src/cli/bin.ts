// The `braid` command (out/cli.js): runs the CLI's bundle (out/cli/main.js) from V8's code cache.
// Compiling the bundle's code was a third of a command's own start (issue 35, docs/decisions/cli-start.md);
// Node 20 has no module.enableCompileCache (22.1+) and no cache for ES modules, so the bundle is one
// CommonJS script compiled here with the bytes V8 made the last time this command ran. A missing,
// stale or rejected cache is only slower: the command runs, and leaves a cache for the next time.
// `braid validate` runs a bundle of its own, without the engine (bundleFor.ts).
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { Script } from 'node:vm';
import { bundleFor, firstPlanDir } from './bundleFor';
import { askGitTop } from './gitTop';

// One cache a command: each holds the functions its own command compiled (others compile lazily).
// A word not listed shares `other`, so a typo makes no file.
const COMMANDS = new Set(
  'validate graph run retry resolve status logs serve clean runs pick diff approve reject revert merge attach say plan export mcp'.split(
    ' ',
  ),
);

/**
 * Where caches live: code/ in Braid's cache folder, found as braidCacheDir (worktreeHome.ts) finds
 * it, not imported from there (it loads node:crypto); none when BRAID_CODE_CACHE=off.
 */
function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.BRAID_CODE_CACHE === 'off') return undefined;
  if (env.BRAID_CODE_CACHE_DIR) return env.BRAID_CODE_CACHE_DIR;
  if (env.BRAID_CACHE_DIR) return join(env.BRAID_CACHE_DIR, 'code');
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'braid', 'code');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'braid', 'cache', 'code');
  return join(homedir(), '.cache', 'braid', 'code');
}

const readOrUndefined = (file: string): Buffer | undefined => {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
};

/** Written whole (rename), so that a command started meanwhile reads the old cache, the new one or none. */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, file);
    // Other builds' caches of this bundle go once they are an hour old: an upgrade leaves no
    // megabytes behind, and two installs used in turn (the extension's and npm's) do not evict each
    // other at every start. A file's name starts with its bundle's (`cli-`: main.js).
    const build = file.slice(0, file.lastIndexOf('-'));
    const name = basename(file).slice(0, basename(file).indexOf('-') + 1);
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (f.startsWith(name) && !p.startsWith(build) && Date.now() - statSync(p).mtimeMs > 3_600_000)
        rmSync(p, { force: true });
    }
  } catch {
    // A read-only or full cache folder: the next start compiles again, nothing worse.
  }
}

/** The bundle's text and the key of its cache: its hash (the build's last line), size and mtime. */
function readBundle(bundle: string): { source: string; key: string | undefined } {
  const fd = openSync(bundle, 'r');
  try {
    const { size, mtimeMs } = fstatSync(fd);
    const source = readFileSync(fd, 'utf8');
    const hash = /\/\/ braid-bundle ([0-9a-f]+)\n$/.exec(source.slice(-64))?.[1];
    // V8 checks only the source's length and its own flags: a cache of other code of the same length
    // would run that code. The build's hash names the code; size and mtime, a bundle edited by hand.
    return { source, key: hash && `${hash}-${size}-${Math.trunc(mtimeMs)}` };
  } finally {
    closeSync(fd);
  }
}

function start(): void {
  // `braid validate` waited last for git's answer (its workspace): asked now, git runs while the
  // bundle is read, deserialised and run.
  const planDir = firstPlanDir(process.argv.slice(2));
  const gitTop = planDir === undefined ? undefined : askGitTop(planDir);
  const file = bundleFor(process.argv.slice(2));
  const bundle = join(__dirname, 'cli', file);
  const { source, key: bundleKey } = readBundle(bundle);
  const dir = bundleKey ? cacheDir(process.env) : undefined;
  const cmd = process.argv[2] ?? '';
  // main.js's caches keep the name they had before validate.js was split off (`cli-`).
  const name = file === 'main.js' ? 'cli' : `cli.${file.slice(0, -3)}`;
  const key = dir
    ? join(dir, `${name}-${bundleKey}-${process.versions.v8}-${process.arch}-${COMMANDS.has(cmd) ? cmd : 'other'}`)
    : undefined;
  const cachedData = key ? readOrUndefined(key) : undefined;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (process.env.BRAID_CODE_CACHE_DEBUG) process.stderr.write(`braid: code cache ${used ? 'used' : 'made'}\n`);
  // Made at exit, so that it holds every function this command compiled, not just the top level.
  if (dir && key && !used) process.once('exit', () => writeCache(dir, key, script.createCachedData()));
  const mod = { exports: {} as { start(file: string, gitTop?: Promise<string>): void } };
  (script.runInThisContext() as (...a: unknown[]) => void).call(
    mod.exports,
    mod.exports,
    createRequire(bundle),
    mod,
    bundle,
    join(__dirname, 'cli'),
  );
  mod.exports.start(__filename, gitTop);
}

try {
  start();
} catch (e) {
  process.stderr.write(`braid: cannot start: ${(e as Error).stack}\n`);
  process.exitCode = 70;
}
