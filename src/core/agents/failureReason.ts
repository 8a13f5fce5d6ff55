// The agent's own words for why an attempt failed ("API Error: 500 Internal server error"), for
// the step's message beside its exit code: the last error the agent reported (its final one),
// else the last telling line of its stderr. One line, bounded.
import { StderrFilter } from './streams/stderrFilter';
import type { AgentSummary } from './streams/types';

const MAX = 300;

/** The agent's reason for failing, or undefined when it gave none. */
export function agentFailureReason(summary: AgentSummary | undefined, stderr: string): string | undefined {
  const errors = summary?.errors ?? [];
  const last = errors[errors.length - 1];
  if (last !== undefined && last.trim() !== '') return oneLine(last);
  const kept = new StderrFilter().push(stderr.endsWith('\n') ? stderr : `${stderr}\n`).kept;
  const lines = kept
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^[{}[\],]+$/.test(l));
  const line = lines[lines.length - 1];
  return line !== undefined ? oneLine(line) : undefined;
}

/** A step's message: the reason, with the exit code beside it. */
export function failureMessage(reason: string | undefined, exitCode: number | null): string {
  const code = exitCode === null ? '' : `exit ${exitCode}`;
  if (reason === undefined) return exitCode === null ? 'failed' : `exited with code ${exitCode}`;
  return code === '' ? reason : `${reason} (${code})`;
}

function oneLine(text: string): string {
  // Gemini wraps its API errors in brackets over several lines, the API's JSON body inside for a
  // server error: keep the words ("API Error: 500 An internal error …"), lose the breaks.
  const flat = text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/^\[API Error: (\{.*\})\]/, (_m, body: string) => `API Error: ${apiBody(body)}`)
    .replace(/^\[(API Error:[^\]]*)\]/, '$1')
    .trim();
  return flat.length > MAX ? `${flat.slice(0, MAX - 1)}…` : flat;
}

function apiBody(json: string): string {
  try {
    const e = (JSON.parse(json) as { error?: { code?: number; message?: string } }).error;
    if (e?.message) return `${e.code !== undefined ? `${e.code} ` : ''}${e.message}`;
  } catch {
    /* not JSON after all */
  }
  return json;
}
