// One child process, start to finish: spawn it in its own process group, stream its output,
// end its whole tree on timeout, silence or cancel, and report how it ended as data.
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import { groupAlive, terminateTree, trackKill, type Termination } from './killTree';
import { launchable, type LauncherPool, type WarmLauncher } from './launcher';
import { endMarked, MARK_VAR, newMark } from './marked';
import { residentLaunchable, type Resident } from './resident';
import { ByteTail } from './tail';
import { WholeChars } from './wholeChars';
import { guardGroup, releaseGroup } from './watchdog';

export interface SpawnSpec {
  /** argv[0] is the executable; never run through a shell here. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The full environment for the child (and BRAID_PROCESS, its mark: marked.ts). */
  readonly env: Readonly<Record<string, string>>;
  /** Written then closed; without it stdin is /dev/null. */
  readonly stdin?: string;
  /** Instead of `stdin`: given the child's stdin, kept open for the caller to write and end (a live input channel). */
  readonly input?: (stdin: Writable) => void;
  /** Kill the whole tree after this long. */
  readonly timeoutMs?: number;
  /** Kill the whole tree after this long with no output on stdout or stderr. */
  readonly idleTimeoutMs?: number;
  /** TERM → KILL delay; default 3000. */
  readonly graceMs?: number;
  /** Cancel: the same kill path, reason `canceled`. */
  readonly signal?: AbortSignal;
  /** Combined stdout+stderr, raw bytes, in arrival order; never ended here. */
  readonly log?: Writable;
  /** UTF-8 text as it arrives; a character split across chunks is delivered whole. */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
  /** How much stdout to keep for `stdoutTail`; default 64 KiB. */
  readonly tailBytes?: number;
  /** The child is running (its `spawn` event), with how long spawn() blocked the event loop; not called when the spawn fails. */
  onSpawn?(pid: number, spawnMs: number): void;
  /** Start from one of these warm launchers when one is ready (launcher.ts); the result is the same as spawn()'s. */
  readonly launcher?: LauncherPool;
}

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reason: 'exit' | 'timeout' | 'idle-timeout' | 'canceled' | 'spawn-failed';
  /** e.g. "timed out after 2s", "no output for 1s", "spawn nosuchcmd ENOENT". */
  readonly message?: string;
  readonly durationMs: number;
  /** The last tailBytes of stdout, decoded. */
  readonly stdoutTail: string;
  readonly pid?: number;
}

type Reason = ProcessResult['reason'];

const isWindows = process.platform === 'win32';
const DEFAULT_GRACE_MS = 3000;
const DEFAULT_TAIL_BYTES = 64 * 1024;
// Once the main process has exited and its group is dead or KILLed, how long to keep reading
// pipes a process outside the group (it called setsid) may hold open forever.
const DRAIN_MS = 200;
const DRAIN_MAX_MS = 2000;
const MAX_DELAY = 2_147_483_647; // setTimeout fires at once past this, so long limits re-arm.

/** The argv that runs `script` through the platform shell. */
export function shellArgv(script: string): string[] {
  return isWindows ? ['cmd.exe', '/d', '/s', '/c', script] : ['/bin/sh', '-c', script];
}

/** Runs one process to its end; expected failures (spawn errors, timeouts, cancel) are results, never rejections. */
export function runProcess(given: SpawnSpec): Promise<ProcessResult> {
  checkSpec(given);
  // Always a new mark, even when the environment holds one: a braid run inside a step must not end its host's tree.
  const spec: SpawnSpec = { ...given, env: { ...given.env, [MARK_VAR]: newMark() } };
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  if (spec.signal?.aborted) {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      reason: 'canceled',
      message: 'canceled before start',
      durationMs: 0,
      stdoutTail: '',
    });
  }
  const nul = nulCarrier(spec);
  if (nul) {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      reason: 'spawn-failed',
      message: `${nul} holds a NUL byte, which no argument or environment variable can carry (a need's binary output? write it to a file and pass its path)`,
      durationMs: 0,
      stdoutTail: '',
    });
  }
  const resident =
    spec.launcher && spec.stdin === undefined && spec.input === undefined ? spec.launcher.resident : undefined;
  if (resident?.open && residentLaunchable(spec.argv, spec.cwd, spec.env))
    return startResident(resident, spec, elapsed);
  const warm =
    spec.launcher && spec.stdin === undefined && spec.input === undefined && launchable(spec.argv, spec.cwd, spec.env)
      ? spec.launcher.take()
      : undefined;
  if (warm) return startWarm(warm, spec, elapsed);
  const argv = windowsShellArgs(spec.argv);
  const [file, ...args] = argv;
  let child: ChildProcess;
  const calledAt = performance.now();
  try {
    child = spawn(file!, args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: [spec.stdin === undefined && spec.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: !isWindows,
      windowsHide: true,
      windowsVerbatimArguments: argv !== spec.argv,
    });
  } catch (err) {
    // Node throws synchronously for some failures (cwd that is a file: ENOTDIR; a NUL in argv).
    return Promise.resolve({
      exitCode: null,
      signal: null,
      reason: 'spawn-failed',
      message: spawnMessage(err, spec.cwd),
      durationMs: elapsed(),
      stdoutTail: '',
    });
  }
  const spawnMs = performance.now() - calledAt;
  return new Promise<ProcessResult>((resolve) => watch(child, spec, elapsed, resolve, spawnMs));
}

