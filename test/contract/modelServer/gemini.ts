// The Gemini API as gemini-cli calls it with an API key: POST
// /v1beta/models/{model}:streamGenerateContent?alt=sse, answered by SSE data lines each holding a
// GenerateContentResponse (candidates[].content.parts: text or functionCall; usageMetadata).
// Side calls (countTokens, generateContent for its checks) get short answers. Errors carry
// google.rpc's JSON body: RESOURCE_EXHAUSTED with a QuotaFailure and RetryInfo, and "Please retry
// in …s." in the message, as the free tier answers.
import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { offeredTool, type Turn, type Usage } from './scenario';
import { sendEvent, sendJson, startSse } from './sse';

type Json = Record<string, any>;

export const MODEL = 'gemini-2.5-flash';

export const isConversation = (body: Json): boolean => Array.isArray(body.tools) && body.tools.length > 0;

/** Gemini lists its folders in its first message ("Workspace Directories:" then "  - /x"). */
export function cwdOf(body: Json): string | undefined {
  return /Workspace Directories:\**\s*\n\s*-\s*(\/\S*)/i.exec(userTexts(body).join('\n'))?.[1];
}

export function userTexts(body: Json): string[] {
  const out: string[] = [];
  for (const c of body.contents ?? []) {
    if (c?.role !== 'user') continue;
    for (const p of c.parts ?? []) {
      if (typeof p?.text === 'string') out.push(p.text);
      else if (p?.functionResponse) out.push(JSON.stringify(p.functionResponse.response ?? {}));
    }
  }
  return out;
}

/** The functions the request declares (an MCP server's among them). */
const declared = (body: Json): string[] =>
  (body.tools ?? [])
    .flatMap((t: Json) => (t?.functionDeclarations ?? []).map((f: Json) => f?.name))
    .filter((n: unknown) => typeof n === 'string');

export function reply(
  res: ServerResponse,
  turn: Turn,
  body: Json,
  id: number,
  cwd: string | undefined,
  model: string,
  tokens?: Usage,
): void {
  if ('error' in turn) return error(res, turn.error, turn.resetSeconds ?? 30);
  const part =
    'text' in turn
      ? { text: turn.text }
      : 'write' in turn
        ? {
            functionCall: {
              name: 'write_file',
              args: { file_path: resolve(cwd ?? '.', turn.write.path), content: turn.write.content },
            },
          }
        : 'call' in turn
          ? { functionCall: { name: offeredTool(declared(body), turn.call.tool), args: turn.call.input } }
          : {
              functionCall: {
                name: 'run_shell_command',
                args: { command: turn.shell, description: 'Run the command' },
              },
            };
  // promptTokenCount counts the cached ones; thoughts are apart from the candidates, in the total.
  const usage = tokens
    ? {
        promptTokenCount: tokens.input,
        cachedContentTokenCount: tokens.cached,
        candidatesTokenCount: tokens.output - tokens.reasoning,
        thoughtsTokenCount: tokens.reasoning,
        totalTokenCount: tokens.input + tokens.output,
      }
    : { promptTokenCount: 300 + id, candidatesTokenCount: 40, totalTokenCount: 340 + id };
  startSse(res);
  const chunk = (parts: Json[], finish?: string) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
    usageMetadata: usage,
    modelVersion: model,
    responseId: `braid${id}`,
  });
  if ('text' in turn) {
    const half = Math.ceil(turn.text.length / 2);
    sendEvent(res, chunk([{ text: turn.text.slice(0, half) }]));
    sendEvent(res, chunk([{ text: turn.text.slice(half) }], 'STOP'));
  } else {
    sendEvent(res, chunk([part], 'STOP'));
  }
  res.end();
}

/** Non-streaming generateContent: gemini's own checks (next speaker, loop detection) want JSON. */
export function replyPlain(res: ServerResponse, body: Json, model: string): void {
  const json = body.generationConfig?.responseMimeType === 'application/json';
  const text = json ? JSON.stringify({ next_speaker: 'user', reasoning: 'The answer is complete.' }) : 'ok';
  sendJson(res, 200, {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
  });
}

function error(res: ServerResponse, kind: 'rate-limit' | 'quota' | 'server-error', resetSeconds: number): void {
  if (kind === 'server-error') {
    return sendJson(res, 500, {
      error: {
        code: 500,
        message: 'An internal error has occurred. Please retry or try a different model.',
        status: 'INTERNAL',
      },
    });
  }
  if (kind === 'quota') {
    return sendJson(res, 429, {
      error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' },
    });
  }
  // The free tier's per-minute quota, with the hint on its own line as the API sends it.
  return sendJson(res, 429, {
    error: {
      code: 429,
      message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 2\nPlease retry in ${resetSeconds}.5s.`,
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
              quotaValue: '2',
            },
          ],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [
            {
              description: 'Learn more about Gemini API quotas',
              url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${resetSeconds}s` },
      ],
    },
  });
}
