// The part every JSON-lines agent stream shares: splitting chunks into lines (a line may arrive
// in pieces, or many in one chunk), telling events from noise, and the growing summary.
import type { TokenCounts } from './types';
import type { AgentStream, AgentSummary, ParsedLine } from './types';

/** Longest line kept whole; past it the line is cut (a runaway tool output must not grow memory unbounded). */
const MAX_LINE = 4 * 1024 * 1024;

export type JsonObject = Record<string, unknown>;

export abstract class LineStream implements AgentStream {
  readonly summary: AgentSummary = { errors: [] };
  /** False for plain-text agents: a line that looks like JSON is still just text. */
  protected readonly structured: boolean = true;
  private partial = '';
  private ended = false;

  push(chunk: string): ParsedLine[] {
    if (this.ended) throw new Error('AgentStream.push after end()');
    const out: ParsedLine[] = [];
    let text = this.partial + chunk;
    let nl: number;
    while ((nl = text.indexOf('\n')) !== -1) {
      this.line(text.slice(0, nl), out);
      text = text.slice(nl + 1);
    }
    if (text.length > MAX_LINE) {
      this.line(text, out);
      text = '';
    }
    this.partial = text;
    return out;
  }

  end(): ParsedLine[] {
    if (this.ended) return [];
    this.ended = true;
    const out: ParsedLine[] = [];
    if (this.partial !== '') this.line(this.partial, out);
    this.partial = '';
    this.finish(out);
    return out;
  }

  private line(raw: string, out: ParsedLine[]): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const event = this.structured ? parseObject(line) : undefined;
    if (event) this.event(event, out);
    else this.noise(line, out);
  }

  /** One JSON object line. */
  protected abstract event(e: JsonObject, out: ParsedLine[]): void;

  /** A line that is not a JSON object (a warning, a banner): kept readable as is. */
  protected noise(line: string, out: ParsedLine[]): void {
    out.push({ kind: 'raw', text: line });
  }

  /** After the last line: settle what only the end can tell (the final answer of an agent that never sent a result). */
  protected finish(_out: ParsedLine[]): void {}

  protected error(message: string, out: ParsedLine[]): void {
    const text = message.trim();
    if (text === '') return;
    this.summary.errors.push(text);
    for (const l of text.split('\n')) if (l.trim() !== '') out.push({ kind: 'error', text: `✗ ${l}` });
  }
}

function parseObject(line: string): JsonObject | undefined {
  const t = line.trimStart();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** Text as log lines, one per non-empty line. */
export function textLines(text: string, kind: ParsedLine['kind'] = 'text'): ParsedLine[] {
  return text
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '')
    .map((l) => ({ kind, text: l }));
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const obj = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Adds `n` to a summary counter, leaving it absent while the agent reports nothing. */
export function add(
  summary: AgentSummary,
  key: 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'reasoningTokens' | 'turns',
  n: number | undefined,
): void {
  if (n === undefined) return;
  summary[key] = (summary[key] ?? 0) + n;
}

/** Sets what the agent just said of itself; a line that does not say keeps what an earlier one said. */
export function note<K extends 'sessionId' | 'model' | 'costUsd'>(
  summary: AgentSummary,
  key: K,
  value: Exclude<AgentSummary[K], undefined> | undefined,
): void {
  if (value !== undefined) summary[key] = value;
}

/** Adds one model's tokens to the summary: its totals and its line by model. */
export function addModel(summary: AgentSummary, model: string, t: TokenCounts): void {
  add(summary, 'inputTokens', t.input);
  add(summary, 'cachedInputTokens', t.cached);
  add(summary, 'outputTokens', t.output);
  add(summary, 'reasoningTokens', t.reasoning);
  const models = (summary.models ??= {});
  const m = models[model];
  models[model] = m
    ? {
        input: m.input + t.input,
        cached: m.cached + t.cached,
        output: m.output + t.output,
        reasoning: m.reasoning + t.reasoning,
      }
    : t;
}

/** Forgets the summary's tokens (an agent's final figures replace what it reported along the way). */
export function clearTokens(summary: AgentSummary): void {
  delete summary.inputTokens;
  delete summary.cachedInputTokens;
  delete summary.outputTokens;
  delete summary.reasoningTokens;
  delete summary.models;
}

/** An epoch the agent printed, in seconds or milliseconds, as a Date. */
export function epochDate(n: number): Date {
  return new Date(n < 1e12 ? n * 1000 : n);
}