const withoutLauncher = ({ launcher: _launcher, ...spec }: SpawnSpec): SpawnSpec => spec;

function startWarm(warm: WarmLauncher, spec: SpawnSpec, elapsed: () => number): Promise<ProcessResult> {
  const calledAt = performance.now();
  return new Promise<ProcessResult>((resolve) => {
    // A launcher that died just before it was taken (its exit not yet seen here): start the step
    // with spawn() instead, once the dead one's watch has ended.
    let dead = false;
    const done = (r: ProcessResult): void => resolve(dead ? runProcess(withoutLauncher(spec)) : r);
    // Watched before it is started, so not even an instant exit is missed.
    const watched = watch(warm.child, spec, elapsed, done, undefined);
    const pid = warm.child.pid!;
    warm.start(spec.argv, spec.cwd, spec.env, (r) => {
      if (r.ok) spec.onSpawn?.(pid, blockedMs);
      else if (r.why === 'cwd') watched.spawnFailed(`cwd ${spec.cwd} is not a directory`);
      else if (r.why === 'executable') watched.spawnFailed(`spawn ${spec.argv[0]} ENOENT`);
      else {
        dead = true;
        watched.spawnFailed('the launcher exited before starting the process');
      }
    });
    // The report comes from another process, so always after this line.
    const blockedMs = performance.now() - calledAt;
  });
}

function startResident(resident: Resident, spec: SpawnSpec, elapsed: () => number): Promise<ProcessResult> {
  const calledAt = performance.now();
  return new Promise<ProcessResult>((resolve) => {
    resident.start(spec.argv, spec.cwd, spec.env, (r) => {
      if (r.ok) {
        watch(r.child as unknown as ChildProcess, spec, elapsed, resolve, undefined);
        spec.onSpawn?.(r.child.pid, blockedMs);
        return;
      }
      // The resident died before forking it: start it with spawn() instead.
      if (r.why === 'launcher') return resolve(runProcess(withoutLauncher(spec)));
      resolve({
        exitCode: null,
        signal: null,
        reason: 'spawn-failed',
        message:
          r.why === 'cwd'
            ? `cwd ${spec.cwd} is not a directory`
            : `spawn ${spec.argv[0]} ${r.why === 'access' ? 'EACCES' : 'ENOENT'}`,
        durationMs: elapsed(),
        stdoutTail: '',
      });
    });
    // The report comes from another process, so always after this line.
    const blockedMs = performance.now() - calledAt;
  });
}

/**
 * Watches a spawned child to its end. `spawnMs` undefined: a warm launcher's child, which reports
 * its start (or why it could not start) through `spawnFailed` instead of spawn events.
 */
