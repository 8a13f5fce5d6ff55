// One step's log as the panel holds it: a ring buffer of the newest lines, numbered as in the
// log file, plus what is needed to page older lines in from the host and to find the tail again
// after paging pushed it out. No DOM: unit-tested in Node; logPane.ts draws it.
import { ATTEMPT_HEADER } from '../src/protocol/webview';
import { RingBuffer } from './ringBuffer';

export interface LogLine {
  readonly text: string;
  /** Set on the header line that opens an attempt: the pane draws it as a separator. */
  readonly attempt?: number;
  /** The step wrote it to stderr (known for live lines only). */
  readonly stderr?: true;
}

/** Lines held per log; at the pane's line height this is far more than any screen shows. */
export const LOG_CAPACITY = 10_000;
/** Longer lines are cut when stored (the full text is one "open in editor" away). */
export const MAX_LINE_CHARS = 2_000;

function toLine(text: string, attempt?: number, stderr = false): LogLine {
  const cut =
    text.length > MAX_LINE_CHARS
      ? `${text.slice(0, MAX_LINE_CHARS)} … (${text.length - MAX_LINE_CHARS} more characters)`
      : text;
  const found = ATTEMPT_HEADER.exec(text)?.[1];
  const header = attempt ?? (found !== undefined ? Number(found) : undefined);
  if (header !== undefined) return { text: cut, attempt: header };
  return stderr ? { text: cut, stderr: true } : { text: cut };
}

export class LogModel {
  readonly buffer: RingBuffer<LogLine>;
  /** Lines the log file has, as far as the host has told us. */
  private latest = 0;
  /** True when paging older lines pushed the newest out: live lines are counted, not kept. */
  private detachedFromTail = false;
  private pending: number | undefined;

  constructor(
    readonly runId: string,
    readonly stepId: string,
    capacity = LOG_CAPACITY,
  ) {
    this.buffer = new RingBuffer<LogLine>(capacity);
  }

  get detached(): boolean {
    return this.detachedFromTail;
  }

  /** Number of lines in the log file, as far as known. */
  get knownLines(): number {
    return this.latest;
  }

  /** Whether lines older than the held ones exist in the file. */
  get hasOlder(): boolean {
    return this.buffer.start > 0;
  }

  /** Drops everything and holds `lines`, the first being line `startLine` of the file. */
  reset(lines: readonly string[], startLine = 0, attemptBoundary?: number, stderr?: readonly number[]): void {
    this.buffer.clear(startLine);
    this.detachedFromTail = false;
    this.pending = undefined;
    this.latest = startLine;
    this.append(lines, startLine, attemptBoundary, stderr);
  }

  /** New output. `startLine` defaults to right after what is known; overlaps are not doubled, gaps jump. */
  append(lines: readonly string[], startLine?: number, attemptBoundary?: number, stderr?: readonly number[]): void {
    const err = new Set(stderr);
    const start = startLine ?? this.latest;
    this.latest = Math.max(this.latest, start + lines.length);
    if (this.detachedFromTail) return;
    const end = this.buffer.end;
    if (start > end) {
      // The host skipped lines (it only sends the tail of a fast log): older ones can be paged.
      this.buffer.clear(start);
    }
    const skip = Math.max(0, end - start);
    // Only the newest `capacity` lines can stay: those before them are not even converted (a
    // message at the protocol's maximum holds twice the buffer; older lines are paged from the file).
    const from = Math.max(skip, lines.length - this.buffer.capacity);
    if (from > skip) this.buffer.clear(start + from);
    const fresh: LogLine[] = [];
    for (let i = from; i < lines.length; i++)
      fresh.push(toLine(lines[i] ?? '', i === 0 ? attemptBoundary : undefined, err.has(i)));
    this.buffer.push(...fresh);
  }

  /** The `beforeLine` to ask the host for, once, when the user reaches the oldest held line. */
  olderPageRequest(): number | undefined {
    if (!this.hasOlder || this.pending !== undefined) return undefined;
    this.pending = this.buffer.start;
    return this.pending;
  }

  /** The host's page of lines `[startLine, beforeLine)`. Returns how many lines were added in front (0 if stale). */
  applyPage(startLine: number, beforeLine: number, lines: readonly string[]): number {
    if (beforeLine !== this.pending) return 0;
    this.pending = undefined;
    if (beforeLine !== this.buffer.start || startLine + lines.length !== beforeLine) return 0;
    const dropped = this.buffer.unshift(...lines.map((l) => toLine(l)));
    if (dropped > 0) this.detachedFromTail = true;
    return lines.length;
  }

  /** Following again after paging lost the tail: empties the buffer and asks for the newest page. */
  reattach(): number | undefined {
    if (!this.detachedFromTail) return undefined;
    this.detachedFromTail = false;
    this.buffer.clear(this.latest);
    this.pending = this.latest > 0 ? this.latest : undefined;
    return this.pending;
  }
}
