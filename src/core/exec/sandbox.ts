// `sandbox: true`: a step's process confined with bubblewrap (Linux; Debian's `bubblewrap`
// package): the whole file system read-only, a private temp folder, and writable only its tree
// (a worktree step) or the folders its `writes` name (a shared step). Not a container: the
// network, the user's processes and what the user can read stay reachable.
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const BWRAP = 'bwrap';

/** Where `bwrap` is on `path`, or undefined (then a sandboxed step cannot start). */
export function findBwrap(path: string | undefined): string | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, BWRAP))) return join(dir, BWRAP);
  }
  return undefined;
}

export interface SandboxSpec {
  readonly bwrap: string;
  /** Shown read-only even when it is under the temp folder (the workspace). */
  readonly readOnly: readonly string[];
  /** Writable, in this order (later binds inside earlier ones); created if missing. */
  readonly writable: readonly string[];
  readonly cwd: string;
}

/** argv that runs `argv` inside the sandbox. */
export function sandboxArgv(argv: readonly string[], s: SandboxSpec): string[] {
  const out = [
    s.bwrap,
    '--die-with-parent',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    tmpdir(),
  ];
  for (const p of s.readOnly) if (existsSync(p)) out.push('--ro-bind', p, p);
  for (const p of s.writable) {
    mkdirSync(p, { recursive: true });
    out.push('--bind', p, p);
  }
  out.push('--chdir', s.cwd, '--', ...argv);
  return out;
}
