// Output batching, so a chatty step cannot flood the views that listen to the engine's events.
import type { OutputStream } from './types';

/**
 * Text one output event carries at most. A step can print far faster than any view can show
 * (`yes` writes 50 MiB in a third of a second): past this, a batch keeps its newest complete lines
 * and counts the lines it left out. The log file has every byte; events are for live views.
 */
export const MAX_OUTPUT_EVENT_CHARS = 64 * 1024;

/** An output batch: its text, and how many lines before it were left out (absent when none were). */
export type DeliverOutput = (
  id: string,
  stream: OutputStream,
  text: string,
  skippedLines?: number,
  alternative?: number,
) => void;

interface PendingOutput {
  id: string;
  stream: OutputStream;
  text: string;
  skippedLines?: number;
  alternative?: number;
}

/** Drops `e.text`'s head so at most `max` characters stay, starting after a newline where one is near. */
function keepTail(e: PendingOutput, max: number): void {
  const cut = e.text.length - max;
  if (cut <= 0) return;
  const nl = e.text.indexOf('\n', cut);
  const from = nl >= 0 ? nl + 1 : cut; // one line longer than `max`: cut inside it
  let lines = 0;
  for (let i = e.text.indexOf('\n'); i >= 0 && i < from; i = e.text.indexOf('\n', i + 1)) lines++;
  e.skippedLines = (e.skippedLines ?? 0) + lines;
  e.text = e.text.slice(from);
}

/**
 * Coalesces output chunks per step and stream, delivering at most one event every `intervalMs`,
 * each with at most `maxChars` of text (see MAX_OUTPUT_EVENT_CHARS).
 */
export class OutputBatcher {
  private readonly pending = new Map<string, PendingOutput>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deliver: DeliverOutput,
    private readonly intervalMs = 33,
    private readonly maxChars = MAX_OUTPUT_EVENT_CHARS,
  ) {}

  /** `alternative`: a best-of step's alternatives are batched apart, so each batch is one's. */
  push(id: string, stream: OutputStream, text: string, alternative?: number): void {
    const key = `${stream}\0${id}\0${alternative ?? ''}`;
    let e = this.pending.get(key);
    if (e) e.text += text;
    else this.pending.set(key, (e = { id, stream, text, ...(alternative !== undefined ? { alternative } : {}) }));
    // Trimmed as it grows, not only when delivered: a flood between two deliveries stays bounded.
    if (e.text.length > 2 * this.maxChars) keepTail(e, this.maxChars);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Delivers everything buffered now (call before a step's terminal event). */
  flush(id?: string): void {
    for (const [key, e] of this.pending) {
      if (id !== undefined && e.id !== id) continue;
      this.pending.delete(key);
      keepTail(e, this.maxChars);
      this.deliver(e.id, e.stream, e.text, e.skippedLines, e.alternative);
    }
    if (this.pending.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (id === undefined && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  dispose(): void {
    this.flush();
  }
}

/** Marks keys as changed and delivers each at most once every `intervalMs` (the receiver reads the latest state). */
export class ChangeBatcher {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deliver: (key: string) => void,
    private readonly intervalMs = 33,
  ) {}

  mark(key: string): void {
    this.dirty.add(key);
    if (this.intervalMs <= 0) {
      this.flush(key);
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.intervalMs);
  }

  /** Delivers `key` (or every key) now, if it changed since its last delivery. */
  flush(key?: string): void {
    const keys = key === undefined ? [...this.dirty] : this.dirty.has(key) ? [key] : [];
    for (const k of keys) {
      this.dirty.delete(k);
      this.deliver(k);
    }
    if (this.dirty.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  dispose(): void {
    this.flush();
  }
}
