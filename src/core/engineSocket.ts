// Where a workspace's engine listens, and the checks on its folder. The extension and the engine
// compute it the same way from the same inputs (the protocol they speak among them), so finding
// the engine needs no file to read and no port to agree on. In the core, not src/protocol: it
// reads the file system.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// sun_path is 108 bytes on Linux and 104 on macOS, including the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 103;

export interface SocketPathInputs {
  readonly platform: NodeJS.Platform;
  /** XDG_RUNTIME_DIR when set (per-user, private, cleaned at logout), else the temp folder. */
  readonly runtimeDir?: string | undefined;
  readonly tmpdir: string;
  /** The user's id: the temp-folder fallback is a folder of this user's own, `braid-<uid>`. */
  readonly uid?: number | undefined;
  /** The engine protocol's version (src/protocol/engine.ts). */
  readonly protocol: number;
}

/** The socket (POSIX) or named pipe (Windows) of the engine for `realWorkspace` (already realpath'd). */
export function engineSocketPath(realWorkspace: string, inputs: SocketPathInputs): string {
  // Windows paths are case-insensitive: C:\Repo and c:\repo are one workspace.
  const key = inputs.platform === 'win32' ? realWorkspace.toLowerCase() : realWorkspace;
  const hash = createHash('sha1').update(key).digest('hex').slice(0, 16);
  // The protocol version is in the name: after an update, a window starts an engine that speaks
  // its protocol beside an older one still finishing its runs (the lock files keep them apart).
  if (inputs.platform === 'win32') return `\\\\.\\pipe\\braid-${hash}-v${inputs.protocol}`;
  const name = `braid-${hash}-v${inputs.protocol}.sock`;
  // The temp folder is shared by every user: the socket goes in a folder of this user's own, which
  // the engine creates 0700 and both ends check (ensurePrivateDir), so no one else can connect.
  const own = `braid-${inputs.uid ?? 'user'}`;
  for (const dir of [inputs.runtimeDir, inputs.tmpdir ? join(inputs.tmpdir, own) : undefined]) {
    if (!dir) continue;
    const path = join(dir, name);
    if (Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES) return path;
  }
  // A temp folder too deep for a socket (macOS's /var/folders/… can be): /tmp always fits.
  return join('/tmp', own, name);
}

/** The engine's socket for a workspace folder, as this process's environment places it. */
export function engineSocketPathFor(workspace: string, protocol: number, env: NodeJS.ProcessEnv = process.env): string {
  // A runtime dir named but missing (su, some containers) would make listen fail: both ends skip it.
  const runtimeDir = env.XDG_RUNTIME_DIR && existsSync(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : undefined;
  return engineSocketPath(realWorkspace(workspace), {
    platform: process.platform,
    runtimeDir,
    tmpdir: tmpdir(),
    uid: process.getuid?.(),
    protocol,
  });
}

/** The workspace folder as the engine keys it: its real path (symlinks resolved), or as given when missing. */
export function realWorkspace(workspace: string): string {
  try {
    return realpathSync.native(workspace);
  } catch {
    return workspace;
  }
}

/**
 * Makes sure the socket's folder is this user's alone (created 0700; group and other bits
 * dropped), and throws when it belongs to someone else: another user must never be able to
 * connect to an engine that runs this user's plans, nor pose as one. POSIX only.
 */
export function ensurePrivateDir(dir: string, create: boolean): void {
  if (process.platform === 'win32') return;
  if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !create) return;
    throw e;
  }
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid))
    throw new Error(`refusing the engine socket folder ${dir}: it is not a folder owned by this user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