function watch(
  child: ChildProcess,
  spec: SpawnSpec,
  elapsed: () => number,
  resolve: (r: ProcessResult) => void,
  spawnMs: number | undefined,
): { spawnFailed(message: string): void } {
  const graceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  const tail = new ByteTail(spec.tailBytes ?? DEFAULT_TAIL_BYTES);
  const { log, onOutput, signal, idleTimeoutMs, timeoutMs } = spec;
  const pid = child.pid;
  // Its own group, so the engine's watchdog ends it should the engine die first (watchdog.ts).
  if (pid !== undefined && !isWindows) guardGroup(pid, spec.env[MARK_VAR]);

  let reason: Reason | undefined;
  let message: string | undefined;
  let exitCode: number | null = null;
  let exitSignal: string | null = null;
  let exited = false;
  let done = false;
  let goneAtExit = false;
  let termination: Termination | undefined;
  let lastOutput = performance.now();
  let timeoutTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let drainStarted = 0;
  let drainBytes = 0;
  let bytes = 0;

  let paused = false;
  const pauseFor = (stream: Writable): void => {
    paused = true;
    child.stdout!.pause();
    child.stderr!.pause();
    const resume = (): void => {
      stream.off('drain', resume);
      stream.off('close', resume);
      paused = false;
      child.stdout!.resume();
      child.stderr!.resume();
    };
    stream.once('drain', resume);
    stream.once('close', resume);
  };
  const decoders = onOutput ? { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') } : undefined;
  // The log gets whole characters per stream, so the other stream never lands inside one (wholeChars.ts).
  const logChars = log ? { stdout: new WholeChars(), stderr: new WholeChars() } : undefined;
  const flush = (name: 'stdout' | 'stderr'): void => {
    const held = logChars?.[name].end();
    if (held && log?.writable) log.write(held);
    const rest = decoders?.[name].end();
    if (rest) onOutput!(name, rest);
  };
  const reader =
    (name: 'stdout' | 'stderr') =>
    (chunk: Buffer): void => {
      bytes += chunk.length;
      if (idleTimeoutMs !== undefined) lastOutput = performance.now();
      // The log's disk write is the pace: past its buffer the pipes pause (the step then blocks on
      // its own writes), so a flood never piles up in memory.
      if (log?.writable) {
        const whole = logChars![name].push(chunk);
        if (whole.length > 0 && !log.write(whole) && !paused) pauseFor(log);
      }
      if (name === 'stdout') tail.push(chunk);
      if (decoders) {
        const text = decoders[name].write(chunk);
        if (text) onOutput!(name, text);
      }
    };
  child.stdout!.on('data', reader('stdout'));
  child.stderr!.on('data', reader('stderr'));
  child.stdout!.once('end', () => flush('stdout'));
  child.stderr!.once('end', () => flush('stderr'));

  const clearLimits = (): void => {
    clearTimeout(timeoutTimer);
    clearTimeout(idleTimer);
    signal?.removeEventListener('abort', onAbort);
  };

  const finish = (): void => {
    if (done) return;
    done = true;
    clearLimits();
    clearTimeout(drainTimer);
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name]!;
      if (!stream.readableEnded) {
        // Held open by a process outside the group: stop reading, keep what arrived.
        stream.destroy();
        flush(name);
      }
    }
    const failed = reason === 'spawn-failed';
    // A group found empty at the exit stays empty (a pid is not reused within a drain): no second probe.
    if (pid !== undefined && !isWindows) releaseGroup(pid, goneAtExit ? () => false : groupAlive);
    resolve({
      exitCode: failed ? null : exitCode,
      signal: failed ? null : exitSignal,
      reason: reason ?? 'exit',
      ...(message !== undefined ? { message } : {}),
      durationMs: elapsed(),
      stdoutTail: tail.text(),
      ...(failed || pid === undefined ? {} : { pid }),
    });
  };

  // Waits a short while for the pipes; re-arms while bytes still flow (a busy event loop may not
  // have read them yet), within an overall bound.
  const drain = (): void => {
    if (!exited || done || drainTimer) return;
    drainStarted = performance.now();
    drainBytes = bytes;
    const check = (): void => {
      const flowing = bytes !== drainBytes;
      drainBytes = bytes;
      if (flowing && performance.now() - drainStarted < DRAIN_MAX_MS)
        drainTimer = setTimeout(() => setImmediate(check), DRAIN_MS);
      else finish();
    };
    // setImmediate runs after the poll phase, so data already in the pipe is read before we judge.
    drainTimer = setTimeout(() => setImmediate(check), DRAIN_MS);
  };

  const terminate = (why: Reason, text: string): void => {
    if (exited || done) return; // it ended on its own first
    reason ??= why;
    message ??= text;
    clearLimits();
    termination ??= terminateTree(pid!, graceMs, drain);
    // The ones that left the group (setsid) are ended by their mark; a normal exit leaves them be,
    // as a step may start a daemon on purpose.
    if (!isWindows) trackKill(endMarked(spec.env[MARK_VAR]!, graceMs));
  };
  const onAbort = (): void => terminate('canceled', 'canceled');

  child.once('error', (err) => {
    // After a successful spawn, 'error' only reports a failed kill/send, which we do not use.
    if (child.pid !== undefined) return;
    reason = 'spawn-failed';
    message = spawnMessage(err, spec.cwd);
    exited = true;
    finish();
  });
  child.once('exit', (code, sig) => {
    exited = true;
    exitCode = code;
    exitSignal = sig;
    clearLimits();
    goneAtExit = !groupAlive(pid!);
    if (!goneAtExit) {
      // Leftovers in the group (background jobs) would hold locks, files and our pipes: end them too.
      termination ??= terminateTree(pid!, graceMs, drain);
      if (termination.killed) drain();
    } else {
      termination?.cancel();
      drain();
    }
  });
  child.once('close', finish);
  if (spec.onSpawn && pid !== undefined && spawnMs !== undefined)
    child.once('spawn', () => spec.onSpawn!(pid, spawnMs));
  const watched = {
    spawnFailed(text: string): void {
      reason ??= 'spawn-failed';
      message ??= text;
    },
  };

  if (spec.stdin !== undefined) {
    // EPIPE when the child exits without reading is its business, not a failure of ours.
    child.stdin!.on('error', () => {});
    child.stdin!.end(spec.stdin);
  } else if (spec.input && child.stdin) {
    spec.input(child.stdin);
  }
  if (pid === undefined) return watched; // spawn failed; 'error' follows
  if (timeoutMs !== undefined) {
    const due = performance.now() + timeoutMs;
    const check = (): void => {
      const left = due - performance.now();
      if (left <= 1) terminate('timeout', `timed out after ${compact(timeoutMs)}`);
      else timeoutTimer = setTimeout(check, Math.min(left, MAX_DELAY));
    };
    timeoutTimer = setTimeout(check, Math.min(timeoutMs, MAX_DELAY));
  }
  if (idleTimeoutMs !== undefined) {
    // One timer re-armed from the last output time, instead of a reset on every chunk.
    const check = (): void => {
      // Paused for its log: the step is not silent, we are not listening.
      if (paused) lastOutput = performance.now();
      const left = lastOutput + idleTimeoutMs - performance.now();
      if (left <= 1) terminate('idle-timeout', `no output for ${compact(idleTimeoutMs)}`);
      else idleTimer = setTimeout(check, Math.min(left, MAX_DELAY));
    };
    idleTimer = setTimeout(check, Math.min(idleTimeoutMs, MAX_DELAY));
  }
  signal?.addEventListener('abort', onAbort, { once: true });
  // Canceled while the resident was forking it (a spawned child is never watched already aborted).
  if (signal?.aborted) onAbort();
  return watched;
}

