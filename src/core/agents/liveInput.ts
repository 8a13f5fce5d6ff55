// A claude step's stdin kept open as its input channel (`--input-format stream-json`), so a
// person's message (`braid say`) reaches the live process as the user's next message instead of
// stopping it: the step's prompt is the first user message, a message said later is another.
// Claude reads a message sent while it works at its next step (after the tool it runs) and
// echoes each one it took (`--replay-user-messages`, `isReplay: true`); the channel closes when a
// `result` arrives with every message taken, so the process still ends when its work is done.
import type { Writable } from 'node:stream';
import type { AgentDef } from './agentDef';
import { agentFamily } from './presets';

const PRINT = new Set(['-p', '--print']);

/** The user message claude's stream-json input takes, as one line. */
export function userLine(text: string): string {
  return `${JSON.stringify({ type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text }] } })}\n`;
}

/**
 * The argv that runs `agent`'s headless claude command with its prompt on a live stdin instead
 * of an argument (or `stdin`), or undefined where that form does not apply: not claude's stream
 * JSON, not `-p`, an input format of its own, or no prompt element to move.
 */
export function liveArgv(
  agent: AgentDef,
  inv: { argv: readonly string[]; stdin?: string },
  prompt: string,
): string[] | undefined {
  // The claude executable itself: a wrapper or a stand-in speaking its output format may not read stdin so.
  if (
    agentFamily(agent) !== 'claude' ||
    agent.format !== 'claude-stream-json' ||
    exeName(inv.argv[0] ?? '') !== 'claude'
  )
    return undefined;
  const argv = [...inv.argv];
  const print = argv.findIndex((a, i) => i > 0 && PRINT.has(a));
  if (print === -1) return undefined;
  const format = argv.findIndex((a, i) => a === '--output-format' && argv[i + 1] === 'stream-json');
  if (
    (format === -1 && !argv.includes('--output-format=stream-json')) ||
    argv.some((a) => a === '--input-format' || a.startsWith('--input-format='))
  )
    return undefined;
  if (inv.stdin !== prompt) {
    const at = argv.lastIndexOf(prompt);
    if (at <= print) return undefined;
    argv.splice(at, 1);
    if (argv[at - 1] === '--' && at === argv.length) argv.splice(at - 1, 1);
  }
  // After `-p`: claude's own options, not a wrapper's ahead of it.
  argv.splice(print + 1, 0, '--input-format', 'stream-json', '--replay-user-messages');
  return argv;
}

const exeName = (path: string): string =>
  path
    .split(/[\\/]/)
    .pop()!
    .replace(/\.(cmd|exe)$/i, '')
    .toLowerCase();

/** One process's input channel: the prompt first, then what a person says while it runs. */
export class LiveInput {
  private stdin: Writable | undefined;
  private readonly queued: string[] = [];
  private pending = 0;
  private closed = false;
  private partial = '';

  constructor(prompt: string) {
    this.send(prompt);
  }

  /** Whether a message said now still reaches the process (its channel is open). */
  get open(): boolean {
    return !this.closed;
  }

  /** runProcess's `input`: the child's stdin. */
  readonly attach = (stdin: Writable): void => {
    stdin.on('error', () => {
      this.closed = true;
    }); // the process went first: its business
    this.stdin = stdin;
    for (const line of this.queued.splice(0)) stdin.write(line);
    if (this.closed) stdin.end();
  };

  /** Sends `text` as the user's next message; false once the channel has closed. */
  say(text: string): boolean {
    if (this.closed) return false;
    this.send(text);
    return true;
  }

  /** The process's stdout, as it arrives: replays and results decide when the channel closes. */
  readonly onStdout = (text: string): void => {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) this.event(line);
  };

  /** Closes the channel (the process then ends once it is done with what it has). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stdin?.end();
  }

  private send(text: string): void {
    this.pending++;
    const line = userLine(text);
    if (this.stdin) this.stdin.write(line);
    else this.queued.push(line);
  }

  private event(line: string): void {
    // Only the two events that matter are parsed; the stream parser reads the rest.
    if (!line.startsWith('{"type":"user"') && !line.startsWith('{"type":"result"')) return;
    let e: { type?: unknown; isReplay?: unknown };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      return;
    }
    if (e.type === 'user' && e.isReplay === true) this.pending = Math.max(0, this.pending - 1);
    else if (e.type === 'result' && this.pending === 0) this.close();
  }
}
