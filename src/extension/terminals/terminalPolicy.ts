// Which step terminals stay open once their step ends, and the one line that closes each. Kept
// apart from the terminals themselves (no vscode here) so the rules are unit-tested.
import type { KeepTerminals } from '../common/config';

/** Statuses a user wants to look at after the fact: the step went wrong on its own. */
const WORTH_KEEPING = new Set(['failed', 'conflict', 'interrupted']);

/** Whether a step's terminal stays open after the step ended with `status`. */
export function keepsTerminal(status: string, keep: KeepTerminals): boolean {
  if (keep === 'all') return status !== 'skipped';
  return WORTH_KEEPING.has(status);
}

export interface StepEnd {
  readonly status: string;
  readonly exitCode?: number | null | undefined;
  readonly signal?: string | null | undefined;
  /** The sentence for why it ended, when the engine gave one. */
  readonly message?: string | undefined;
}

/** The closing line a step's terminal ends with: the step's own outcome, never a guess. */
export function closingLine(end: StepEnd): string {
  const detail =
    end.message ??
    (end.exitCode != null ? `exited with code ${end.exitCode}` : end.signal ? `killed by ${end.signal}` : '');
  return `── ${end.status}${detail ? `: ${detail}` : ''} ──`;
}

/** A bounded copy of what a terminal showed, so a kept terminal can show it again. */
export class TerminalTranscript {
  private chunks: string[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly max = 256 * 1024) {}

  add(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.max && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  /** Everything kept, headed by a note when the start was dropped. */
  text(): string {
    const body = this.chunks.join('');
    return this.dropped ? `\x1b[2m── earlier output left out (Show Log has it) ──\x1b[0m\r\n${body}` : body;
  }
}
