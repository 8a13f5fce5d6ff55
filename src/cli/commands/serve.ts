// `braid serve --workspace DIR`: the engine process the extension talks to (internal; not in the
// help). Runs execute here, beside the window, because spawning from the big extension host blocks
// its event loop, and so that a run outlives a window reload. One engine per workspace, found at
// the socket `engineSocketPath` names; it exits by itself once it has had neither runs nor clients
// for a while, and on SIGTERM it cancels its runs (records written) before exiting.
import { appendFileSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { parseArgs } from 'node:util';
import { RunStore } from '../../core/engine/records/runStore';
import { isGitRepo } from '../../core/engine/isolation/worktree';
import { engineSocketPathFor, realWorkspace } from '../../core/engineSocket';
import { PROTOCOL_VERSION } from '../../protocol/engine';
import { EngineHost } from '../engineHost';
import { listenExclusive } from '../engineListen';
import { isDir } from '../workspace';
import { braidDir, braidGitignore, engineLogFile } from '../../core/engine/records/braidLayout';

const DEFAULT_IDLE_MS = 60_000;
// Long enough to come back to the window; short enough that a forgotten run does not sit for hours.
const DEFAULT_BUDGET_TIMEOUT_MS = 10 * 60_000;
const MAX_LOG_BYTES = 1024 * 1024;

/** Runs the engine until it stops; resolves with the exit code. */
export async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { workspace: { type: 'string' } } });
  if (!values.workspace || !isDir(values.workspace)) {
    process.stderr.write(`braid serve: --workspace must name a folder, got ${JSON.stringify(values.workspace)}\n`);
    return 2;
  }
  // Variables the starter set only to launch us (ELECTRON_RUN_AS_NODE): steps must not inherit them.
  for (const name of (process.env.BRAID_ENGINE_UNSET ?? '').split(',')) if (name) delete process.env[name];
  delete process.env.BRAID_ENGINE_UNSET;
  const workspace = realWorkspace(values.workspace);
  const log = openLog(workspace);
  const idleMs = msFromEnv('BRAID_ENGINE_IDLE_MS', DEFAULT_IDLE_MS, log);
  const budgetTimeoutMs = msFromEnv('BRAID_ENGINE_BUDGET_TIMEOUT_MS', DEFAULT_BUDGET_TIMEOUT_MS, log);
  const socketPath = engineSocketPathFor(workspace, PROTOCOL_VERSION);

  let server: Server | undefined;
  let stopped: Promise<void> | undefined;
  let finished!: () => void;
  const done = new Promise<void>((r) => {
    finished = r;
  });
  const stop = (reason: string): Promise<void> => {
    stopped ??= (async () => {
      log(`stopping: ${reason}`);
      // Let go of the socket first, so a window that needs an engine now can start a new one.
      server?.close();
      await host.stopRuns();
      await host.closeConnections();
      log('stopped');
      finished();
    })();
    return stopped;
  };
  const isGit = (await isGitRepo(workspace)) !== undefined;
  const host = new EngineHost({ workspace, isGit, idleMs, budgetTimeoutMs, log, requestStop: stop });
  const listening = await listenExclusive(socketPath, (socket) => host.accept(socket));
  if (!listening.ok) {
    // Another window started the engine first: it serves this workspace, nothing to do.
    log(`another engine already listens on ${socketPath}; exiting`);
    return 0;
  }
  server = listening.server;
  host.start();
  log(`engine ${process.pid} listening on ${socketPath} (idle exit after ${idleMs} ms)`);
  // A new engine means any previous one is gone: its unfinished runs become `interrupted`.
  const marked = await new RunStore(workspace).markInterrupted().catch((e: Error) => {
    log(`markInterrupted: ${e.message}`);
    return [];
  });
  if (marked.length > 0) log(`marked interrupted: ${marked.join(', ')}`);

  const onSignal = (signal: NodeJS.Signals) => {
    void stop(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Detached from any terminal, but a hang-up must not kill runs without recording them.
  process.on('SIGHUP', onSignal);
  process.on('uncaughtException', (e) => {
    log(`uncaught: ${e.stack ?? e.message}`);
    void stop('uncaught exception');
  });
  process.on('unhandledRejection', (e) => log(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));

  await done;
  // Timers and child handles from canceled runs may linger; they must not keep a stopped engine alive.
  setTimeout(() => process.exit(0), 2000).unref();
  return 0;
}

/** Appends timestamped lines to `.braid/engine.log`, keeping one previous file when it grows large. */
function openLog(workspace: string): (line: string) => void {
  const dir = braidDir(workspace);
  const file = engineLogFile(workspace);
  try {
    mkdirSync(dir, { recursive: true });
    // As the run store does: nothing under .braid/ belongs in git.
    try {
      writeFileSync(braidGitignore(workspace), '*\n', { flag: 'wx' });
    } catch {
      /* exists */
    }
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
  } catch {
    /* logging is best effort */
  }
  return (line) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} [${process.pid}] ${line}\n`);
    } catch {
      /* best effort */
    }
  };
}

/** A duration from the environment (tests shorten them); a bad value is logged and the default used. */
function msFromEnv(name: string, fallback: number, log: (line: string) => void): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  log(`${name} must be a number of milliseconds, got ${JSON.stringify(value)}; using ${fallback}`);
  return fallback;
}
