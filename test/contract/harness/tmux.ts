// A terminal a test can type into: a detached tmux session running one command, read with
// capture-pane and typed into with send-keys, as a person at the keyboard would.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Terminal {
  /** What the pane shows now (its scrollback too). */
  screen(): string;
  /**
   * Types `text` (literally) and, once the screen shows it, presses Enter (unless `enter` is
   * false): a TUI that takes a burst of keys as a paste would read an Enter in it as a newline.
   */
  type(text: string, enter?: boolean): Promise<void>;
  /** Presses a key by tmux's name (`Enter`, `C-d`, `Escape`). */
  press(key: string): void;
  /** Waits until `test(screen)` holds, polling; throws with the screen after `ms`. */
  until(test: (screen: string) => boolean, what: string, ms?: number): Promise<string>;
  kill(): void;
}

const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });

/**
 * Starts `argv` in `cwd` with exactly `env`, in a tmux session of its own (a 160×50 pane). The
 * command is written to a script (values single-quoted), so nothing of it is parsed by a shell.
 */
export function openTerminal(
  name: string,
  dir: string,
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Terminal {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = join(dir, `${name}.sh`);
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'unset TMUX',
      ...Object.entries(env).map(([k, v]) => `export ${k}=${q(v)}`),
      `cd ${q(cwd)}`,
      argv.map(q).join(' '),
      `echo "[exit $?]"`,
      'sleep 3600',
      '',
    ].join('\n'),
    { mode: 0o700 },
  );
  tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '50', script);
  const t: Terminal = {
    screen: () => tmux('capture-pane', '-p', '-J', '-S', '-2000', '-t', name),
    async type(text, enter = true) {
      tmux('send-keys', '-t', name, '-l', text);
      if (!enter) return;
      await t.until((s) => s.includes(text.slice(-20)), `"${text}" typed`, 10_000);
      tmux('send-keys', '-t', name, 'Enter');
    },
    press: (key) => {
      tmux('send-keys', '-t', name, key);
    },
    async until(test, what, ms = 60_000) {
      const end = Date.now() + ms;
      for (;;) {
        const s = t.screen();
        if (test(s)) return s;
        if (Date.now() > end) throw new Error(`terminal: ${what} did not show in ${ms} ms; the screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    kill: () => {
      try {
        tmux('kill-session', '-t', name);
      } catch {
        /* gone */
      }
    },
  };
  return t;
}
