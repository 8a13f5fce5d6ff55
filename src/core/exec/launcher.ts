// Warm launchers: a step's process starts from a small bash that is already running, in its own
// process group with its output pipes open, and turns into the step with one `exec`.
//
// Why: Node's spawn() forks the whole engine process (libuv has no vfork/posix_spawn path on
// Linux) and blocks the event loop until the child has exec'd: 5–7 ms on the project's machine,
// so steps that became ready together started one after another. A launcher is spawned while the
// engine is otherwise idle; starting a step costs a small file write and a pipe write, and bash
// (a few MB, so its exec is cheap) does the rest off the engine's thread.
//
// The step's argv, environment and directory travel as NUL-separated fields in a file that bash
// reads into an array (`mapfile -d ''`): data is never parsed as shell source.
//
// Alternatives built and measured (a perl launcher server, forking from a worker thread) and why
// fork is slow on this machine: docs/decisions/warm-launchers.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlink, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resident } from './resident';

const BASH = '/bin/bash';

// $1: this launcher's request file. fd 3: one line from the engine: `go` when the request is
// written, `q` when it is not needed; EOF means the engine died, and the last launcher to see it
// removes the pool's folder (empty: a request file lives only from a start to its report).
// fd 4: R once bash is up, then the report: S (exec is next), C (no such directory), E (no such
// executable) or L (the request file is gone).
// The request's fields: the directory; names to unset, then NAME=value to export, each list after
// its count (only what differs from the launcher's own environment: assigning LANG makes bash
// reload its locale, 2 ms here); then argv. bash ≥ 4.4 reads them in one buffered mapfile.
const SCRIPT = `printf R >&4
IFS= read -r go <&3 || { rmdir -- "\${1%/*}" 2>/dev/null; exit 0; }
[[ $go == go ]] || exit 0
exec 3<&-
{ exec 5<"$1"; } 2>/dev/null || { printf L >&4; exit 127; }
if (( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404 )); then mapfile -d '' -t -u 5 f
else f=(); while IFS= read -r -d '' -u 5 x; do f+=("$x"); done; fi
exec 5<&-
cd -P -- "\${f[0]}" 2>/dev/null || { printf C >&4; exit 127; }
i=1; n=\${f[i++]}; while (( n-- > 0 )); do unset -v "\${f[i++]}"; done
n=\${f[i++]}; while (( n-- > 0 )); do export -- "\${f[i++]}"; done
argv=("\${f[@]:i}")
if [[ \${argv[0]} == */* ]]; then [[ -f \${argv[0]} && -x \${argv[0]} ]]; else type -P -- "\${argv[0]}" >/dev/null; fi || { printf E >&4; exit 127; }
printf S >&4; exec 4>&-
exec -- "\${argv[@]}"
`;

// Names bash treats specially (read-only, computed, or changing how it runs): a step whose
// environment sets one starts with spawn() instead, so it gets exactly what it asked for; the
// launchers themselves start without them.
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BASH_NAMES =
  /^(BASH.*|ENV|SHELLOPTS|EUID|UID|PPID|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|GROUPS|DIRSTACK|EPOCHREALTIME|EPOCHSECONDS|OPTIND|OPTARG|OPTERR|IFS|PS4|POSIXLY_CORRECT|COMP_WORDBREAKS|_)$/;
// Set by bash (at start-up or by its cd): always sent, or unset, to match the step's environment.
const BASH_SETS = ['PWD', 'OLDPWD'] as const;

/** A variable bash passes through untouched. */
function plainEntry(k: string, v: string): boolean {
  return PLAIN_NAME.test(k) && !BASH_NAMES.test(k) && !v.includes('\0');
}

export type LaunchReport = { ok: true } | { ok: false; why: 'cwd' | 'executable' | 'launcher' };
type Env = Readonly<Record<string, string>>;

/** Whether a launcher can start this process exactly as spawn() would. */
export function launchable(argv: readonly string[], cwd: string, env: Env): boolean {
  if (argv.some((a) => a.includes('\0')) || cwd.includes('\0')) return false;
  // bash's exec always passes SHLVL on: exact only where the step's environment has one.
  if (!/^[0-9]+$/.test(env.SHLVL ?? '')) return false;
  for (const [k, v] of Object.entries(env)) {
    if (k === '_') continue; // set by every shell; bash's exec leaves it out
    if (!plainEntry(k, v)) return false;
  }
  return true;
}

