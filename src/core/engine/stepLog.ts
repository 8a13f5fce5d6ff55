// A step's log file: every attempt appended to the same file, each opened by a header line,
// so `braid logs` and the panel show the whole history of a step in order.
import { createWriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';

export interface StepLog {
  readonly stream: Writable;
  /** Ends the stream and resolves once the file is written and closed; rejects with a write error (ENOSPC…). */
  close(): Promise<void>;
}

/** The header that opens an attempt's part of the log. */
export function attemptHeader(attempt: number, title: string, time: Date = new Date()): string {
  return `──── attempt ${attempt} · ${title} · ${time.toISOString()} ────\n`;
}

/** Opens (creating parent dirs) the log at `path` for appending and writes the attempt's header. */
export async function openStepLog(path: string, attempt: number, title: string): Promise<StepLog> {
  await mkdir(dirname(path), { recursive: true });
  // A previous attempt killed mid-line leaves no newline: start the header on a line of its own.
  const lead = (await endsMidLine(path)) ? '\n' : '';
  const stream = createWriteStream(path, { flags: 'a' });
  let failure: Error | undefined;
  // Recorded, not thrown: a full disk must not crash the engine; close() reports it.
  stream.on('error', (err) => { failure ??= err; });
  stream.write(lead + attemptHeader(attempt, title));
  let closing: Promise<void> | undefined;
  return {
    stream,
    close: () => (closing ??= new Promise<void>((resolve, reject) => {
      const settle = (): void => (failure ? reject(failure) : resolve());
      if (stream.closed) return settle();
      stream.once('close', settle);
      stream.end();
    })),
  };
}

async function endsMidLine(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false; // a new log
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] !== 0x0a;
  } catch {
    return false; // unreadable (a directory): the write stream reports it, through close()
  } finally {
    await handle.close();
  }
}
