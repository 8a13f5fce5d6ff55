// Reaching a workspace's engine: its socket if one listens, else `braid serve` started detached from
// the window (so runs survive a reload) and dialed until it listens. Plain Node, as engineClient.ts.
import { spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { engineLogFile } from '../../core/engine/records/braidLayout';
import { engineSocketPathFor, ensurePrivateDir } from '../../core/engineSocket';
import { PROTOCOL_VERSION } from '../../protocol/engine';

export interface OpenOptions {
  /** The workspace, its real path. */
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  /** The CLI bundle (`out/cli.js`) that runs the engine, and the Node to run it with. */
  readonly cliPath: string;
  readonly execPath?: string;
  /** How long to keep trying to reach an engine just started. */
  readonly startTimeoutMs: number;
  readonly log: (line: string) => void;
}

/** A socket to the engine: the running one, or one started now and given a few seconds to listen. */
export async function openEngineSocket(o: OpenOptions): Promise<Socket> {
  const path = engineSocketPathFor(o.workspace, PROTOCOL_VERSION, o.env);
  const first = await dial(path);
  if (first.ok) return first.socket;
  o.log(`no engine at ${path} (${first.code}); starting one`);
  const started = startEngine(o);
  const deadline = Date.now() + o.startTimeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 1.5, 250)) {
    await new Promise((r) => setTimeout(r, delay));
    const next = await dial(path);
    if (next.ok) return next.socket;
    // Exit 0 is a lost race (another engine serves the workspace): keep dialing that one.
    if (started.failure)
      throw new Error(`the engine did not start: ${started.failure} (see ${engineLogFile(o.workspace)})`);
    if (Date.now() > deadline)
      throw new Error(`no engine answered at ${path} (${next.code}); see ${engineLogFile(o.workspace)}`);
  }
}

function startEngine(o: OpenOptions): { failure?: string } {
  const state: { failure?: string } = {};
  const child = spawn(o.execPath ?? process.execPath, [o.cliPath, 'serve', '--workspace', o.workspace], {
    cwd: o.workspace,
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
    // The engine must run as Node, but the steps it spawns must not inherit that (an Electron app would break).
    env: {
      ...o.env,
      ELECTRON_RUN_AS_NODE: '1',
      ...(o.env.ELECTRON_RUN_AS_NODE === undefined ? { BRAID_ENGINE_UNSET: 'ELECTRON_RUN_AS_NODE' } : {}),
    },
  });
  child.on('error', (e) => {
    state.failure = e.message;
  });
  child.on('exit', (code, signal) => {
    if (code !== 0) state.failure = signal ? `killed by ${signal}` : `exit code ${code}`;
  });
  child.unref();
  return state;
}

type Dialed = { ok: true; socket: Socket } | { ok: false; code: string };

function dial(path: string): Promise<Dialed> {
  // Only an engine in a folder of this user's own is this user's engine (see ensurePrivateDir).
  try {
    ensurePrivateDir(dirname(path), false);
  } catch (e) {
    return Promise.resolve({ ok: false, code: (e as Error).message });
  }
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const onError = (e: NodeJS.ErrnoException) => resolve({ ok: false, code: e.code ?? e.message });
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve({ ok: true, socket });
    });
  });
}
