// One engine per workspace: listen on the workspace's socket unless a live engine already does.
// Two windows may start engines at the same moment, and a crashed engine leaves its socket file
// behind; the probe-unlink-listen sequence runs under a mutex so two starters never both "win".
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { chmod, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensurePrivateDir } from '../core/engineSocket';
import * as lockfile from 'proper-lockfile';

export type ListenResult = { ok: true; server: Server } | { ok: false; reason: 'taken' };

/** Listens on `path`, replacing a stale socket file; `taken` when another engine answers there. */
export async function listenExclusive(path: string, onConnection: (socket: Socket) => void): Promise<ListenResult> {
  // Named pipes vanish with their process and a second listen fails cleanly: no stale state, no mutex.
  if (process.platform === 'win32') {
    const server = createServer(onConnection);
    const err = await listen(server, path);
    if (!err) return { ok: true, server };
    if (err.code === 'EADDRINUSE') return { ok: false, reason: 'taken' };
    throw err;
  }
  ensurePrivateDir(dirname(path), true);
  const release = await lockfile.lock(path, {
    lockfilePath: `${path}.lock`,
    realpath: false,
    stale: 5000,
    retries: { retries: 100, minTimeout: 10, maxTimeout: 100, factor: 1.3, randomize: true },
    onCompromised: () => {},
  });
  try {
    for (let attempt = 0; ; attempt++) {
      const server = createServer(onConnection);
      const err = await listen(server, path);
      if (!err) {
        await chmod(path, 0o600);
        return { ok: true, server };
      }
      if (err.code !== 'EADDRINUSE' || attempt > 0) throw err;
      if (await answers(path)) return { ok: false, reason: 'taken' };
      await unlink(path).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
  } finally {
    await release().catch(() => {});
  }
}

function listen(server: Server, path: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (e: NodeJS.ErrnoException) => resolve(e);
    server.once('error', onError);
    server.listen(path, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/** Whether something accepts connections at `path` (a live engine), as opposed to a dead socket file. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