// cmd.exe parses its own command line: quote the script once and ask Node not to re-quote.
function windowsShellArgs(argv: readonly string[]): readonly string[] {
  if (!isWindows || argv.length !== 5 || basename(argv[0]!).toLowerCase() !== 'cmd.exe') return argv;
  const [exe, d, s, c, script] = argv;
  if (d !== '/d' || s !== '/s' || c !== '/c') return argv;
  return [exe!, d, s, c, `"${script}"`];
}

/** The first argument or variable a C string cannot hold (execve ends each at a NUL), by name. */
function nulCarrier(spec: SpawnSpec): string | undefined {
  const arg = spec.argv.findIndex((a) => a.includes('\0'));
  if (arg >= 0) return `argument ${arg} of ${basename(spec.argv[0]!)}`;
  for (const [name, value] of Object.entries(spec.env)) if (value.includes('\0')) return `$${name}`;
  return undefined;
}

function spawnMessage(err: unknown, cwd: string): string {
  const e = err as NodeJS.ErrnoException;
  // Node blames the executable when the cwd is missing ("spawn /bin/sh ENOENT"): name the real culprit.
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') {
    let isDir = false;
    try {
      isDir = statSync(cwd).isDirectory();
    } catch {
      /* missing */
    }
    if (!isDir) return `cwd ${cwd} is not a directory (${e.message})`;
  }
  return e.message ?? String(err);
}

// The plan's own duration syntax, so a message echoes what the user wrote: 250ms, 2s, 1.5s, 20m, 1h30m.
function compact(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const secs = Math.round(ms / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

function checkSpec(spec: SpawnSpec): void {
  const { argv } = spec;
  if (!Array.isArray(argv) || argv.length === 0 || typeof argv[0] !== 'string' || argv[0] === '') {
    throw new TypeError(`runProcess: argv must start with an executable, got ${JSON.stringify(argv)}`);
  }
  if (typeof spec.cwd !== 'string' || spec.cwd === '')
    throw new TypeError(`runProcess: cwd must be a path, got ${JSON.stringify(spec.cwd)}`);
  for (const key of ['timeoutMs', 'idleTimeoutMs'] as const) {
    const v = spec[key];
    if (v !== undefined && !(Number.isFinite(v) && v > 0))
      throw new RangeError(`runProcess: ${key} must be a positive number, got ${v}`);
  }
  for (const key of ['graceMs', 'tailBytes'] as const) {
    const v = spec[key];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      throw new RangeError(`runProcess: ${key} must be a number ≥ 0, got ${v}`);
  }
}
