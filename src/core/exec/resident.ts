// The resident launcher: one small perl process, started once, that forks every step (each in its
// own process group), relays its stdout and stderr over one pipe and reports its exit.
//
// Why: the engine forking a process costs it 5–15 ms of its thread on the project's machine (Node
// forks the whole engine; libuv has no posix_spawn path on Linux), and the warm bash launchers
// (launcher.ts) still cost one such fork a step. From here a step costs the engine one request
// written and a few lines read; the fork is perl's (a process of a few MB), off the engine's thread.
// Measured, with the profile: docs/decisions/many-short-steps.md.
//
// What a step gets is what spawn() gives it: argv, environment, directory, stdin /dev/null, its
// own process group. One difference: spawn()'s detached child leads a session of its own; here it
// shares the resident's (which has no terminal either), so that its group exists before the engine
// hears of it without the resident waiting for the child to run. process.ts watches a step here as
// it watches a spawned one: a ResidentChild looks like a ChildProcess to it (pid, stdout, stderr,
// 'exit', 'close'). The resident reads a step's output only while the engine keeps up (P/R: the
// log's throttle). kill -9 of the engine: the resident sees EOF and ends every running step group;
// the engine's watchdog (watchdog.ts) is told each group as well, as for a spawned step.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import { signalGroup } from './killTree';
import { RESIDENT_SCRIPT } from './residentScript';

const PERL = ['/usr/bin/perl', '/bin/perl'].find((p) => existsSync(p));
const SIGNALS = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));
// perl's select(2) takes fds below 1024 (FD_SETSIZE), two a step: past this many at once, steps
// start the other way (process.ts).
const MAX_RUNNING = 400;

type Env = Readonly<Record<string, string>>;
export type ResidentStart =
  { ok: true; child: ResidentChild } | { ok: false; why: 'cwd' | 'executable' | 'access' | 'launcher' };
const WHY = { C: 'cwd', E: 'executable', A: 'access' } as const;

/** Whether the resident can start this process exactly as spawn() would. */
export function residentLaunchable(argv: readonly string[], cwd: string, env: Env): boolean {
  if (argv.some((a) => a.includes('\0')) || cwd.includes('\0') || !cwd.startsWith('/')) return false;
  for (const [k, v] of Object.entries(env))
    if (k === '' || k.includes('=') || k.includes('\0') || v.includes('\0')) return false;
  return true;
}

/** One stream of a step, fed by the resident; its backpressure holds the resident's reading of it. */
class StepStream extends Readable {
  private held = false;
  constructor(
    private readonly owner: Resident,
    private readonly id: number,
    private readonly s: 1 | 2,
  ) {
    super({ highWaterMark: 64 * 1024 });
  }
  feed(chunk: Buffer): void {
    if (!this.push(chunk) && !this.held) {
      this.held = true;
      this.owner.send(`P ${this.id} ${this.s}\n`);
    }
  }
  override _read(): void {
    if (!this.held) return;
    this.held = false;
    this.owner.send(`R ${this.id} ${this.s}\n`);
  }
  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    if (!this.readableEnded) this.owner.send(`D ${this.id}\n`);
    cb(err);
  }
}

/** A step the resident started, shaped like the ChildProcess that process.ts watches. */
export class ResidentChild extends EventEmitter {
  readonly stdout: StepStream;
  readonly stderr: StepStream;
  readonly stdin = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private exited = false;
  private open = 2;

  constructor(
    owner: Resident,
    id: number,
    readonly pid: number,
  ) {
    super();
    this.stdout = new StepStream(owner, id, 1);
    this.stderr = new StepStream(owner, id, 2);
    for (const s of [this.stdout, this.stderr])
      s.once('close', () => {
        this.open--;
        this.closeIfDone();
      });
  }

  /** Its wait status, as the resident reaped it (null: the resident died first, the group was KILLed). */
  exit(status: number | null): void {
    if (this.exited) return;
    this.exited = true;
    if (status === null) this.signalCode = 'SIGKILL';
    else if ((status & 0x7f) === 0) this.exitCode = status >> 8;
    else this.signalCode = (SIGNALS.get(status & 0x7f) ?? 'SIGKILL') as NodeJS.Signals;
    this.emit('exit', this.exitCode, this.signalCode);
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (this.exited && this.open === 0) this.emit('close', this.exitCode, this.signalCode);
  }
}

/** The engine's side of one resident process. */
export class Resident {
  private readonly child: ChildProcess;
  private readonly pipe: Socket;
  private buf = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, (r: ResidentStart) => void>();
  private readonly running = new Map<number, ResidentChild>();
  private dead = false;
  private corked = false;

