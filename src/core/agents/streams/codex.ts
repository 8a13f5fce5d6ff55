// Codex's `codex exec --json`: JSON lines. `thread.started` gives the thread id (what
// `codex exec resume` takes), each turn is `turn.started` … `turn.completed` (with `usage`) or
// `turn.failed` (with `error`), and the work is items, each `item.started` / `item.updated` /
// `item.completed` with `item.type` one of agent_message, reasoning, command_execution,
// file_change, mcp_tool_call, web_search, todo_list, error. The final answer is the last
// agent_message. Codex reports tokens but no cost, nor the model (Braid estimates the cost: cost/).
import { add, arr, LineStream, note, num, obj, str, textLines, type JsonObject } from './lineStream';
import { oneLine, toolLine } from './toolLine';
import type { ParsedLine } from './types';

/** Tokens a codex thread had used before an attempt resumed it. */
export interface ThreadUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly reasoningTokens?: number;
}

// Codex sends these as `error` events (or error items) though they are notices: its own
// reconnect attempts and a model it has no metadata for. Shown as info, never as the run's
// errors (nor as rate-limit evidence).
const NOTICES: readonly RegExp[] = [/^Reconnecting\.\.\.\s*\d+\/\d+/i, /^Model metadata for .* not found/i];

export class CodexStream extends LineStream {
  // Item ids whose start was logged, so completion does not log the same call twice.
  private started = new Set<string>();
  private base: { input: number; cached: number; output: number; reasoning: number } | undefined;

  /** `threadBase`: the tokens the thread had used before this attempt (a resumed session's earlier attempts). */
  constructor(threadBase?: ThreadUsage) {
    super();
    if (threadBase)
      this.base = {
        input: threadBase.inputTokens ?? 0,
        cached: threadBase.cachedInputTokens ?? 0,
        output: threadBase.outputTokens ?? 0,
        reasoning: threadBase.reasoningTokens ?? 0,
      };
  }

  protected event(e: JsonObject, out: ParsedLine[]): void {
    const s = this.summary;
    switch (e.type) {
      case 'thread.started':
      case 'thread.resumed':
        note(s, 'sessionId', str(e.thread_id));
        out.push({ kind: 'info', text: `· thread ${s.sessionId ?? '?'}` });
        return;
      case 'turn.completed': {
        add(s, 'turns', 1);
        const u = obj(e.usage);
        if (u) this.usage(u);
        return;
      }
      case 'turn.failed': {
        add(s, 'turns', 1);
        s.isError = true;
        const message = str(obj(e.error)?.message) ?? 'turn failed';
        // Codex sends its final error twice: as `error`, then as the failed turn's.
        if (s.errors[s.errors.length - 1] !== message.trim()) this.error(message, out);
        return;
      }
      case 'error':
        this.errorOrNotice(str(e.message) ?? 'error', out);
        return;
      case 'item.started':
      case 'item.completed':
        this.item(obj(e.item), e.type === 'item.completed', out);
        return;
      default:
        return; // turn.started, item.updated (progress of an item already shown), future types
    }
  }

  private errorOrNotice(message: string, out: ParsedLine[]): void {
    if (NOTICES.some((p) => p.test(message.trim()))) out.push({ kind: 'info', text: `· ${oneLine(message)}` });
    else this.error(message, out);
  }

  // A resumed thread's first turn.completed counts the whole thread (its earlier attempts
  // included): what they used is taken off, so the attempt records only its own tokens.
  private usage(u: JsonObject): void {
    const s = this.summary;
    const base = this.base ?? { input: 0, cached: 0, output: 0, reasoning: 0 };
    this.base = undefined;
    add(s, 'inputTokens', Math.max(0, (num(u.input_tokens) ?? 0) - base.input));
    add(s, 'cachedInputTokens', Math.max(0, (num(u.cached_input_tokens) ?? 0) - base.cached));
    // output_tokens counts the reasoning tokens too (the Responses API's usage, as codex passes it on).
    add(s, 'outputTokens', Math.max(0, (num(u.output_tokens) ?? 0) - base.output));
    const reasoning = num(u.reasoning_output_tokens);
    if (reasoning !== undefined) add(s, 'reasoningTokens', Math.max(0, reasoning - base.reasoning));
  }

  private item(item: JsonObject | undefined, completed: boolean, out: ParsedLine[]): void {
    if (!item) return;
    const id = str(item.id) ?? '';
    const first = !this.started.has(id);
    if (!completed) this.started.add(id);
    switch (item.type) {
      case 'agent_message': {
        const text = str(item.text);
        if (completed && text !== undefined) {
          out.push(...textLines(text));
          this.summary.finalText = text;
        }
        return;
      }
      case 'command_execution': {
        if (first) out.push({ kind: 'tool', text: toolLine('shell', { command: str(item.command) ?? '' }) });
        const code = num(item.exit_code);
        if (completed && ((code !== undefined && code !== 0) || item.status === 'failed')) {
          out.push({ kind: 'error', text: `✗ exit ${code ?? '?'}: ${oneLine(str(item.command) ?? '')}` });
        }
        return;
      }
      case 'file_change':
        // Its paths are final only on completion.
        if (completed) {
          const paths = arr(item.changes).map((c) => {
            const o = obj(c);
            return `${str(o?.kind) ?? 'edit'} ${str(o?.path) ?? '?'}`;
          });
          out.push({ kind: 'tool', text: `→ files: ${oneLine(paths.join(', '))}` });
        }
        return;
      case 'mcp_tool_call':
        if (first)
          out.push({
            kind: 'tool',
            text: toolLine(`${str(item.server) ?? 'mcp'}.${str(item.tool) ?? 'tool'}`, item.arguments),
          });
        if (completed && item.status === 'failed')
          out.push({
            kind: 'error',
            text: `✗ ${str(item.server) ?? 'mcp'}.${str(item.tool) ?? 'tool'} failed: ${oneLine(str(obj(item.error)?.message) ?? '')}`,
          });
        return;
      case 'web_search':
        if (first) out.push({ kind: 'tool', text: toolLine('web search', { query: str(item.query) ?? '' }) });
        return;
      case 'error':
        if (completed) this.errorOrNotice(str(item.message) ?? 'error', out);
        return;
      default:
        return; // reasoning, todo_list: the agent's own bookkeeping
    }
  }
}
