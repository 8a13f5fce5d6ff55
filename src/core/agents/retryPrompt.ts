// What an agent's next attempt is told about the one that failed before it: the reason and the
// end of the output that shows why (the check's, else the agent's own), so it does not repeat
// the same mistake. Appended to the prompt of a fresh session; the whole prompt of a resumed one.

/** How much of a failure's output the next attempt sees: its last lines, within a size. */
export const FAILURE_TAIL_LINES = 40;
export const FAILURE_TAIL_CHARS = 4000;

export interface FailedAttempt {
  readonly attempt: number;
  readonly reason: string;
  readonly output: string;
}

// Colour and cursor codes: a test runner's colours are noise to a model.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** The last FAILURE_TAIL_LINES lines of `text` (at most FAILURE_TAIL_CHARS), colours removed, blank ends trimmed. */
export function failureTail(text: string): string {
  const clean = text
    .slice(-4 * FAILURE_TAIL_CHARS)
    .replace(ANSI, '')
    .replace(/\r\n?/g, '\n')
    .trim();
  const lines = clean.split('\n').slice(-FAILURE_TAIL_LINES).join('\n');
  return lines.length > FAILURE_TAIL_CHARS ? lines.slice(-FAILURE_TAIL_CHARS) : lines;
}

export interface NoteOptions {
  /** The session of the failed attempt continues: the note is the whole prompt. */
  readonly resumed: boolean;
  /** Where the attempt ran: a worktree starts over from its base, the shared workspace keeps the edits. */
  readonly isolation: 'shared' | 'worktree';
}

/** The note about the failed attempt, as the next attempt's prompt reads it. */
export function retryNote(failed: FailedAttempt, o: NoteOptions): string {
  const parts = [`The previous attempt (attempt ${failed.attempt}) failed: ${failed.reason}`];
  if (failed.output !== '') {
    // A fence longer than any run of backticks inside, so the output cannot close it.
    const longest = Math.max(2, ...[...failed.output.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = '`'.repeat(longest + 1);
    parts.push(`The end of its output:\n${fence}\n${failed.output}\n${fence}`);
  }
  if (o.isolation === 'shared') parts.push('Its changes are still in the working folder.');
  else if (o.resumed) parts.push('The working folder was reset to where you started: your earlier changes are gone.');
  parts.push(
    o.resumed
      ? 'Find the cause, take a different approach where it failed, and finish the task.'
      : 'Find the cause and take a different approach where it failed.',
  );
  return parts.join('\n\n');
}

/** `prompt` with the note after it, one blank line between. */
export function withRetryNote(prompt: string, failed: FailedAttempt, isolation: NoteOptions['isolation']): string {
  return `${prompt.trimEnd()}\n\n${retryNote(failed, { resumed: false, isolation })}`;
}
