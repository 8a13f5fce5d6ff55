// The OpenAI Responses API as codex calls it (a `model_providers` entry with
// `wire_api = "responses"`): POST /v1/responses with `stream: true`, answered by SSE
// (response.created, response.output_item.added/done, response.output_text.delta,
// response.completed with usage). Tool calls are `function_call` items (or `custom_tool_call`
// for a freeform tool such as apply_patch), chosen from the tools the request offers. Errors
// carry the API's JSON body: `usage_limit_reached` with `resets_at` for a plan's limit.
import type { ServerResponse } from 'node:http';
import { offeredTool, type Turn, type Usage } from './scenario';
import { sendEvent, sendJson, startSse } from './sse';

type Json = Record<string, any>;

export const MODEL = 'gpt-5-codex';

export const isConversation = (body: Json): boolean => Array.isArray(body.tools) && body.tools.length > 0;

/** Codex states its folder in an `<environment_context>` message (`<cwd>/x</cwd>`). */
export function cwdOf(body: Json): string | undefined {
  return /<cwd>([^<]+)<\/cwd>/.exec(userTexts(body).join('\n'))?.[1];
}

export function userTexts(body: Json): string[] {
  const out: string[] = [];
  for (const item of body.input ?? []) {
    if (item?.role === 'user') for (const c of item.content ?? []) if (typeof c?.text === 'string') out.push(c.text);
    if (item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output')
      out.push(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
  }
  return out;
}

const toolNames = (body: Json): string[] =>
  (body.tools ?? []).map((t: Json) => t?.name ?? t?.type).filter((n: unknown) => typeof n === 'string');

/** The call that runs `command` with whichever shell tool codex offers for the model. */
function shellCall(body: Json, command: string): Json {
  const names = toolNames(body);
  if (names.includes('shell_command'))
    return { type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command }) };
  if (names.includes('exec_command'))
    return { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  return { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
}

function writeCall(body: Json, path: string, content: string): Json {
  const patch = `*** Begin Patch\n*** Add File: ${path}\n${content
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n')}\n*** End Patch\n`;
  const tool = (body.tools ?? []).find((t: Json) => t?.name === 'apply_patch');
  if (tool?.type === 'custom') return { type: 'custom_tool_call', name: 'apply_patch', input: patch };
  if (tool) return { type: 'function_call', name: 'apply_patch', arguments: JSON.stringify({ input: patch }) };
  // No patch tool: the shell writes it, with the content as a quoted argument of printf.
  return shellCall(body, `printf '%s' '${content.replace(/'/g, `'\\''`)}' > '${path.replace(/'/g, `'\\''`)}'`);
}

/** A call of an offered tool by (a suffix of) its name: an MCP server's, as codex names it. */
function toolCall(body: Json, call: { tool: string; input: Record<string, unknown> }): Json {
  const names = toolNames(body);
  const offered = offeredTool(names, call.tool);
  if (names.includes(offered) || !names.includes('tool_search'))
    return { type: 'function_call', name: offered, arguments: JSON.stringify(call.input) };
  // Codex defers MCP tools behind its client-side tool_search: search first, then call what it found.
  const found = searched(body).find((t) => t.name === offered || t.name === call.tool);
  if (!found)
    return {
      type: 'tool_search_call',
      execution: 'client',
      arguments: { query: call.tool.replace(/_/g, ' '), limit: 8 },
    };
  return {
    type: 'function_call',
    name: found.name,
    ...(found.namespace ? { namespace: found.namespace } : {}),
    arguments: JSON.stringify(call.input),
  };
}

/** The tools earlier tool_search calls found (their outputs in the request's history), with their namespaces. */
function searched(body: Json): { name: string; namespace?: string }[] {
  const out: { name: string; namespace?: string }[] = [];
  const visit = (t: Json, namespace?: string): void => {
    if (t?.type === 'namespace') {
      for (const inner of t.tools ?? []) visit(inner, t.name);
      return;
    }
    if (typeof t?.name === 'string') out.push({ name: t.name, ...(namespace ? { namespace } : {}) });
  };
  for (const item of body.input ?? [])
    if (item?.type === 'tool_search_output') for (const t of item.tools ?? []) visit(t);
  return out;
}

export function reply(res: ServerResponse, turn: Turn, body: Json, id: number, tokens?: Usage): void {
  if ('error' in turn) return error(res, turn.error, turn.resetSeconds ?? 30);
  const respId = `resp_braid${id}`;
  const model = body.model ?? MODEL;
  const item: Json =
    'text' in turn
      ? {
          type: 'message',
          id: `msg_braid${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text, annotations: [] }],
        }
      : {
          ...('write' in turn
            ? writeCall(body, turn.write.path, turn.write.content)
            : 'call' in turn
              ? toolCall(body, turn.call)
              : shellCall(body, turn.shell)),
          id: `fc_braid${id}`,
          call_id: `call_braid${id}`,
          status: 'completed',
        };
  // The Responses API: input_tokens counts the cached ones, output_tokens the reasoning ones.
  const usage = tokens
    ? {
        input_tokens: tokens.input,
        input_tokens_details: { cached_tokens: tokens.cached },
        output_tokens: tokens.output,
        output_tokens_details: { reasoning_tokens: tokens.reasoning },
        total_tokens: tokens.input + tokens.output,
      }
    : {
        input_tokens: 200 + id,
        input_tokens_details: { cached_tokens: 50 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 230 + id,
      };
  startSse(res, { 'x-request-id': `req_braid${id}` });
  let seq = 0;
  const send = (data: Json) => sendEvent(res, { ...data, sequence_number: seq++ }, data.type);
  const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  send({ type: 'response.created', response: { ...base, status: 'in_progress', output: [] } });
  if ('text' in turn) {
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    });
    send({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: turn.text });
  } else {
    send({ type: 'response.output_item.added', output_index: 0, item });
  }
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

function error(res: ServerResponse, kind: 'rate-limit' | 'quota' | 'server-error', resetSeconds: number): void {
  if (kind === 'server-error') {
    return sendJson(res, 500, {
      error: {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        param: null,
        code: null,
      },
    });
  }
  const resetsAt = Math.floor(Date.now() / 1000) + resetSeconds;
  // ChatGPT plan's limit, as the Codex backend answers it, with the usage headers it sends.
  return sendJson(
    res,
    429,
    {
      error: {
        type: 'usage_limit_reached',
        message: 'The usage limit has been reached',
        plan_type: 'plus',
        resets_at: resetsAt,
        resets_in_seconds: resetSeconds,
      },
    },
    {
      'retry-after': String(resetSeconds),
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-after-seconds': String(resetSeconds),
      'x-codex-secondary-used-percent': '40',
      'x-codex-secondary-window-minutes': '10080',
      'x-codex-secondary-reset-after-seconds': String(resetSeconds + 86_400),
    },
  );
}
