// The end of what an agent attempt prints (its readable lines and stderr, then its check's
// output), kept as it streams, so a failure can tell the next attempt what went wrong.
import { FAILURE_TAIL_CHARS, failureTail } from '../../agents/retryPrompt';
import type { OutputStream } from '../types';

// Room for colour codes and long lines that failureTail() drops.
const KEEP = 4 * FAILURE_TAIL_CHARS;

export class FailureTail {
  private text = '';

  /** `next`, with every chunk also kept here. */
  wrap(next: (stream: OutputStream, text: string) => void): (stream: OutputStream, text: string) => void {
    return (stream, text) => {
      this.push(text);
      next(stream, text);
    };
  }

  push(text: string): void {
    const all = this.text + text;
    this.text = all.length > KEEP ? all.slice(-KEEP) : all;
  }

  /** Forget what came so far (the check starts: its output says why it failed). */
  clear(): void {
    this.text = '';
  }

  /** The attempt result's `failureOutput`, when anything was printed. */
  result(): { failureOutput?: string } {
    const tail = failureTail(this.text);
    return tail === '' ? {} : { failureOutput: tail };
  }
}
