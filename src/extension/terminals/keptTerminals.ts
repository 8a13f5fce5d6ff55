// A step that went wrong keeps a terminal after its task's has closed (a task's terminal closes with
// its step, so VS Code prints no exit-code line that could contradict it): a plain terminal showing
// the same output and Braid's closing line, until the user closes it or the step runs again.
import * as vscode from 'vscode';

/** A finished step's terminal: what it showed, ending with its closing line; closing it does nothing else. */
class KeptPty implements vscode.Pseudoterminal {
  private readonly write = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.write.event;
  constructor(readonly text: string) {}
  open(): void {
    this.write.fire(this.text);
  }
  close(): void {
    this.write.dispose();
  }
}

/** The terminals kept after their steps ended, by `run/step`. */
export class KeptTerminals implements vscode.Disposable {
  private readonly kept = new Map<string, { readonly terminal: vscode.Terminal; readonly pty: KeptPty }>();

  /** A terminal named `name` showing `text` in place of the step's; any earlier one of the step closes. */
  keep(key: string, name: string, status: string, text: string): void {
    this.unkeep(key);
    const pty = new KeptPty(text);
    const failed = status !== 'succeeded';
    const terminal = vscode.window.createTerminal({
      name,
      pty,
      isTransient: true,
      iconPath: new vscode.ThemeIcon(failed ? 'error' : 'pass'),
      ...(failed ? { color: new vscode.ThemeColor('terminal.ansiRed') } : {}),
    });
    this.kept.set(key, { terminal, pty });
  }

  /** The step runs again: its kept terminal goes. */
  unkeep(key: string): void {
    this.kept.get(key)?.terminal.dispose();
    this.kept.delete(key);
  }

  /** The user closed `terminal`: forget it if it was a kept one. */
  closed(terminal: vscode.Terminal): void {
    for (const [key, k] of this.kept) if (k.terminal === terminal) this.kept.delete(key);
  }

  /** The step, the terminal's name and what it shows, of each kept terminal. */
  list(): { readonly run: string; readonly step: string; readonly name: string; readonly text: string }[] {
    return [...this.kept].map(([key, k]) => {
      const slash = key.indexOf('/');
      return { run: key.slice(0, slash), step: key.slice(slash + 1), name: k.terminal.name, text: k.pty.text };
    });
  }

  dispose(): void {
    for (const k of this.kept.values()) k.terminal.dispose();
    this.kept.clear();
  }
}
