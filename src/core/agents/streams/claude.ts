// Claude Code's `--output-format stream-json --verbose`: one JSON object a line. `system/init`
// opens it (session_id, model), `assistant` messages carry text and tool_use blocks, `user`
// messages the tool results, `system/api_retry` a failed API call being retried,
// `rate_limit_event` the plan's limit status, and one `result` closes it with the final answer
// (`result`), `num_turns`, `total_cost_usd`, `usage`, `is_error`, `api_error_status`, `errors`.
import {
  add,
  addModel,
  arr,
  clearTokens,
  epochDate,
  LineStream,
  note,
  num,
  obj,
  str,
  textLines,
  type JsonObject,
} from './lineStream';
import { oneLine, toolLine } from './toolLine';
import type { ParsedLine, TokenCounts } from './types';

export class ClaudeStream extends LineStream {
  private lastText: string | undefined;
  // Each API message's usage as its assistant events report it (one message may arrive as several
  // events, each with the message's usage so far): the tokens while claude runs, before its result.
  private readonly live = new Map<string, { model: string; tokens: TokenCounts }>();
  private sawResult = false;
  // The text of an API error claude reported as a (synthetic) assistant message: its result
  // repeats it, and it is shown once.
  private shownError: string | undefined;

  protected event(e: JsonObject, out: ParsedLine[]): void {
    const s = this.summary;
    note(s, 'sessionId', str(e.session_id));
    switch (e.type) {
      case 'system':
        if (e.subtype === 'init') {
          note(s, 'model', str(e.model));
          out.push({ kind: 'info', text: `· session ${s.sessionId ?? '?'}${s.model ? ` · ${s.model}` : ''}` });
        } else if (e.subtype === 'api_retry') {
          const status = num(e.error_status);
          const delay = num(e.retry_delay_ms);
          out.push({
            kind: 'info',
            text: `· API error${status ? ` ${status}` : ''}, retry ${num(e.attempt) ?? '?'}/${num(e.max_retries) ?? '?'}${delay !== undefined ? ` in ${Math.round(delay / 100) / 10}s` : ''}`,
          });
        }
        return;
      case 'assistant':
        this.assistant(obj(e.message), out, e.error);
        return;
      case 'user':
        for (const block of arr(obj(e.message)?.content)) {
          const b = obj(block);
          if (b?.type === 'tool_result' && b.is_error === true)
            out.push({ kind: 'error', text: `✗ ${oneLine(resultText(b.content))}` });
        }
        return;
      case 'rate_limit_event': {
        const info = obj(e.rate_limit_info);
        if (info?.status === 'rejected') {
          const at = num(info.resetsAt);
          s.rateLimited = at !== undefined ? { resetAt: epochDate(at) } : {};
          out.push({
            kind: 'error',
            text: `✗ rate limit reached${at !== undefined ? `, resets ${epochDate(at).toISOString()}` : ''}`,
          });
        }
        return;
      }
      case 'result':
        this.result(e, out);
        return;
      default:
        return; // stream_event (partial messages), hook events, future types: not log material
    }
  }

  private assistant(message: JsonObject | undefined, out: ParsedLine[], error?: unknown): void {
    if (!message) return;
    // An API error ("API Error: 500 …") arrives as a message of model `<synthetic>` with `error`
    // set beside it: it is an error, not the agent's words.
    if (error !== undefined || message.model === '<synthetic>') {
      const text = arr(message.content)
        .map((b) => str(obj(b)?.text) ?? '')
        .join('\n')
        .trim();
      if (text !== '') {
        this.shownError = text;
        this.error(text, out);
      }
      return;
    }
    const texts: string[] = [];
    for (const block of arr(message.content)) {
      const b = obj(block);
      if (b?.type === 'text' && typeof b.text === 'string') {
        texts.push(b.text);
        out.push(...textLines(b.text));
      } else if (b?.type === 'tool_use') {
        out.push({ kind: 'tool', text: toolLine(str(b.name) ?? 'tool', b.input) });
      }
    }
    if (texts.length > 0) this.lastText = texts.join('\n');
    if (this.summary.model === undefined) note(this.summary, 'model', str(message.model));
    this.liveUsage(message);
  }

