// What every Braid MCP tool answers: structured data (and the same as JSON text, for clients that
// read only text), or an expected failure said as data (`isError`, a message, and what helps the
// caller fix it). And the bound on a tool's time: a tool answers within its deadline or says it
// did not, so no client waits on Braid without end; long work is a run the caller polls.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export type Answer =
  { ok: true; data: Record<string, unknown> } | { ok: false; message: string; data?: Record<string, unknown> };

export const ok = (data: Record<string, unknown>): Answer => ({ ok: true, data });
export const refuse = (message: string, data?: Record<string, unknown>): Answer => ({
  ok: false,
  message,
  ...(data ? { data } : {}),
});

/** The answer as MCP's CallToolResult. */
export function toResult(a: Answer): CallToolResult {
  if (a.ok) return { content: [{ type: 'text', text: JSON.stringify(a.data, null, 2) }], structuredContent: a.data };
  const text = a.data ? `${a.message}\n${JSON.stringify(a.data, null, 2)}` : a.message;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The tool's answer, or a refusal once `ms` have passed (the work it started may go on). */
export async function withinDeadline(name: string, ms: number, work: () => Promise<Answer>): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Answer>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          refuse(
            `${name} took longer than ${Math.round(ms / 1000)} s and was given up on; what it started may still finish: ask run_status`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** At most `max` bytes of `text` (UTF-8), its end kept when `keep` is 'end'; and whether it was cut. */
export function bounded(text: string, max: number, keep: 'start' | 'end'): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return { text, truncated: false };
  const part = keep === 'end' ? buf.subarray(buf.length - max) : buf.subarray(0, max);
  // A cut inside a multi-byte character leaves U+FFFD at the edge: drop it.
  return { text: part.toString('utf8').replace(keep === 'end' ? /^\uFFFD+/ : /\uFFFD+$/, ''), truncated: true };
}
