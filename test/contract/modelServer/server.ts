// A loopback fake of the three model APIs the agent CLIs call, for the contract suite: the CLIs,
// their event streams, retry loops and wording are real; only the model's answers are canned.
//
//   const server = await startModelServer({ scenario: scenarios.writeFile('a.txt', 'hi') });
//   env: ANTHROPIC_BASE_URL / OpenAI provider base_url / GOOGLE_GEMINI_BASE_URL = server.url (+ '/v1' for codex)
//   … run the agent …; server.requests lists what it was asked; await server.close();
//
// 127.0.0.1 only, on a port the OS picks; bounded: past `maxRequests` it answers 503 and past
// `maxMs` it closes by itself, so a CLI stuck in a retry loop cannot keep a test alive.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as anthropic from './anthropic';
import * as gemini from './gemini';
import * as openai from './openai';
import type { ErrorKind, Scenario, Turn, Usage } from './scenario';
import { sendJson } from './sse';

export type Provider = 'anthropic' | 'openai' | 'gemini';

export interface RecordedRequest {
  readonly provider: Provider | 'other';
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
  /** Part of the agent's conversation (offers tools), as opposed to a CLI's side call. */
  readonly conversation: boolean;
  /** How many model turns the request's history holds: which turn of the scenario it got. */
  readonly position: number;
  /** The user's texts (prompt, tool results) in the request. */
  readonly userTexts: readonly string[];
  /** Date.now() when it arrived. */
  readonly at: number;
  /** The HTTP status answered. */
  status: number;
}

/** The turn for a request: a fixed scenario, or a function of the request (steps of one plan that need different answers). */
export type ScenarioSource = Scenario | ((req: RecordedRequest) => Scenario);

export interface ModelServerOptions {
  readonly scenario: ScenarioSource;
  /** Requests answered before the server answers 503 to everything; default 400. */
  readonly maxRequests?: number;
  /** Lifetime: the server closes itself after it; default 5 minutes. */
  readonly maxMs?: number;
}

export interface ModelServer {
  /** http://127.0.0.1:PORT (codex's provider base_url is this + '/v1'). */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Replaces the scenario (and forgets how many errors each turn has served). */
  serve(scenario: ScenarioSource): void;
  close(): Promise<void>;
}