  // The tokens so far, summed over the messages seen: claude's result replaces them with its own.
  private liveUsage(message: JsonObject): void {
    const u = obj(message.usage);
    const id = str(message.id);
    const model = str(message.model) ?? this.summary.model;
    if (!u || id === undefined || model === undefined || this.sawResult) return;
    const cacheRead = num(u.cache_read_input_tokens) ?? 0;
    this.live.set(id, {
      model,
      tokens: {
        input: (num(u.input_tokens) ?? 0) + cacheRead + (num(u.cache_creation_input_tokens) ?? 0),
        cached: cacheRead,
        output: num(u.output_tokens) ?? 0,
        reasoning: 0,
      },
    });
    clearTokens(this.summary);
    for (const m of this.live.values()) addModel(this.summary, m.model, m.tokens);
  }

  private result(e: JsonObject, out: ParsedLine[]): void {
    const s = this.summary;
    this.sawResult = true;
    add(s, 'turns', num(e.num_turns));
    note(s, 'costUsd', num(e.total_cost_usd) ?? num(e.cost_usd)); // cost_usd: older releases
    const usage = obj(e.usage);
    const models = obj(e.modelUsage);
    if (usage || models) clearTokens(s); // the result's figures, not the sum of what the messages said
    if (
      usage &&
      num(usage.input_tokens) === 0 &&
      num(usage.output_tokens) === 0 &&
      models &&
      Object.keys(models).length > 0
    ) {
      // error_max_budget_usd: `usage` is all zeros, the tokens are only in `modelUsage`.
      for (const [name, m] of Object.entries(models)) {
        const u = obj(m);
        const cacheRead = num(u?.cacheReadInputTokens) ?? 0;
        addModel(s, name, {
          input: (num(u?.inputTokens) ?? 0) + cacheRead + (num(u?.cacheCreationInputTokens) ?? 0),
          cached: cacheRead,
          output: num(u?.outputTokens) ?? 0,
          reasoning: 0,
        });
      }
    } else if (usage) {
      const cacheRead = num(usage.cache_read_input_tokens);
      const cacheWrite = num(usage.cache_creation_input_tokens) ?? 0;
      // Anthropic counts cached and cache-written tokens apart from input_tokens: all are input.
      add(s, 'inputTokens', (num(usage.input_tokens) ?? 0) + (cacheRead ?? 0) + cacheWrite);
      add(s, 'outputTokens', num(usage.output_tokens));
      add(s, 'cachedInputTokens', cacheRead);
    }
    const status = num(e.api_error_status);
    if (status !== undefined) s.apiErrorStatus = status;
    const text = str(e.result);
    const failed = e.is_error === true || (typeof e.subtype === 'string' && e.subtype.startsWith('error'));
    if (failed) {
      s.isError = true;
      const errors = arr(e.errors)
        .map(str)
        .filter((m): m is string => m !== undefined);
      if (text !== undefined && text.trim() !== '') errors.unshift(text);
      if (errors.length === 0) errors.push(`claude ended with ${str(e.subtype) ?? 'an error'}`);
      for (const m of errors) {
        // Shown already as the error message it repeats: recorded, not printed twice.
        if (m.trim() === this.shownError) {
          if (!s.errors.includes(m.trim())) s.errors.push(m.trim());
          continue;
        }
        this.error(m, out);
      }
    } else if (text !== undefined) {
      s.finalText = text;
    }
    const cost = s.costUsd !== undefined ? ` · $${s.costUsd.toFixed(4)}` : '';
    out.push({ kind: 'info', text: `· ${failed ? 'failed' : 'done'} · ${s.turns ?? '?'} turns${cost}` });
  }

  protected override finish(): void {
    // Killed before its result (timeout, cancel): its last words are the best answer there is.
    if (!this.sawResult && this.summary.finalText === undefined && this.lastText !== undefined)
      this.summary.finalText = this.lastText;
  }
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((c) => str(obj(c)?.text) ?? '')
    .join(' ');
}
