// The Anthropic Messages API as claude-code calls it: POST /v1/messages with `stream: true`,
// answered by SSE (message_start, content_block_start/delta/stop, message_delta, message_stop);
// tool calls are `tool_use` blocks whose input streams as `input_json_delta`. Errors carry the
// API's JSON body ({type: "error", error: {type, message}}) and, for a subscription's limit, the
// `anthropic-ratelimit-unified-*` headers.
import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { offeredTool, type Turn, type Usage } from './scenario';
import { sendEvent, sendJson, startSse } from './sse';

type Json = Record<string, any>;

export const MODEL = 'claude-sonnet-4-5-20250929';

/** The conversation's requests offer tools; claude's side calls (titles, quota probes) do not. */
export const isConversation = (body: Json): boolean => Array.isArray(body.tools) && body.tools.length > 0;

/** Claude states its folder in the system prompt ("Primary working directory: /x"). */
export function cwdOf(body: Json): string | undefined {
  const system = Array.isArray(body.system)
    ? body.system.map((b: Json) => b?.text ?? '').join('\n')
    : String(body.system ?? '');
  return /working directory:\s*(\S+)/i.exec(system)?.[1];
}

/** Every text block the user (not the model) sent. */
export function userTexts(body: Json): string[] {
  const out: string[] = [];
  for (const m of body.messages ?? []) {
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else
      for (const b of m.content ?? [])
        if (b?.type === 'text') out.push(b.text);
        else if (b?.type === 'tool_result')
          out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  }
  return out;
}

export function reply(
  res: ServerResponse,
  turn: Turn,
  body: Json,
  id: number,
  cwd: string | undefined,
  tokens?: Usage,
): void {
  if ('error' in turn) return error(res, turn.error, turn.resetSeconds ?? 30, id);
  const block =
    'text' in turn
      ? { kind: 'text' as const, text: turn.text }
      : 'write' in turn
        ? {
            kind: 'tool' as const,
            name: 'Write',
            input: { file_path: resolve(cwd ?? '.', turn.write.path), content: turn.write.content },
          }
        : 'call' in turn
          ? {
              kind: 'tool' as const,
              name: offeredTool(
                (body.tools ?? []).map((t: Json) => t?.name),
                turn.call.tool,
              ),
              input: turn.call.input,
            }
          : { kind: 'tool' as const, name: 'Bash', input: { command: turn.shell, description: 'Run the command' } };
  // Anthropic counts cache reads apart from input_tokens; output arrives in message_delta.
  const usage = tokens
    ? {
        input_tokens: tokens.input - tokens.cached,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: tokens.cached,
        output_tokens: 1,
      }
    : { input_tokens: 100 + id, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  const output = tokens?.output ?? 20;
  const msgId = `msg_braid${String(id).padStart(6, '0')}`;
  const stop = block.kind === 'text' ? 'end_turn' : 'tool_use';
  if (body.stream !== true) {
    const content =
      block.kind === 'text'
        ? [{ type: 'text', text: block.text }]
        : [{ type: 'tool_use', id: `toolu_braid${id}`, name: block.name, input: block.input }];
    return sendJson(res, 200, {
      id: msgId,
      type: 'message',
      role: 'assistant',
      model: body.model ?? MODEL,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { ...usage, output_tokens: output },
    });
  }
  startSse(res, { 'request-id': `req_braid${id}` });
  sendEvent(
    res,
    {
      type: 'message_start',
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: body.model ?? MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
    'message_start',
  );
  if (block.kind === 'text') {
    sendEvent(
      res,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    sendEvent(res, { type: 'ping' }, 'ping');
    // Two pieces, as the API streams: the CLI must join them.
    const half = Math.ceil(block.text.length / 2);
    for (const piece of [block.text.slice(0, half), block.text.slice(half)]) {
      if (piece !== '')
        sendEvent(
          res,
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
          'content_block_delta',
        );
    }
  } else {
    sendEvent(
      res,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: `toolu_braid${id}`, name: block.name, input: {} },
      },
      'content_block_start',
    );
    sendEvent(
      res,
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      },
      'content_block_delta',
    );
  }
  sendEvent(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  sendEvent(
    res,
    { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } },
    'message_delta',
  );
  sendEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

function error(
  res: ServerResponse,
  kind: 'rate-limit' | 'quota' | 'server-error',
  resetSeconds: number,
  id: number,
): void {
  const requestId = `req_braid${id}`;
  if (kind === 'server-error') {
    return sendJson(
      res,
      500,
      { type: 'error', error: { type: 'api_error', message: 'Internal server error' }, request_id: requestId },
      { 'request-id': requestId, 'x-should-retry': 'true' },
    );
  }
  const reset = Math.floor(Date.now() / 1000) + resetSeconds;
  // A Pro/Max subscription's five-hour window, as the API reports it when it is used up.
  return sendJson(
    res,
    429,
    {
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: "This request would exceed your account's rate limit. Please try again later.",
      },
      request_id: requestId,
    },
    {
      'request-id': requestId,
      'retry-after': String(resetSeconds),
      'x-should-retry': 'true',
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(reset),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': String(reset),
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'anthropic-ratelimit-unified-7d-status': 'allowed',
      'anthropic-ratelimit-unified-7d-reset': String(reset + 6 * 86_400),
      'anthropic-ratelimit-unified-fallback-percentage': '0.5',
      'anthropic-ratelimit-unified-overage-status': 'rejected',
      'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
    },
  );
}
