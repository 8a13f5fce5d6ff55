// Where a workspace's engine listens. The extension and the engine compute it the same way from the
// same inputs, so finding the engine needs no file to read and no port to agree on.
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from './engine';

// sun_path is 108 bytes on Linux and 104 on macOS, including the terminating NUL.
const MAX_SOCKET_PATH_BYTES = 103;

export interface SocketPathInputs {
  readonly platform: NodeJS.Platform;
  /** XDG_RUNTIME_DIR when set (per-user, private, cleaned at logout), else the temp folder. */
  readonly runtimeDir?: string | undefined;
  readonly tmpdir: string;
}

/** The socket (POSIX) or named pipe (Windows) of the engine for `realWorkspace` (already realpath'd). */
export function engineSocketPath(realWorkspace: string, inputs: SocketPathInputs): string {
  // Windows paths are case-insensitive: C:\Repo and c:\repo are one workspace.
  const key = inputs.platform === 'win32' ? realWorkspace.toLowerCase() : realWorkspace;
  const hash = createHash('sha1').update(key).digest('hex').slice(0, 16);
  // The protocol version is in the name: after an update, a window starts an engine that speaks
  // its protocol beside an older one still finishing its runs (the lock files keep them apart).
  if (inputs.platform === 'win32') return `\\\\.\\pipe\\braid-${hash}-v${PROTOCOL_VERSION}`;
  const name = `braid-${hash}-v${PROTOCOL_VERSION}.sock`;
  for (const dir of [inputs.runtimeDir, inputs.tmpdir]) {
    if (!dir) continue;
    const path = join(dir, name);
    if (Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES) return path;
  }
  // A temp folder too deep for a socket (macOS's /var/folders/… can be): /tmp always fits.
  return join('/tmp', name);
}

/** The engine's socket for a workspace folder, as this process's environment places it. */
export function engineSocketPathFor(workspace: string, env: NodeJS.ProcessEnv = process.env): string {
  // A runtime dir named but missing (su, some containers) would make listen fail: both ends skip it.
  const runtimeDir = env.XDG_RUNTIME_DIR && existsSync(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : undefined;
  return engineSocketPath(realWorkspace(workspace), { platform: process.platform, runtimeDir, tmpdir: tmpdir() });
}

/** The workspace folder as the engine keys it: its real path (symlinks resolved), or as given when missing. */
export function realWorkspace(workspace: string): string {
  try {
    return realpathSync.native(workspace);
  } catch {
    return workspace;
  }
}
