// A step's log file: every attempt appended to the same file, each opened by a header line,
// so `braid logs` and the panel show the whole history of a step in order.
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

/** A stream appending to `path` once `dirReady` settles, opened by `first(endsMidLine)`. */
export function appendLog(path: string, dirReady: Promise<void>, first: (endsMidLine: boolean) => string): StepLog {
  let handle: FileHandle | undefined;
  let failure: Error | undefined;
  const stream = new Writable({
    // Past this much unwritten output the step's pipes pause (process.ts): a few pipe reads' worth.
    highWaterMark: 1024 * 1024,
    // Writes made before this calls back wait in the stream's buffer, in order.
    construct(done) {
      void (async () => {
        await dirReady;
        handle = await open(path, 'a+');
        const lead = first(await endsMidLine(handle));
        await handle.write(lead);
      })().then(
        () => done(),
        (e: Error) => done(e),
      );
    },
    write(chunk: Buffer, _enc, done) {
      handle!.write(chunk).then(
        () => done(),
        (e: Error) => done(e),
      );
    },
    writev(chunks, done) {
      handle!.writev(chunks.map((c) => c.chunk as Buffer)).then(
        () => done(),
        (e: Error) => done(e),
      );
    },
    final(done) {
      const h = handle;
      handle = undefined;
      (h ? h.close() : Promise.resolve()).then(
        () => done(),
        (e: Error) => done(e),
      );
    },
    destroy(err, done) {
      const h = handle;
      handle = undefined;
      // The stream waits on done(), not on this promise, and close() cannot reject past its catch.
      void (h ? h.close().catch(() => {}) : Promise.resolve()).then(() => done(err));
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

async function endsMidLine(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
  return buffer[0] !== 0x0a;
}
