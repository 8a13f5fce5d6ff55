import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rateLimitBackoff, seededRandom } from '../../src/core/agents/backoff';
import type { AgentFamily } from '../../src/core/agents/presets';
import { detectRateLimit } from '../../src/core/agents/rateLimit';
import { parseResetTime } from '../../src/core/agents/resetTime';
import { createAgentStream } from '../../src/core/agents/streams/createStream';
import type { AgentSummary } from '../../src/core/agents/streams/types';
import { runProcess } from '../../src/core/exec/process';

const FAKE = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
// 2026-12-03 09:30 UTC, a Thursday: Berlin is UTC+1, New York UTC-5 (no DST in December).
const NOW = new Date('2026-12-03T09:30:00Z');
const summary = (over: Partial<AgentSummary>): AgentSummary => ({ errors: [], ...over });

describe('detectRateLimit', () => {
  const limited = (
    family: AgentFamily,
    s: AgentSummary | undefined,
    stderr = '',
    stdoutTail = '',
    exitCode: number | null = 1,
  ) => detectRateLimit({ family, exitCode, stderr, stdoutTail, ...(s ? { summary: s } : {}), now: NOW });

  it('claude: a usage-limit result, with the reset in Berlin time', () => {
    const v = limited(
      'claude',
      summary({ isError: true, errors: ["You've hit your limit · resets 3pm (Europe/Berlin)"] }),
    );
    assert.equal(v.limited, true);
    assert.deepEqual(v.resetAt, new Date('2026-12-03T14:00:00Z'));
    assert.match(v.evidence!, /hit your limit/);
  });

  it('claude: the old "usage limit reached|epoch" form, and a rate_limit_event, and api_error_status 429', () => {
    assert.deepEqual(
      limited('claude', summary({ isError: true, errors: ['Claude AI usage limit reached|1796317200'] })).resetAt,
      new Date(1796317200 * 1000),
    );
    const ev = limited(
      'claude',
      summary({ isError: true, rateLimited: { resetAt: new Date('2026-12-03T12:00:00Z') }, errors: ['something'] }),
    );
    assert.deepEqual(ev, {
      limited: true,
      resetAt: new Date('2026-12-03T12:00:00Z'),
      evidence: 'rate limit reported by the agent',
    });
    assert.deepEqual(limited('claude', summary({ isError: true, apiErrorStatus: 429, errors: ['API Error'] })), {
      limited: true,
      evidence: 'API error 429',
    });
  });

  it('codex: "hit your usage limit … try again at 3:05 PM" (local time), and a 429 after retries', () => {
    const v = limited(
      'codex',
      summary({ isError: true, errors: ["You've hit your usage limit. Upgrade to Pro, or try again at 3:05 PM."] }),
    );
    assert.equal(v.limited, true);
    const local = new Date(NOW);
    local.setHours(15, 5, 0, 0);
    if (local <= NOW) local.setDate(local.getDate() + 1);
    assert.deepEqual(v.resetAt, local);
    assert.equal(
      limited(
        'codex',
        summary({ isError: true, errors: ['stream error: exceeded retry limit, last status: 429 Too Many Requests'] }),
      ).limited,
      true,
    );
  });

  it('gemini: RESOURCE_EXHAUSTED / quota with "Please retry in 23.5s"', () => {
    const v = limited(
      'gemini',
      summary({
        isError: true,
        errors: ["Quota exceeded for quota metric 'requests'. Please retry in 23.5s.", 'RESOURCE_EXHAUSTED'],
      }),
    );
    assert.equal(v.limited, true);
    assert.deepEqual(v.resetAt, new Date(NOW.getTime() + 23_500));
  });

  it('aider and custom agents: litellm errors and HTTP 429 in the end of the output', () => {
    assert.equal(
      limited('aider', undefined, '', 'litellm.RateLimitError: AnthropicException - rate_limit_error').limited,
      true,
    );
    assert.equal(limited('other', undefined, 'HTTP 429 Too Many Requests; Retry-After: 30').limited, true);
    assert.deepEqual(
      limited('other', undefined, 'HTTP 429 Too Many Requests; Retry-After: 30').resetAt,
      new Date(NOW.getTime() + 30_000),
    );
  });

  it('is never a rate limit when the run succeeded, was killed, or only talked about rate limits', () => {
    assert.equal(
      limited('other', undefined, '', 'Added a rate limit to the API (HTTP 429 on abuse)', 0).limited,
      false,
    );
    assert.equal(
      limited('claude', summary({ isError: true, errors: ['usage limit reached'] }), '', '', null).limited,
      false,
    );
    // Claude failed for another reason; its assistant text (in stdout) mentioned rate limits: not read.
    assert.equal(
      limited(
        'claude',
        summary({ isError: true, errors: ['Reached maximum number of turns (10)'] }),
        '',
        'I implemented the rate limit middleware',
      ).limited,
      false,
    );
    assert.equal(
      limited('codex', summary({ isError: true, errors: ['exit 1: npm test'] }), 'error: tests failed').limited,
      false,
    );
  });

  it('reads stderr too, whatever the format', () => {
    assert.equal(
      limited('claude', summary({}), 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}').limited,
      true,
    );
  });

  it('drops a reset time already past', () => {
    const v = limited('claude', summary({ isError: true, errors: ['Claude AI usage limit reached|1700000000'] }));
    assert.deepEqual(v, { limited: true, evidence: 'Claude AI usage limit reached|1700000000' });
  });

  for (const [name, format] of [
    ['claude', 'claude-stream-json'],
    ['codex', 'codex-json'],
    ['gemini', 'gemini-json'],
  ] as const) {
    it(`the fake ${name} agent's limit, parsed from the real process, is detected; its second run is not limited`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'braid-ratelimit-'));
      try {
        const run = async () => {
          const stream = createAgentStream(format);
          const r = await runProcess({
            argv: [process.execPath, FAKE, ...(name === 'codex' ? ['exec', '--json', 'go'] : ['-p', 'go'])],
            cwd: dir,
            env: {
              PATH: process.env.PATH ?? '',
              FAKE_AGENT_FORMAT: name,
              FAKE_AGENT_RATE_LIMIT: '1',
              FAKE_AGENT_STATE: join(dir, 'runs'),
            },
            onOutput: (s, t) => {
              if (s === 'stdout') stream.push(t);
            },
          });
          stream.end();
          return detectRateLimit({
            family: name,
            exitCode: r.exitCode,
            stderr: '',
            stdoutTail: r.stdoutTail,
            summary: stream.summary,
            now: NOW,
          });
        };
        const first = await run();
        assert.equal(first.limited, true, JSON.stringify(first));
        assert.ok(first.resetAt && first.resetAt > NOW, 'a reset time was read');
        assert.equal((await run()).limited, false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('parseResetTime', () => {
  const at = (line: string) => parseResetTime(line, NOW)?.toISOString();
  it('reads delays in any unit combination', () => {
    assert.equal(at('Please retry in 500ms'), '2026-12-03T09:30:00.500Z');
    assert.equal(at('try again in 2 days 3 hours 5 minutes'), '2026-12-05T12:35:00.000Z');
    assert.equal(at('Try again in 1h30m.'), '2026-12-03T11:00:00.000Z');
    assert.equal(at('"retryDelay": "41s"'), '2026-12-03T09:30:41.000Z');
  });
  it('reads wall-clock times in a named zone, rolling past times to tomorrow', () => {
    assert.equal(at('resets 3pm (Europe/Berlin)'), '2026-12-03T14:00:00.000Z');
    assert.equal(at('resets at 9:15am (America/New_York)'), '2026-12-03T14:15:00.000Z');
    assert.equal(at('resets 10am (Europe/Berlin)'), '2026-12-04T09:00:00.000Z', '10am Berlin was 09:00Z, already past');
    assert.equal(at('try again at Dec 24th, 2026 4:05 PM (UTC)'), '2026-12-24T16:05:00.000Z');
    assert.equal(at('limit resets at 2026-12-03T14:05:00Z'), '2026-12-03T14:05:00.000Z');
  });
  it('reads a time printed to the minute, within its minute, as now rather than tomorrow (codex: "try again at 1:10 PM")', () => {
    const now = new Date('2026-12-03T13:10:45Z');
    assert.equal(parseResetTime('try again at 1:10 PM (UTC)', now)?.toISOString(), '2026-12-03T13:10:00.000Z');
    assert.equal(
      parseResetTime('try again at 1:09 PM (UTC)', now)?.toISOString(),
      '2026-12-04T13:09:00.000Z',
      'a minute and more past: tomorrow',
    );
  });
  it('reads no time where there is none', () => {
    assert.equal(at('retry 3 times'), undefined);
    assert.equal(at('Usage limits span all sessions and reset daily.'), undefined);
    assert.equal(at('resets 25:00'), undefined);
  });
});

describe('rateLimitBackoff', () => {
  it('grows exponentially from retry-delay with equal jitter, reproducibly for a seed', () => {
    const seq = (seed: number) => {
      const random = seededRandom(seed);
      return [1, 2, 3, 4, 5].map((n) => rateLimitBackoff({ limitedCount: n, baseMs: 2000, now: NOW, random }).delayMs);
    };
    const a = seq(42);
    assert.deepEqual(seq(42), a, 'same seed, same schedule');
    assert.notDeepEqual(seq(7), a, 'another seed, other jitter');
    a.forEach((d, i) => {
      const step = 2000 * 2 ** i;
      assert.ok(d >= step / 2 && d < step, `wait ${i + 1}: ${d} in [${step / 2}, ${step})`);
    });
  });

  it('caps the exponential wait, and its bounds are reached at random 0 and ~1', () => {
    assert.equal(
      rateLimitBackoff({ limitedCount: 30, baseMs: 2000, now: NOW, random: () => 0, maxMs: 60_000 }).delayMs,
      30_000,
    );
    assert.equal(
      rateLimitBackoff({ limitedCount: 30, baseMs: 2000, now: NOW, random: () => 0.999999, maxMs: 60_000 }).delayMs,
      59_999,
    );
    assert.equal(rateLimitBackoff({ limitedCount: 1, baseMs: 0, now: NOW, random: () => 0.5 }).delayMs, 0);
  });

  it('waits until a printed reset time, spread a little after it', () => {
    const resetAt = new Date(NOW.getTime() + 3_600_000);
    const b0 = rateLimitBackoff({ limitedCount: 1, baseMs: 2000, resetAt, now: NOW, random: () => 0 });
    assert.deepEqual(b0, { delayMs: 3_600_000, until: resetAt });
    const b1 = rateLimitBackoff({ limitedCount: 1, baseMs: 2000, resetAt, now: NOW, random: () => 0.5 });
    assert.equal(b1.delayMs, 3_601_000);
    // A reset time already past falls back to the exponential schedule.
    assert.equal(
      rateLimitBackoff({
        limitedCount: 2,
        baseMs: 2000,
        resetAt: new Date(NOW.getTime() - 1),
        now: NOW,
        random: () => 0,
      }).delayMs,
      2000,
    );
  });

  it('rejects nonsense input', () => {
    assert.throws(
      () => rateLimitBackoff({ limitedCount: 0, baseMs: 1, now: NOW, random: Math.random }),
      /limitedCount/,
    );
    assert.throws(
      () => rateLimitBackoff({ limitedCount: 1, baseMs: Number.NaN, now: NOW, random: Math.random }),
      /baseMs/,
    );
  });

  it('seededRandom stays in [0, 1)', () => {
    const r = seededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const x = r();
      assert.ok(x >= 0 && x < 1);
    }
  });
});