  /** A resident where the platform has perl (and the user did not ask for another launcher). */
  static create(): Resident | undefined {
    if (process.platform === 'win32' || PERL === undefined) return undefined;
    try {
      return new Resident(PERL);
    } catch {
      return undefined;
    }
  }

  private constructor(perl: string) {
    this.child = spawn(perl, ['-e', RESIDENT_SCRIPT], {
      cwd: '/',
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    if (this.child.pid === undefined) {
      this.child.on('error', () => undefined);
      throw new Error('the resident launcher did not start');
    }
    this.pipe = this.child.stdout as Socket;
    this.child.on('error', () => undefined);
    this.child.stdin!.on('error', () => undefined);
    this.pipe.on('data', (b: Buffer) => this.read(b));
    this.child.once('exit', () => this.died());
    this.setRef();
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** Whether it can take one more step now. */
  get open(): boolean {
    return !this.dead && this.pending.size + this.running.size < MAX_RUNNING;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts a step; `report` is called once, when the resident has forked it or said why not. */
  start(argv: readonly string[], cwd: string, env: Env, report: (r: ResidentStart) => void): void {
    if (this.dead) return report({ ok: false, why: 'launcher' });
    const id = this.nextId++;
    const entries = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const body = Buffer.from([id, cwd, entries.length, ...entries, ...argv].join('\0'));
    this.pending.set(id, report);
    this.setRef();
    this.send(`L ${body.length}\n`);
    this.send(body);
  }

  /** Lets the resident exit (it ends any step still running, as on the engine's death). */
  close(): void {
    this.child.stdin!.end();
  }

  send(data: string | Buffer): void {
    if (this.dead) return;
    const stdin = this.child.stdin!;
    // Steps that become ready together go in one write.
    if (!this.corked) {
      this.corked = true;
      stdin.cork();
      process.nextTick(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    stdin.write(data);
  }

  private read(b: Buffer): void {
    const buf = this.buf.length > 0 ? Buffer.concat([this.buf, b]) : b;
    let at = 0;
    for (;;) {
      const nl = buf.indexOf(10, at);
      if (nl < 0) break;
      const [c, a, s, n] = buf.toString('latin1', at, nl).split(' ');
      const id = Number(a);
      if (c === 'O') {
        const len = Number(n);
        if (buf.length < nl + 1 + len) break;
        const stream = s === '1' ? this.running.get(id)?.stdout : this.running.get(id)?.stderr;
        if (stream && !stream.destroyed) stream.feed(buf.subarray(nl + 1, nl + 1 + len));
        at = nl + 1 + len;
        continue;
      }
      at = nl + 1;
      if (c === 'S') {
        const child = new ResidentChild(this, id, Number(s));
        this.running.set(id, child);
        child.once('close', () => {
          this.running.delete(id);
          this.setRef();
        });
        this.take(id)?.({ ok: true, child });
      } else if (c === 'F') {
        this.take(id)?.({ ok: false, why: WHY[s as keyof typeof WHY] ?? 'launcher' });
      } else if (c === 'E') {
        const child = this.running.get(id);
        const stream = s === '1' ? child?.stdout : child?.stderr;
        if (stream && !stream.destroyed) stream.push(null);
      } else if (c === 'X') {
        this.running.get(id)?.exit(Number(s));
      } else {
        throw new Error(`resident launcher: unknown report ${JSON.stringify(c)}`);
      }
    }
    this.buf = at < buf.length ? Buffer.from(buf.subarray(at)) : Buffer.alloc(0);
  }

  private take(id: number): ((r: ResidentStart) => void) | undefined {
    const report = this.pending.get(id);
    this.pending.delete(id);
    this.setRef();
    return report;
  }

  // Killed from outside: its steps can no longer be reaped or read; each group is KILLed (as the
  // resident would have on its way out) and reported so; steps not yet started start elsewhere.
  private died(): void {
    if (this.dead) return;
    this.dead = true;
    for (const child of this.running.values()) {
      signalGroup(child.pid, 'SIGKILL');
      for (const s of [child.stdout, child.stderr]) if (!s.destroyed && !s.readableEnded) s.push(null);
      child.exit(null);
    }
    for (const report of this.pending.values()) report({ ok: false, why: 'launcher' });
    this.pending.clear();
  }

  // Never what keeps the engine alive while idle; while a step runs, its report must be read.
  private setRef(): void {
    const busy = this.pending.size + this.running.size > 0;
    for (const h of [this.child, this.pipe, this.child.stdin as unknown as Socket]) {
      if (busy) h.ref();
      else h.unref();
    }
  }
}
