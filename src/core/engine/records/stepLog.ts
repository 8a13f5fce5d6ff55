// A step's log file: every attempt appended to the same file, each opened by a header line,
// so `braid logs` and the panel show the whole history of a step in order.
import { closeSync, fstatSync, openSync, readSync, writeSync, writev } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';

export interface StepLog {
  /** Accepts writes at once; they reach the file, in order, once it is open. */
  readonly stream: Writable;
  /** Ends the stream and resolves once the file is written and closed; rejects with a write error (ENOSPC…). */
  close(): Promise<void>;
}

/** The header that opens an attempt's part of the log. */
export function attemptHeader(attempt: number, title: string, time: Date = new Date()): string {
  return `──── attempt ${attempt} · ${title} · ${time.toISOString()} ────\n`;
}

/** The line that opens a step's `check` output in its log. */
export function checkHeader(command: string): string {
  return `──── check: ${command} ────\n`;
}

/**
 * What the last attempt in a step's `log` printed that says why it failed: its check's output when
 * it ran one, else all it printed (the header lines of attemptHeader and checkHeader mark them).
 */
export function lastAttemptOutput(log: string): string {
  const lines = log.split('\n');
  let from = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.startsWith('──── attempt ')) {
      from = i + 1;
      break;
    }
  }
  for (let i = lines.length - 1; i >= from; i--) {
    if (lines[i]!.startsWith('──── check: ')) {
      from = i + 1;
      break;
    }
  }
  return lines.slice(from).join('\n');
}

/** The last `bytes` of the log at `path` as text (from a line start when cut); '' when it cannot be read. */
export async function readLogTail(path: string, bytes: number): Promise<string> {
  let h: FileHandle | undefined;
  try {
    h = await open(path, 'r');
    const size = (await h.stat()).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    await h.read(buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } catch {
    // No log yet (the step has not started) or removed with its run: nothing to show.
    return '';
  } finally {
    await h?.close().catch(() => {});
  }
}

/** Creates a directory once however many logs ask for it (a run's logs share one). */
export class DirMaker {
  private readonly made = new Map<string, Promise<void>>();

  ensure(dir: string): Promise<void> {
    let p = this.made.get(dir);
    if (!p) {
      p = mkdir(dir, { recursive: true }).then(() => {});
      // A failure is not remembered: the next log tries again.
      p.catch(() => this.made.delete(dir));
      this.made.set(dir, p);
    }
    return p;
  }
}

/** Opens (creating parent dirs) the log at `path` for appending and writes the attempt's header. */
export async function openStepLog(path: string, attempt: number, title: string): Promise<StepLog> {
  await mkdir(dirname(path), { recursive: true });
  return startStepLog(path, attempt, title, Promise.resolve());
}

/**
 * The log at `path`, usable at once: the file is opened (after `dirReady`) while the caller goes
 * on, so a step spawns without waiting for the disk; what it writes meanwhile is buffered and
 * lands after the header. A failure to open or write is reported by close(), never thrown.
 */
export function startStepLog(path: string, attempt: number, title: string, dirReady: Promise<void>): StepLog {
  const header = attemptHeader(attempt, title);
  // A previous attempt killed mid-line leaves no newline: start the header on a line of its own.
  return appendLog(path, dirReady, (midLine) => (midLine ? '\n' : '') + header);
}

/**
 * A stream appending to `path` once `dirReady` settles, opened by `first(endsMidLine)`.
 *
 * Opening, the first line and closing are synchronous calls on the engine's thread, the output's
 * writes asynchronous: each asynchronous file call is a round trip through libuv's threadpool
 * (a futex wake of a pool thread, an eventfd wake of the loop), which on the project's machine
 * cost the engine more than the small call itself — at 1,000 instant steps the five a log took were
 * ~40 futex calls a step (docs/decisions/many-short-steps.md). A step's output can be large and
 * the disk slow, so its writes stay off the thread, and their backpressure is the output throttle.
 */
export function appendLog(path: string, dirReady: Promise<void>, first: (endsMidLine: boolean) => string): StepLog {
  let fd: number | undefined;
  let failure: Error | undefined;
  const shut = (): void => {
    const f = fd;
    fd = undefined;
    if (f !== undefined) closeSync(f);
  };
  const stream = new Writable({
    // Past this much unwritten output the step's pipes pause (process.ts): a few pipe reads' worth.
    highWaterMark: 1024 * 1024,
    // Writes made before this calls back wait in the stream's buffer, in order.
    construct(done) {
      dirReady.then(
        () => {
          try {
            fd = openSync(path, 'a+');
            writeSync(fd, first(endsMidLine(fd)));
            done();
          } catch (e) {
            done(e as Error);
          }
        },
        (e: Error) => done(e),
      );
    },
    write(chunk: Buffer, _enc, done) {
      writeAll(fd!, [chunk], done);
    },
    writev(chunks, done) {
      writeAll(
        fd!,
        chunks.map((c) => c.chunk as Buffer),
        done,
      );
    },
    final(done) {
      try {
        shut();
        done();
      } catch (e) {
        done(e as Error);
      }
    },
    destroy(err, done) {
      try {
        shut();
      } catch {
        /* the error that destroyed it is the one to report */
      }
      done(err);
    },
  });
  // Recorded, not thrown: a full disk must not crash the engine; close() reports it.
  stream.on('error', (err) => {
    failure ??= err;
  });
  let closing: Promise<void> | undefined;
  return {
    stream,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        if (stream.closed) return resolve();
        stream.once('close', () => resolve());
        stream.end();
      }).then(() => {
        if (failure) throw failure;
      })),
  };
}

/** Writes every byte of `chunks` at the file's end (a short write goes on from where it stopped). */
function writeAll(fd: number, chunks: Buffer[], done: (e?: Error | null) => void): void {
  writev(fd, chunks, (err, n) => {
    if (err) return done(err);
    const total = chunks.reduce((a, c) => a + c.length, 0);
    if (n === total) return done();
    const rest = Buffer.concat(chunks).subarray(n);
    writeAll(fd, [rest], done);
  });
}

function endsMidLine(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, size - 1);
  return byte[0] !== 0x0a;
}
