// A small promise wrapper around the git CLI: results are data ({code, stdout, stderr}), never throws
// for a non-zero exit, so callers decide which failures are expected.
import { spawn } from 'node:child_process';
import { devNull } from 'node:os';

export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitBufferResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface GitOptions {
  readonly cwd: string;
  readonly input?: string | Buffer;
  /** Added to the cleaned environment (e.g. GIT_INDEX_FILE for a temporary index). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Settings on every call, so Braid never depends on the user's global config: an identity and no
 * signing for the commits it makes, no hooks (a user's pre-commit or post-checkout hook must not
 * run, or block, inside Braid's worktrees), and no fsmonitor daemon started per worktree.
 */
export const GIT_CONFIG: readonly string[] = [
  '-c',
  'user.name=Braid',
  '-c',
  'user.email=braid@localhost',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'tag.gpgsign=false',
  '-c',
  `core.hooksPath=${devNull}`,
  '-c',
  'core.fsmonitor=false',
];

// Variables that would point git at another repository or index than the cwd's (set when Braid
// itself runs from a git hook, for instance).
const REPO_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_PREFIX',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
];

function gitEnv(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of REPO_ENV) delete env[k];
  // C locale: messages are parsed in places; no prompts; read-only commands must not take
  // index.lock to refresh stat data (that would race the user's own git).
  env.LC_ALL = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  return { ...env, ...extra };
}

/** Runs `git <GIT_CONFIG> <args>` in `o.cwd` and returns stdout as raw bytes. */
export function gitBuffer(args: readonly string[], o: GitOptions): Promise<GitBufferResult> {
  return new Promise((resolve) => {
    const child = spawn('git', [...GIT_CONFIG, ...args], {
      cwd: o.cwd,
      env: gitEnv(o.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let spawnError: Error | undefined;
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      spawnError = e;
    });
    // git may exit before reading all of stdin (e.g. a bad ref): that EPIPE is not our failure.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (spawnError) {
        resolve({ code: 127, stdout: Buffer.alloc(0), stderr: `could not run git: ${spawnError.message}` });
        return;
      }
      resolve({ code: code ?? 128, stdout: Buffer.concat(out), stderr });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** Runs git and returns stdout as UTF-8 text. */
export async function git(args: readonly string[], o: GitOptions): Promise<GitResult> {
  const r = await gitBuffer(args, o);
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

/** Like `git`, but a non-zero exit is a broken invariant: throws with the command and stderr. */
export async function gitOk(args: readonly string[], o: GitOptions): Promise<string> {
  const r = await git(args, o);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}) in ${o.cwd}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Splits NUL-separated output (`-z`), dropping the empty tail. */
export function splitZ(s: string): string[] {
  const parts = s.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** The first line of git's stderr, for user-facing messages. */
export function firstLine(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line.replace(/^(fatal|error): /, '');
}

/**
 * Reads raw blob contents through one `git cat-file --batch` process. The header's size is exact
 * for raw blobs (with `--filters` git 2.39 reports the unfiltered size, so smudged content is
 * obtained with `checkout-index` instead).
 */
export async function readBlobs(cwd: string, shas: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(shas)];
  const result = new Map<string, Buffer>();
  if (unique.length === 0) return result;
  const r = await gitBuffer(['cat-file', '--batch'], { cwd, input: unique.map((s) => `${s}\n`).join('') });
  if (r.code !== 0) throw new Error(`git cat-file --batch failed in ${cwd}: ${r.stderr.trim()}`);
  let pos = 0;
  for (const sha of unique) {
    const nl = r.stdout.indexOf(0x0a, pos);
    const header = r.stdout.subarray(pos, nl).toString('utf8');
    const m = /^(\S+) (\S+) (\d+)$/.exec(header);
    if (!m) throw new Error(`git cat-file --batch: object ${sha} is ${header}`);
    const size = Number(m[3]);
    result.set(sha, r.stdout.subarray(nl + 1, nl + 1 + size));
    pos = nl + 1 + size + 1;
  }
  return result;
}