/** The environment a launcher starts with: the engine's, less what bash would act on. */
function launcherEnv(base: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && plainEntry(k, v)) env[k] = v;
  return env;
}

/** The request's fields: `env` as changes to the launcher's `own` environment. */
function requestFields(own: Env, argv: readonly string[], cwd: string, env: Env): string[] {
  const unset: string[] = [];
  const set: string[] = [];
  for (const k of Object.keys(own)) if (!(k in env)) unset.push(k);
  for (const [k, v] of Object.entries(env)) {
    if (k === '_' || (own[k] === v && k !== 'SHLVL' && !(BASH_SETS as readonly string[]).includes(k))) continue;
    // bash raised its own SHLVL at start-up and its exec lowers it again: the same value needs nothing.
    if (k === 'SHLVL') {
      if (own.SHLVL !== v) set.push(`SHLVL=${Number(v) + 1}`);
      continue;
    }
    set.push(`${k}=${v}`);
  }
  for (const k of BASH_SETS) if (!(k in env) && !unset.includes(k)) unset.push(k);
  return [cwd, String(unset.length), ...unset, String(set.length), ...set, ...argv];
}

/** One idle bash, waiting for its step. */
export class WarmLauncher {
  private used = false;
  /** bash has started and waits for its request (it said R). */
  private up = false;

  constructor(
    readonly child: ChildProcess,
    private readonly request: string,
    private readonly env: Env,
    private readonly onReport: () => void,
  ) {
    (child.stdio[4] as Socket).once('data', () => {
      this.up = true;
    });
  }

  get alive(): boolean {
    return !this.used && this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined;
  }

  get warm(): boolean {
    return this.up && this.alive;
  }

  /** Hands the launcher its step; `report` is called once, when bash has said how it went. */
  start(argv: readonly string[], cwd: string, env: Env, report: (r: LaunchReport) => void): void {
    if (!this.alive) throw new Error('WarmLauncher.start: this launcher is used or gone');
    this.used = true;
    writeFileSync(this.request, `${requestFields(this.env, argv, cwd, env).join('\0')}\0`, { mode: 0o600 });
    setRef(this.child, true);
    const said = this.child.stdio[4] as Socket;
    let done = false;
    const tell = (r: LaunchReport): void => {
      if (done) return;
      done = true;
      unlink(this.request, () => undefined);
      report(r);
      this.onReport();
    };
    said.on('data', (b: Buffer) => {
      const c = b.toString('latin1').replace(/^R/, '')[0];
      if (c === undefined) return;
      tell(c === 'S' ? { ok: true } : { ok: false, why: c === 'C' ? 'cwd' : c === 'E' ? 'executable' : 'launcher' });
    });
    // 'end' comes before the child's own 'close', which ends the watch: the report must be first.
    const gone = (): void => tell({ ok: false, why: 'launcher' });
    said.once('end', gone);
    said.once('close', gone);
    (this.child.stdio[3] as Socket).end('go\n');
  }

  /** Lets an unused launcher exit. */
  dismiss(): void {
    if (this.used) return;
    this.used = true;
    (this.child.stdio[3] as Socket).end('q\n');
  }
}

/**
 * Keeps up to `size` launchers ready. Spawning one blocks the event loop as long as spawning a
 * step would, so replacements are spawned only while no step is between its start and its report
 * (a refill must not delay the news that a step started), one per turn of the event loop. When
 * steps start faster than launchers can be made, there is no warm one to take and steps are
 * spawned directly: never slower than without a pool. Idle launchers never keep the process
 * alive, and exit by themselves when the engine's end of their pipe closes.
 */
export class LauncherPool {
  private idle: WarmLauncher[] = [];
  private made: string | undefined;
  /** The pool's folder of request files (gone once the pool is closed), made with its first bash launcher. */
  get folder(): string {
    if (this.made === undefined) {
      this.made = mkdtempSync(join(tmpdir(), 'braid-launch-'));
      trackDir(this.made);
    }
    return this.made;
  }
  private count = 0;
  private refilling = false;
  /** Launchers taken and not yet reported: a refill waits for them (see the class comment). */
  private starting = 0;
  private closed = false;

