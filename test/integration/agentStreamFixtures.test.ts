// The parsers on streams the real CLIs printed (claude-code 2.1.197, codex 0.171.0, gemini-cli
// 0.61.0, captured against the contract suite's model server by test/contract/captureStreams.ts):
// answers, tools, sessions and tokens; errors shown once and with the agent's own words; notices
// that are not errors; rate limits and their reset hints; stderr noise kept out of the log.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentFailureReason } from '../../src/core/agents/failureReason';
import { detectRateLimit } from '../../src/core/agents/rateLimit';
import { CodexStream, type ThreadUsage } from '../../src/core/agents/streams/codex';
import { createAgentStream } from '../../src/core/agents/streams/createStream';
import { StderrFilter } from '../../src/core/agents/streams/stderrFilter';
import type { AgentStream, ParsedLine } from '../../src/core/agents/streams/types';

const DIR = join(__dirname, '..', 'fixtures', 'agents', 'streams');
const FORMAT = { claude: 'claude-stream-json', codex: 'codex-json', gemini: 'gemini-json' } as const;
const EXIT: Record<string, number> = { 'gemini-rate-limit': 173, 'gemini-quota': 173, 'gemini-server-error': 244 };
const NOW = new Date('2026-12-06T12:00:00Z');

function load(name: string, stream?: AgentStream) {
  const cli = name.split('-')[0] as 'claude' | 'codex' | 'gemini';
  const p = stream ?? createAgentStream(FORMAT[cli]);
  const text = readFileSync(join(DIR, `${name}.jsonl`), 'utf8');
  const stderr = readFileSync(join(DIR, `${name}.stderr`), 'utf8');
  // In pieces of 7 characters: a line may arrive in any number of chunks.
  const lines: ParsedLine[] = [];
  for (let i = 0; i < text.length; i += 7) lines.push(...p.push(text.slice(i, i + 7)));
  lines.push(...p.end());
  const exitCode = EXIT[name] ?? (p.summary.isError ? 1 : 0);
  const limit = detectRateLimit({
    family: cli,
    exitCode,
    stderr,
    stdoutTail: text,
    summary: p.summary,
    now: NOW,
  });
  return {
    summary: p.summary,
    lines,
    stderr,
    limit,
    reason: agentFailureReason(p.summary, stderr),
    errorLines: lines.filter((l) => l.kind === 'error').map((l) => l.text),
  };
}

