// A plain-text agent (aider, shell, a custom command): its stdout is the log as is, and the
// step's output stays the stdout tail (no finalText), as for any command.
import { LineStream } from './lineStream';
import type { ParsedLine } from './types';

export class TextStream extends LineStream {
  protected override readonly structured = false;

  protected event(): void {} // never called: structured is false

  protected override noise(line: string, out: ParsedLine[]): void {
    out.push({ kind: 'text', text: line });
  }
}
