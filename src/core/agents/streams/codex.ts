// Codex's `codex exec --json`: JSON lines. `thread.started` gives the thread id (what
// `codex exec resume` takes), each turn is `turn.started` … `turn.completed` (with `usage`) or
// `turn.failed` (with `error`), and the work is items, each `item.started` / `item.updated` /
// `item.completed` with `item.type` one of agent_message, reasoning, command_execution,
// file_change, mcp_tool_call, web_search, todo_list, error. The final answer is the last
// agent_message. Codex reports tokens but no cost.
import { add, arr, LineStream, num, obj, str, textLines, type JsonObject } from './lineStream';
import { oneLine, toolLine } from './toolLine';
import type { ParsedLine } from './types';

export class CodexStream extends LineStream {
  // Item ids whose start was logged, so completion does not log the same call twice.
  private started = new Set<string>();

  protected event(e: JsonObject, out: ParsedLine[]): void {
    const s = this.summary;
    switch (e.type) {
      case 'thread.started':
      case 'thread.resumed':
        s.sessionId = str(e.thread_id) ?? s.sessionId;
        out.push({ kind: 'info', text: `· thread ${s.sessionId ?? '?'}` });
        return;
      case 'turn.completed': {
        add(s, 'turns', 1);
        const u = obj(e.usage);
        if (u) {
          add(s, 'inputTokens', num(u.input_tokens));
          add(s, 'cachedInputTokens', num(u.cached_input_tokens));
          add(s, 'outputTokens', num(u.output_tokens));
        }
        return;
      }
      case 'turn.failed':
        add(s, 'turns', 1);
        s.isError = true;
        this.error(str(obj(e.error)?.message) ?? 'turn failed', out);
        return;
      case 'error':
        this.error(str(e.message) ?? 'error', out);
        return;
      case 'item.started':
      case 'item.completed':
        this.item(obj(e.item), e.type === 'item.completed', out);
        return;
      default:
        return; // turn.started, item.updated (progress of an item already shown), future types
    }
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
          const paths = arr(item.changes).map((c) => { const o = obj(c); return `${str(o?.kind) ?? 'edit'} ${str(o?.path) ?? '?'}`; });
          out.push({ kind: 'tool', text: `→ files: ${oneLine(paths.join(', '))}` });
        }
        return;
      case 'mcp_tool_call':
        if (first) out.push({ kind: 'tool', text: toolLine(`${str(item.server) ?? 'mcp'}.${str(item.tool) ?? 'tool'}`, item.arguments) });
        if (completed && item.status === 'failed') out.push({ kind: 'error', text: `✗ ${str(item.server) ?? 'mcp'}.${str(item.tool) ?? 'tool'} failed: ${oneLine(str(obj(item.error)?.message) ?? '')}` });
        return;
      case 'web_search':
        if (first) out.push({ kind: 'tool', text: toolLine('web search', { query: str(item.query) ?? '' }) });
        return;
      case 'error':
        if (completed) this.error(str(item.message) ?? 'error', out);
        return;
      default:
        return; // reasoning, todo_list: the agent's own bookkeeping
    }
  }
}