describe('agent streams: real CLI captures', () => {
  it('claude: a file written with Write, the session, tokens, cost, the answer', () => {
    const { summary, lines } = load('claude-write');
    assert.match(summary.sessionId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(summary.finalText, 'Wrote hello.txt.');
    assert.ok(summary.inputTokens! > 0 && summary.outputTokens! > 0 && summary.costUsd! > 0);
    assert.ok(lines.some((l) => l.kind === 'tool' && l.text.startsWith('→ Write')));
  });

  it("claude: an API error is one ✗ line (not the agent's words, not repeated by the result), its reason the API's", () => {
    for (const name of ['claude-rate-limit', 'claude-server-error']) {
      const { summary, lines, errorLines, reason } = load(name);
      assert.equal(summary.isError, true);
      assert.equal(errorLines.length, 1, `${name}: ${JSON.stringify(errorLines)}`);
      assert.ok(!lines.some((l) => l.kind === 'text' && /API Error/.test(l.text)), "not shown as the agent's text");
      assert.match(reason ?? '', /^API Error: /);
    }
    assert.equal(load('claude-rate-limit').limit.limited, true);
    assert.equal(load('claude-server-error').limit.limited, false);
    assert.match(load('claude-server-error').reason!, /500/);
  });

  it('claude: stopped at --max-budget-usd, its tokens come from modelUsage (usage is all zeros)', () => {
    const { summary, errorLines } = load('claude-budget');
    assert.equal(summary.isError, true);
    assert.ok(summary.inputTokens! > 0 && summary.outputTokens! > 0, JSON.stringify(summary));
    assert.ok(errorLines.some((l) => /Reached maximum budget/.test(l)));
  });

  it('codex: apply_patch, tokens, the answer; no cost', () => {
    const { summary, lines } = load('codex-write');
    assert.equal(summary.finalText, 'Wrote hello.txt.');
    assert.ok(lines.some((l) => l.kind === 'tool' && /→ files: add .*hello\.txt/.test(l.text)));
    assert.ok(summary.inputTokens! > 0);
    assert.equal(summary.costUsd, undefined);
  });

  it('codex: its final error once (error + turn.failed), usage_limit_reached a rate limit, a 500 its own words', () => {
    const limited = load('codex-rate-limit');
    assert.equal(limited.errorLines.length, 1, JSON.stringify(limited.errorLines));
    assert.equal(limited.limit.limited, true);
    assert.match(limited.reason!, /hit your usage limit/);
    const broken = load('codex-server-error');
    assert.equal(broken.errorLines.length, 1);
    assert.equal(broken.limit.limited, false);
    assert.match(broken.reason!, /experiencing high demand/);
  });

  it('codex: "Reconnecting... 1/5" and "Model metadata … not found" are notices on a run that succeeds', () => {
    const { summary, lines, errorLines } = load('codex-notices');
    assert.deepEqual(errorLines, []);
    assert.deepEqual(summary.errors, []);
    assert.ok(lines.some((l) => l.kind === 'info' && /Reconnecting\.\.\. 1\/5/.test(l.text)));
    assert.ok(lines.some((l) => l.kind === 'info' && /Model metadata for/.test(l.text)));
    assert.equal(summary.finalText, 'Done after reconnecting.');
  });

  it('codex: a resumed thread reports its whole usage; the attempt records the growth only', () => {
    const base: ThreadUsage = { inputTokens: 219, outputTokens: 30, cachedInputTokens: 50 };
    const { summary } = load('codex-resumed', new CodexStream(base));
    assert.equal(summary.inputTokens, 439 - 219);
    assert.equal(summary.outputTokens, 60 - 30);
    assert.equal(load('codex-resumed').summary.inputTokens, 439, 'not resumed: all of it');
  });

  it('gemini: write_file, the answer from deltas, tokens; no cost', () => {
    const { summary, lines } = load('gemini-write');
    assert.ok(lines.some((l) => l.kind === 'tool' && l.text.startsWith('→ write_file')));
    assert.equal(summary.finalText, 'Wrote hello.txt.');
    assert.ok(summary.inputTokens! > 0);
    assert.equal(summary.costUsd, undefined);
  });

  it('gemini: the quota 429 is a rate limit whose hint ("Please retry in 30.5s.", its own line) sets the reset', () => {
    const { limit, reason } = load('gemini-rate-limit');
    assert.equal(limit.limited, true);
    // "Please retry in 30.5s." and "Suggested retry after 30s." both stand in its message.
    const wait = limit.resetAt!.getTime() - NOW.getTime();
    assert.ok(wait >= 30_000 && wait <= 30_500, `${wait} ms`);
    assert.match(reason!, /^API Error: You exceeded your current quota/);
  });

  it('gemini: the generic "Resource has been exhausted" 429 (type unknown) is a rate limit', () => {
    const { limit } = load('gemini-quota');
    assert.equal(limit.limited, true);
  });

  it('gemini: a 500 reads "API Error: 500 …"; its stderr keeps the reason, not the stack trace or warnings', () => {
    const { reason, stderr, limit } = load('gemini-server-error');
    assert.equal(limit.limited, false);
    assert.equal(reason, 'API Error: 500 An internal error has occurred. Please retry or try a different model.');
    const f = new StderrFilter();
    const kept = f.push(stderr).kept + f.end().kept;
    assert.doesNotMatch(kept, /^\s+at /m);
    assert.doesNotMatch(kept, /256-color|\[STARTUP\]|cause: \{/);
    assert.match(kept, /Error when talking to Gemini API/);
  });
});