  /**
   * A pool where the platform has bash; otherwise undefined (steps start with spawn()). `baseEnv`:
   * the environment most steps start from (the engine's), which the launchers start with.
   */
  static create(
    size: number,
    baseEnv: Readonly<Record<string, string | undefined>> = process.env,
    kind: 'resident' | 'bash' = 'resident',
  ): LauncherPool | undefined {
    return process.platform !== 'win32' && existsSync(BASH)
      ? new LauncherPool(size, launcherEnv(baseEnv), kind === 'resident')
      : undefined;
  }

  private constructor(
    private size: number,
    private readonly env: Env,
    private useResident: boolean,
  ) {
    if (!(Number.isInteger(size) && size > 0))
      throw new RangeError(`LauncherPool: size must be a positive integer, got ${size}`);
    if (this.resident === undefined) this.refill();
  }

  private res: Resident | undefined;
  private residents = 0;
  /**
   * The resident launcher (resident.ts) steps start from, made on first use and again if it was
   * killed; undefined without perl, or once it could not be kept alive: then warm bash launchers.
   */
  get resident(): Resident | undefined {
    if (!this.useResident || this.closed) return undefined;
    if (this.res?.alive) return this.res;
    // One that keeps dying (killed from outside) is replaced a few times, then the bash launchers take over.
    this.res = this.residents++ <= 5 ? Resident.create() : undefined;
    if (!this.res) {
      this.useResident = false;
      this.refill();
    }
    return this.res;
  }

  /** An idle launcher, or undefined when none is ready (the caller spawns directly). */
  take(): WarmLauncher | undefined {
    this.idle = this.idle.filter((l) => l.alive);
    const i = this.idle.findIndex((l) => l.warm);
    if (i < 0) {
      // None is up yet: spawn() now beats waiting for bash to start.
      this.refill();
      return undefined;
    }
    this.starting++;
    return this.idle.splice(i, 1)[0];
  }

  /** Keeps at least `size` ready from now on (a shared pool grows to its largest run's need). */
  reserve(size: number): void {
    if (!(Number.isInteger(size) && size > 0))
      throw new RangeError(`LauncherPool.reserve: size must be a positive integer, got ${size}`);
    if (size <= this.size) return;
    this.size = size;
    this.refill();
  }

  /** The pids of launchers ready to be taken, in the order they would be (for tests). */
  idlePids(): number[] {
    return this.idle.filter((l) => l.warm).map((l) => l.child.pid!);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.res?.close();
    for (const l of this.idle) l.dismiss();
    this.idle = [];
    if (this.made === undefined) return;
    openDirs.delete(this.made);
    rmSync(this.made, { recursive: true, force: true });
  }

  private refill(): void {
    if (this.useResident || this.refilling || this.closed || this.starting > 0) return;
    this.refilling = true;
    setImmediate(() => {
      this.refilling = false;
      if (this.closed || this.starting > 0) return;
      this.idle = this.idle.filter((l) => l.alive);
      if (this.idle.length >= this.size) return;
      const l = this.spawnOne();
      if (l) {
        this.idle.push(l);
        this.refill();
      }
    });
  }

  private spawnOne(): WarmLauncher | undefined {
    const request = join(this.folder, String(this.count++));
    let child: ChildProcess;
    try {
      child = spawn(BASH, ['--noprofile', '--norc', '-c', SCRIPT, 'braid-launcher', request], {
        cwd: this.folder,
        env: this.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      });
    } catch {
      return undefined;
    }
    if (child.pid === undefined) {
      child.on('error', () => undefined);
      return undefined;
    }
    // A launcher that dies idle is skipped by take(); its own failures are not the engine's.
    child.on('error', () => undefined);
    (child.stdio[3] as Socket).on('error', () => undefined);
    setRef(child, false);
    return new WarmLauncher(child, request, this.env, () => {
      this.starting--;
      this.refill();
    });
  }
}

// A pool its owner never closed still leaves no folder behind when the process exits.
const openDirs = new Set<string>();
let exitHooked = false;
function trackDir(dir: string): void {
  openDirs.add(dir);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const d of openDirs) rmSync(d, { recursive: true, force: true });
  });
}

function setRef(child: ChildProcess, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const s of child.stdio) {
    const socket = s as Socket | null;
    if (socket && typeof socket.ref === 'function') {
      if (on) socket.ref();
      else socket.unref();
    }
  }
}