export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const maxRequests = options.maxRequests ?? 400;
  let source = options.scenario;
  const served = new Map<string, number>(); // errors served per provider and turn position
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, Buffer.concat(chunks).toString('utf8'), res);
      } catch (err) {
        sendJson(res, 500, { error: { message: `model server: ${(err as Error).message}` } });
      }
    });
  });

  function handle(req: IncomingMessage, text: string, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: any;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      body = { raw: text };
    }
    const provider = providerOf(req.method ?? 'GET', url.pathname);
    const api =
      provider === 'anthropic'
        ? anthropic
        : provider === 'openai'
          ? openai
          : provider === 'gemini'
            ? gemini
            : undefined;
    const record: RecordedRequest = {
      provider: provider ?? 'other',
      method: req.method ?? 'GET',
      path: url.pathname,
      headers: req.headers,
      body,
      conversation: api?.isConversation(body) ?? false,
      position: provider ? positionOf(provider, body) : 0,
      userTexts: api?.userTexts(body) ?? [],
      at: Date.now(),
      status: 0,
    };
    requests.push(record);
    const answer = (status: number) => {
      record.status = status;
    };
    if (requests.length > maxRequests) {
      answer(503);
      return sendJson(res, 503, { error: { message: `model server: more than ${maxRequests} requests` } });
    }
    if (!provider || !api) {
      answer(404);
      return sendJson(res, 404, { error: { message: `model server: no route ${req.method} ${url.pathname}` } });
    }
    if (provider === 'anthropic' && url.pathname.endsWith('/count_tokens')) {
      answer(200);
      return sendJson(res, 200, { input_tokens: 100 });
    }
    if (provider === 'gemini' && url.pathname.endsWith(':countTokens')) {
      answer(200);
      return sendJson(res, 200, { totalTokens: 100 });
    }
    const model = /models\/([^:/]+):/.exec(url.pathname)?.[1] ?? gemini.MODEL;
    if (!record.conversation) {
      // A side call: a short answer, never an error (the scenario is about the conversation).
      answer(200);
      if (provider === 'gemini' && url.pathname.endsWith(':generateContent'))
        return gemini.replyPlain(res, body, model);
      return replyTurn(provider, res, { text: 'ok' }, body, requests.length, undefined, model);
    }
    const turn = pick(provider, record);
    answer('error' in turn ? statusOf(turn.error) : 200);
    const scenario = typeof source === 'function' ? source(record) : source;
    replyTurn(provider, res, turn, body, requests.length, api.cwdOf(body), model, scenario.usage);
  }

  function pick(provider: Provider, record: RecordedRequest): Turn {
    const scenario = typeof source === 'function' ? source(record) : source;
    const groups = groupTurns(scenario);
    const g = groups[Math.min(record.position, groups.length - 1)]!;
    const key = `${provider}:${record.position}:${JSON.stringify(g)}`;
    const n = served.get(key) ?? 0;
    served.set(key, n + 1);
    let before = 0;
    for (const e of g.errors) {
      before += e.times ?? Infinity;
      if (n < before) return e;
    }
    return g.turn ?? g.errors[g.errors.length - 1]!;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  const lifetime = setTimeout(() => void close(), options.maxMs ?? 5 * 60_000);
  lifetime.unref();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve(next) {
      source = next;
      served.clear();
    },
    close,
  };
}

type ErrorTurn = Extract<Turn, { error: ErrorKind }>;
interface Group {
  errors: ErrorTurn[];
  turn?: Exclude<Turn, ErrorTurn>;
}

// Errors answer the requests for the model turn after them (`times` each, default every one).
function groupTurns(scenario: Scenario): Group[] {
  const groups: Group[] = [];
  let errors: ErrorTurn[] = [];
  for (const t of scenario.turns) {
    if ('error' in t) {
      errors.push(t);
      continue;
    }
    groups.push({ errors, turn: t });
    errors = [];
  }
  if (errors.length > 0 || groups.length === 0) groups.push({ errors });
  return groups;
}

function providerOf(method: string, path: string): Provider | undefined {
  if (method !== 'POST') return undefined;
  if (/\/v1\/messages(\/count_tokens)?$/.test(path)) return 'anthropic';
  if (/\/responses$/.test(path)) return 'openai';
  if (/\/models\/[^/]+:(streamGenerateContent|generateContent|countTokens)$/.test(path)) return 'gemini';
  return undefined;
}

// Model turns already in the history: which turn of the scenario this request is for.
function positionOf(provider: Provider, body: any): number {
  if (provider === 'anthropic') return (body.messages ?? []).filter((m: any) => m?.role === 'assistant').length;
  if (provider === 'gemini') return (body.contents ?? []).filter((c: any) => c?.role === 'model').length;
  return (body.input ?? []).filter(
    (i: any) =>
      i?.role === 'assistant' ||
      i?.type === 'function_call' ||
      i?.type === 'custom_tool_call' ||
      i?.type === 'local_shell_call',
  ).length;
}

const statusOf = (kind: ErrorKind): number => (kind === 'server-error' ? 500 : 429);

function replyTurn(
  provider: Provider,
  res: ServerResponse,
  turn: Turn,
  body: any,
  id: number,
  cwd: string | undefined,
  model: string,
  usage?: Usage,
): void {
  if (provider === 'anthropic') return anthropic.reply(res, turn, body, id, cwd, usage);
  if (provider === 'openai') return openai.reply(res, turn, body, id, usage);
  return gemini.reply(res, turn, body, id, cwd, model, usage);
}
