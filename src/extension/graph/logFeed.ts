// The selected step's live output on its way to the graph page: complete lines only, at most one
// message every FLUSH_MS, and never more than LOG_TAIL lines in one. Past the tail, lines are only
// counted: the page learns of the gap from `startLine` and pages them in from the log file if the
// user scrolls up. No vscode here, so the bench can drive it from a plain Node process.

/** Lines the page is sent when a step is selected, and the most one batch carries. */
export const LOG_TAIL = 2000;
/** ~30 deliveries a second at most. */
export const FLUSH_MS = 33;

/**
 * Sends a batch: `startLine` is set when lines were skipped before it (the page jumps the gap);
 * `stderr` lists the batch's lines that ended in the step's stderr (the log file does not keep
 * streams apart, so only live lines are marked).
 */
export type SendLines = (lines: string[], startLine: number | undefined, stderr: number[]) => void;

export class LogFeed {
  private readonly partial = new Map<string, string>();
  private pending: string[] = [];
  /** Which pending lines came from stderr, parallel to `pending`. */
  private pendingErr: boolean[] = [];
  /** Lines of the log the page has been told of, and pending lines dropped unsent. */
  private told = 0;
  private skipped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A tail of the log is being read: batches wait (see `hold`). */
  private holding = false;

  constructor(
    private readonly send: SendLines,
    private readonly intervalMs = FLUSH_MS,
  ) {}

  /**
   * Output of the selected step; a line is sent once its newline has arrived. `skippedLines`: the
   * engine left that many lines out before `text` (it caps each event): they, and what was
   * pending, become a gap the page can page in.
   */
  output(stepId: string, text: string, skippedLines?: number, stderr = false): void {
    if (skippedLines !== undefined) {
      this.skipped += this.pending.length + skippedLines;
      this.pending = [];
      this.pendingErr = [];
      this.partial.delete(stepId); // its line ended among the skipped ones (or goes on in `text`)
    }
    const lines = ((this.partial.get(stepId) ?? '') + text).split(/\r?\n/);
    this.partial.set(stepId, lines.pop() ?? '');
    // A loop, not push(...lines): a fast step's output can be more lines than a call has arguments.
    for (const line of lines) {
      this.pending.push(line);
      this.pendingErr.push(stderr);
    }
    const over = this.pending.length - LOG_TAIL;
    if (over > 0) {
      this.pending.splice(0, over);
      this.pendingErr.splice(0, over);
      this.skipped += over;
    }
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what is pending now (before a line posted on its own, such as an attempt's header). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.holding || this.pending.length === 0) return;
    const lines = this.pending;
    const stderr: number[] = [];
    this.pendingErr.forEach((err, i) => {
      if (err) stderr.push(i);
    });
    const skipped = this.skipped;
    this.pending = [];
    this.pendingErr = [];
    this.skipped = 0;
    this.send(lines, skipped > 0 ? this.told + skipped : undefined, stderr);
    this.told += skipped + lines.length;
  }

  /** `n` lines were posted to the page outside the batches. */
  counted(n: number): void {
    this.told += n;
  }

  /**
   * While the log's tail is read from the file: output arriving meanwhile is in the file already
   * (the engine writes the log before it sends the output), so it is held back, then dropped by
   * `reset`; nothing reaches the page before the tail does.
   */
  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
  }

  /** The page was sent the log of `stepId` up to line `lines`: what was pending is in it. */
  reset(stepId: string, lines: number): void {
    this.pending = [];
    this.pendingErr = [];
    this.skipped = 0;
    this.partial.delete(stepId);
    this.told = lines;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
