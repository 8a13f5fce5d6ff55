// Starts code-server (VS Code's server + web workbench) in its own process group on a free
// local port, with throwaway config/data/profile folders, and stops the whole group again.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { codeServerEntry } from './paths';

export interface CodeServerOptions {
  /** The folder the workbench opens. */
  workspace: string;
  /** Keep workspace trust on (the workbench asks whether to trust the folder). Default: off. */
  trust?: boolean;
  userDataDir?: string | undefined;
  extensionsDir?: string | undefined;
  /** Extra environment for code-server and so for its extension host. */
  env?: Record<string, string>;
  /** Merged over the quiet defaults in User/settings.json. */
  settings?: Record<string, unknown> | undefined;
  startTimeoutMs?: number;
  /** Echo code-server's own log lines to stdout as they come (BRAID_CODE_SERVER_LOG=1 does too). */
  echoLog?: boolean;
}

export interface CodeServer {
  /** `http://127.0.0.1:PORT`, the origin the browser must use. */
  readonly origin: string;
  /** `127.0.0.1:PORT`, the authority of `vscode-remote://` URIs. */
  readonly authority: string;
  readonly workspace: string;
  readonly logFile: string;
  readonly pid: number;
  /** The workbench URL for the workspace, with a `payload` (extension development/test paths). */
  workbenchUrl(payload?: ReadonlyArray<readonly [string, string]>): string;
  /** `vscode-remote://` URI of a local absolute path, as the workbench payload wants it. */
  remoteUri(absPath: string): string;
  /** The last lines code-server printed (for error messages). */
  logTail(lines?: number): string;
  /** Ends the whole process group (TERM, then KILL) and removes the temp folders. */
  stop(): Promise<void>;
}

/** Settings that keep a test workbench from opening welcome pages, tips and update checks. */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
};

const LISTENING = /HTTP server listening on (http:\/\/[^\s/]+)/;
const live = new Set<ChildProcess>();

// Last resort if the runner exits without stop(): a file watcher in the group would outlive it.
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

// code-server's wrapper gives the server process it forks 10 s to load and hand-shake
// (out/node/wrapper.js, timeoutInterval), then exits logging `timed out`: a loaded machine passes
// that (CI saw 32 s at load 13). That one cause is the machine's, not the extension's: tried again.
const HANDSHAKE_TIMED_OUT = /exited early[\s\S]*\berror\s+timed out/;
const START_ATTEMPTS = 3;

/** Starts code-server and resolves once `/healthz` answers. */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  for (let attempt = 1; ; attempt++)
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt === START_ATTEMPTS || !HANDSHAKE_TIMED_OUT.test((err as Error).message)) throw err;
      process.stdout.write(
        `[code-server] its wrapper's 10 s handshake timed out (a loaded machine): starting it again\n`,
      );
    }
}

async function startOnce(options: CodeServerOptions): Promise<CodeServer> {
  const entry = codeServerEntry();
  const workspace = resolve(options.workspace);
  const temp = mkdtempSync(join(tmpdir(), 'braid-code-server-'));
  const userDataDir = resolve(options.userDataDir ?? join(temp, 'user-data'));
  const extensionsDir = resolve(options.extensionsDir ?? join(temp, 'extensions'));
  mkdirSync(extensionsDir, { recursive: true });
  writeSettings(userDataDir, options);
  const logFile = join(temp, 'code-server.log');
  const log = createWriteStream(logFile);
  const tail: string[] = [];
  const echo = options.echoLog ?? process.env.BRAID_CODE_SERVER_LOG === '1';

  const args = [
    entry,
    '--bind-addr',
    '127.0.0.1:0', // port 0: the OS picks a free one, read back from the log (no race)
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    ...(options.trust ? [] : ['--disable-workspace-trust']),
    workspace,
  ];
  // detached: setsid(), so the server, its extension host and watchers form one process group.
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: serverEnv(temp, options.env),
  });
  live.add(child);

  let origin: string | undefined;
  let onOrigin: (() => void) | undefined;
  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > 400) tail.shift();
    if (echo) process.stdout.write(`[code-server] ${line}\n`);
    const m = origin ? undefined : LISTENING.exec(line);
    if (m?.[1]) {
      origin = m[1];
      onOrigin?.();
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) onLine(l);
    });
  }
  const exited = new Promise<string>((res) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      res(`code-server exited early (${signal ?? `code ${code}`})`);
    });
    child.once('error', (err) => res(`code-server failed to start: ${err.message}`));
  });

  const logTail = (lines = 40): string => tail.slice(-lines).join('\n');
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await stopGroup(child);
      live.delete(child);
      await new Promise<void>((res) => log.end(res));
      if (process.env.BRAID_KEEP_TEMP !== '1') rmSync(temp, { recursive: true, force: true });
    })());

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  try {
    const listening = new Promise<void>((res) => {
      onOrigin = res;
      if (origin) res();
    });
    const failure = await Promise.race([
      listening.then(() => waitHealthy(`${origin}/healthz`, timeoutMs)),
      exited,
      sleep(timeoutMs).then(() => `code-server did not answer within ${timeoutMs} ms`),
    ]);
    if (failure) throw new Error(failure);
  } catch (err) {
    const tailText = logTail();
    await stop();
    throw new Error(`${(err as Error).message}\n--- last lines of code-server's log ---\n${tailText}`, { cause: err });
  }

  const base = origin as string;
  const authority = new URL(base).host;
  const remoteUri = (absPath: string): string => `vscode-remote://${authority}${resolve(absPath)}`;
  return {
    origin: base,
    authority,
    workspace,
    logFile,
    pid: child.pid as number,
    remoteUri,
    workbenchUrl: (payload) => {
      const query = new URLSearchParams({ folder: workspace });
      if (payload?.length) query.set('payload', JSON.stringify(payload));
      return `${base}/?${query.toString()}`;
    },
    logTail,
    stop,
  };
}

function writeSettings(userDataDir: string, options: CodeServerOptions): void {
  const dir = join(userDataDir, 'User');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'settings.json');
  const existing = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const trust = options.trust ? {} : { 'security.workspace.trust.enabled': false };
  writeFileSync(file, JSON.stringify({ ...existing, ...QUIET_SETTINGS, ...trust, ...options.settings }, null, 2));
}

function serverEnv(temp: string, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Inside a VS Code terminal these would make code-server hand the folder to that window instead.
  for (const key of Object.keys(env)) {
    if (key.startsWith('VSCODE_') || key === 'ELECTRON_RUN_AS_NODE') delete env[key];
  }
  delete env.PORT; // code-server lets $PORT override --bind-addr
  return {
    ...env,
    XDG_CONFIG_HOME: join(temp, 'config'), // else it writes ~/.config/code-server/config.yaml
    XDG_DATA_HOME: join(temp, 'data'),
    ...extra,
  };
}

async function waitHealthy(url: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return undefined;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  return `${url} did not answer within ${timeoutMs} ms (${last})`;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  const gone = new Promise<void>((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res();
    else child.once('exit', () => res());
  });
  killGroup(child, 'SIGTERM');
  await Promise.race([gone, sleep(3_000)]);
  // Always: children (watchers, the extension host) may outlive a leader that exited on TERM.
  killGroup(child, 'SIGKILL');
  await Promise.race([gone, sleep(1_000)]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms).unref());
}
