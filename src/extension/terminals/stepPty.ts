// The pseudoterminal a step's task shows: fed by engine events (stepTerminals.ts), it buffers what
// comes before VS Code opens it, and closing it is the user's "stop this step".
import * as vscode from 'vscode';
import { TerminalTranscript } from './terminalPolicy';

/** Terminal text: LF → CRLF (a pseudoterminal is raw). */
export function toTerminalText(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** A pseudoterminal fed by engine events; buffers until VS Code opens it. */
export class StepPty implements vscode.Pseudoterminal {
  private readonly write = new vscode.EventEmitter<string>();
  private readonly done = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.write.event;
  readonly onDidClose = this.done.event;
  private pending: string[] | undefined = [];
  private ended = false;
  /** What it showed, for the terminal that replaces it if the step goes wrong. */
  readonly transcript = new TerminalTranscript();
  /** An exit that came before VS Code opened the terminal: fired on open, or the task never ends. */
  private exitBeforeOpen: number | undefined;

  constructor(private readonly onUserClose: () => void) {}

  open(): void {
    for (const chunk of this.pending ?? []) this.write.fire(chunk);
    this.pending = undefined;
    if (this.exitBeforeOpen !== undefined) {
      const code = this.exitBeforeOpen;
      setTimeout(() => this.done.fire(code), 0);
    }
  }

  /** The user closed the terminal (or VS Code disposed it): cancel the step unless it is over. */
  close(): void {
    if (!this.ended) {
      this.ended = true;
      this.onUserClose();
    }
  }

  print(text: string): void {
    const t = toTerminalText(text);
    this.transcript.add(t);
    if (this.pending) this.pending.push(t);
    else this.write.fire(t);
  }

  finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    if (this.pending) this.exitBeforeOpen = code;
    else this.done.fire(code);
  }

  get isEnded(): boolean {
    return this.ended;
  }
}
