import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { createAgentStream } from '../../src/core/agents/streams/createStream';
import type { AgentSummary, ParsedLine } from '../../src/core/agents/streams/types';
import { runProcess } from '../../src/core/exec/process';
import type { AgentDef } from '../../src/core/agents/agentDef';

const FAKE = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
type Format = AgentDef['format'];

const j = (o: unknown): string => JSON.stringify(o);

function parse(format: Format, chunks: readonly string[]): { lines: ParsedLine[]; summary: AgentSummary } {
  const s = createAgentStream(format);
  const lines: ParsedLine[] = [];
  for (const c of chunks) lines.push(...s.push(c));
  lines.push(...s.end());
  return { lines, summary: s.summary };
}

// Every way of cutting `text` in two, plus one character at a time: the result must not depend
// on where the pipe happened to split the output.
function assertChunkingIrrelevant(format: Format, text: string): { lines: ParsedLine[]; summary: AgentSummary } {
  const whole = parse(format, [text]);
  for (let k = 1; k < text.length; k++) {
    assert.deepEqual(
      parse(format, [text.slice(0, k), text.slice(k)]),
      whole,
      `split at ${k}: ${JSON.stringify(text.slice(Math.max(0, k - 10), k + 10))}`,
    );
  }
  assert.deepEqual(parse(format, [...text]), whole, 'one character at a time');
  return whole;
}

const texts = (lines: ParsedLine[], kind?: ParsedLine['kind']): string[] =>
  lines.filter((l) => !kind || l.kind === kind).map((l) => l.text);

const CLAUDE_SESSION = '5e1f6a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b';
const claudeRun =
  [
    j({
      type: 'system',
      subtype: 'init',
      session_id: CLAUDE_SESSION,
      model: 'claude-sonnet-4-5',
      tools: ['Bash', 'Edit'],
      permissionMode: 'acceptEdits',
    }),
    'Warning: no stdin data received in 3s, proceeding without it', // CLI noise on stdout
    j({
      type: 'assistant',
      session_id: CLAUDE_SESSION,
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'I will fix the test.\n\nFirst, run it.' },
          {
            type: 'tool_use',
            id: 't1',
            name: 'Bash',
            input: { command: 'npm test -- --grep "dark\nmode"', description: 'Run the tests' },
          },
        ],
      },
    }),
    j({
      type: 'user',
      session_id: CLAUDE_SESSION,
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [{ type: 'text', text: 'Error: 1 failing' }],
            is_error: true,
          },
        ],
      },
    }),
    j({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 1500,
      error_status: 529,
      session_id: CLAUDE_SESSION,
    }),
    j({
      type: 'assistant',
      session_id: CLAUDE_SESSION,
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 't2',
            name: 'Edit',
            input: { file_path: 'src/theme.ts', old_string: 'a', new_string: 'b' },
          },
        ],
      },
    }),
    j({
      type: 'assistant',
      session_id: CLAUDE_SESSION,
      message: { role: 'assistant', content: [{ type: 'text', text: 'Fixed: the toggle now persists. ✓' }] },
    }),
    j({
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 4,
      result: 'Fixed: the toggle now persists. ✓',
      session_id: CLAUDE_SESSION,
      total_cost_usd: 0.04567,
      usage: { input_tokens: 10, cache_creation_input_tokens: 2000, cache_read_input_tokens: 8000, output_tokens: 321 },
    }),
  ].join('\r\n') + '\r\n';

describe('agent streams: claude stream-json', () => {
  it('gives readable lines, the session, turns, tokens, cost and the final answer, however the output is chunked', () => {
    const { lines, summary } = assertChunkingIrrelevant('claude-stream-json', claudeRun);
    assert.deepEqual(texts(lines), [
      `· session ${CLAUDE_SESSION} · claude-sonnet-4-5`,
      'Warning: no stdin data received in 3s, proceeding without it',
      'I will fix the test.',
      'First, run it.',
      '→ Bash: npm test -- --grep "dark ⏎ mode"',
      '✗ Error: 1 failing',
      '· API error 529, retry 1/10 in 1.5s',
      '→ Edit: src/theme.ts',
      'Fixed: the toggle now persists. ✓',
      '· done · 4 turns · $0.0457',
    ]);
    assert.equal(lines[1]!.kind, 'raw');
    assert.equal(lines[4]!.kind, 'tool');
    assert.deepEqual(summary, {
      errors: [],
      sessionId: CLAUDE_SESSION,
      model: 'claude-sonnet-4-5',
      turns: 4,
      costUsd: 0.04567,
      inputTokens: 10010,
      outputTokens: 321,
      cachedInputTokens: 8000,
      finalText: 'Fixed: the toggle now persists. ✓',
    });
  });

  it("an error result is the step's error, not its answer", () => {
    const { summary, lines } = parse('claude-stream-json', [
      j({
        type: 'result',
        subtype: 'error_max_turns',
        is_error: true,
        num_turns: 10,
        session_id: 's1',
        total_cost_usd: 1.5,
        errors: ['Reached maximum number of turns (10)'],
      }) + '\n',
    ]);
    assert.equal(summary.isError, true);
    assert.equal(summary.finalText, undefined);
    assert.deepEqual(summary.errors, ['Reached maximum number of turns (10)']);
    assert.equal(summary.costUsd, 1.5);
    assert.deepEqual(texts(lines, 'error'), ['✗ Reached maximum number of turns (10)']);
  });

  it('records a rejected rate_limit_event with its reset time, and the API status of the last error', () => {
    const { summary } = parse('claude-stream-json', [
      j({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'allowed_warning', utilization: 0.9 },
        session_id: 's',
      }) + '\n',
      j({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1796310000, rateLimitType: 'five_hour' },
        session_id: 's',
      }) + '\n',
      j({
        type: 'result',
        subtype: 'success',
        is_error: true,
        api_error_status: 429,
        result: 'API Error: 429 rate_limit_error',
        session_id: 's',
        num_turns: 1,
        total_cost_usd: 0,
      }),
    ]);
    assert.deepEqual(summary.rateLimited, { resetAt: new Date(1796310000 * 1000) });
    assert.equal(summary.apiErrorStatus, 429);
    assert.deepEqual(summary.errors, ['API Error: 429 rate_limit_error']);
  });

  it('a run killed before its result keeps its last words as the answer, and the partial line is parsed at end', () => {
    const msg = j({ type: 'assistant', message: { content: [{ type: 'text', text: 'Halfway there.' }] } });
    const s = createAgentStream('claude-stream-json');
    assert.deepEqual(s.push(msg), [], 'no newline yet: nothing complete');
    assert.deepEqual(s.end(), [{ kind: 'text', text: 'Halfway there.' }]);
    assert.equal(s.summary.finalText, 'Halfway there.');
    assert.throws(() => s.push('x'), /after end/);
  });

  it('keeps non-object JSON and broken JSON as raw lines', () => {
    const { lines, summary } = parse('claude-stream-json', ['[1,2]\n{"type":"assistant",\n42\n']);
    assert.deepEqual(lines, [
      { kind: 'raw', text: '[1,2]' },
      { kind: 'raw', text: '{"type":"assistant",' },
      { kind: 'raw', text: '42' },
    ]);
    assert.deepEqual(summary, { errors: [] });
  });
});

const codexRun = [
  j({ type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' }),
  j({ type: 'turn.started' }),
  j({ type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Scanning**' } }),
  j({
    type: 'item.started',
    item: {
      id: 'item_1',
      type: 'command_execution',
      command: 'bash -lc ls',
      aggregated_output: '',
      exit_code: null,
      status: 'in_progress',
    },
  }),
  j({
    type: 'item.updated',
    item: {
      id: 'item_1',
      type: 'command_execution',
      command: 'bash -lc ls',
      aggregated_output: 'a\n',
      exit_code: null,
      status: 'in_progress',
    },
  }),
  j({
    type: 'item.completed',
    item: {
      id: 'item_1',
      type: 'command_execution',
      command: 'bash -lc ls',
      aggregated_output: 'a\nb\n',
      exit_code: 0,
      status: 'completed',
    },
  }),
  j({
    type: 'item.completed',
    item: {
      id: 'item_2',
      type: 'command_execution',
      command: 'bash -lc "npm test"',
      aggregated_output: 'fail',
      exit_code: 1,
      status: 'failed',
    },
  }),
  j({
    type: 'item.completed',
    item: {
      id: 'item_3',
      type: 'file_change',
      changes: [
        { path: 'src/a.ts', kind: 'update' },
        { path: 'src/b.ts', kind: 'add' },
      ],
      status: 'completed',
    },
  }),
  j({
    type: 'item.started',
    item: {
      id: 'item_4',
      type: 'mcp_tool_call',
      server: 'docs',
      tool: 'search',
      arguments: { query: 'dark mode' },
      status: 'in_progress',
    },
  }),
  j({ type: 'item.completed', item: { id: 'item_5', type: 'agent_message', text: 'First draft.' } }),
  j({ type: 'turn.completed', usage: { input_tokens: 5000, cached_input_tokens: 4000, output_tokens: 200 } }),
  j({ type: 'turn.started' }),
  j({ type: 'item.completed', item: { id: 'item_6', type: 'agent_message', text: 'Done: both files updated.' } }),
  j({ type: 'turn.completed', usage: { input_tokens: 1000, cached_input_tokens: 0, output_tokens: 50 } }),
].join('\n');

describe('agent streams: codex exec --json', () => {
  it('gives one line per command and change, the thread id, turns, tokens and the last message as answer', () => {
    const { lines, summary } = assertChunkingIrrelevant('codex-json', codexRun);
    assert.deepEqual(texts(lines), [
      '· thread 0199a213-81c0-7800-8aa1-bbab2a035a53',
      '→ shell: bash -lc ls',
      '→ shell: bash -lc "npm test"',
      '✗ exit 1: bash -lc "npm test"',
      '→ files: update src/a.ts, add src/b.ts',
      '→ docs.search: dark mode',
      'First draft.',
      'Done: both files updated.',
    ]);
    assert.deepEqual(summary, {
      errors: [],
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      turns: 2,
      inputTokens: 6000,
      cachedInputTokens: 4000,
      outputTokens: 250,
      finalText: 'Done: both files updated.',
    });
  });

  it('turn.failed and error events are errors', () => {
    const { summary, lines } = parse('codex-json', [
      `${j({ type: 'thread.started', thread_id: 't' })}\n${j({ type: 'error', message: 'stream error: exceeded retry limit, last status: 429 Too Many Requests' })}\n`,
      j({ type: 'turn.failed', error: { message: 'exceeded retry limit' } }),
    ]);
    assert.equal(summary.isError, true);
    assert.deepEqual(summary.errors, [
      'stream error: exceeded retry limit, last status: 429 Too Many Requests',
      'exceeded retry limit',
    ]);
    assert.equal(texts(lines, 'error').length, 2);
    assert.equal(summary.costUsd, undefined, 'codex reports no cost');
  });
});

const geminiRun =
  [
    j({ type: 'init', timestamp: 't', session_id: 'g-1', model: 'gemini-2.5-pro' }),
    j({ type: 'message', timestamp: 't', role: 'user', content: 'Fix it' }),
    j({ type: 'message', timestamp: 't', role: 'assistant', content: 'Looking at the ', delta: true }),
    j({ type: 'message', timestamp: 't', role: 'assistant', content: 'code.\nReading', delta: true }),
    j({ type: 'message', timestamp: 't', role: 'assistant', content: ' files.', delta: true }),
    j({
      type: 'tool_use',
      timestamp: 't',
      tool_name: 'read_file',
      tool_id: 'r1',
      parameters: { absolute_path: '/w/src/a.ts' },
    }),
    j({ type: 'tool_result', timestamp: 't', tool_id: 'r1', status: 'success', output: '' }),
    j({
      type: 'tool_use',
      timestamp: 't',
      tool_name: 'run_shell_command',
      tool_id: 's1',
      parameters: { command: 'npm test' },
    }),
    j({
      type: 'tool_result',
      timestamp: 't',
      tool_id: 's1',
      status: 'error',
      output: '',
      error: { type: 'TOOL_EXECUTION_ERROR', message: 'exit 1' },
    }),
    j({ type: 'error', timestamp: 't', severity: 'warning', message: 'Loop detected, continuing' }),
    j({ type: 'message', timestamp: 't', role: 'assistant', content: 'All ', delta: true }),
    j({ type: 'message', timestamp: 't', role: 'assistant', content: 'fixed.', delta: true }),
    j({
      type: 'result',
      timestamp: 't',
      status: 'success',
      stats: {
        total_tokens: 900,
        input_tokens: 800,
        output_tokens: 100,
        cached: 300,
        input: 500,
        duration_ms: 2000,
        tool_calls: 2,
        models: {},
      },
    }),
  ].join('\n') + '\n';

describe('agent streams: gemini stream-json', () => {
  it('joins assistant deltas into lines, one line per tool, the answer after the last tool', () => {
    const { lines, summary } = assertChunkingIrrelevant('gemini-json', geminiRun);
    assert.deepEqual(texts(lines), [
      '· session g-1 · gemini-2.5-pro',
      'Looking at the code.',
      'Reading files.',
      '→ read_file: /w/src/a.ts',
      '→ run_shell_command: npm test',
      '✗ run_shell_command: exit 1',
      '· warning: Loop detected, continuing',
      'All fixed.',
      '· done · 800 in / 100 out tokens',
    ]);
    assert.deepEqual(summary, {
      errors: [],
      sessionId: 'g-1',
      model: 'gemini-2.5-pro',
      inputTokens: 800,
      outputTokens: 100,
      cachedInputTokens: 300,
      reasoningTokens: 0,
      models: { 'gemini-2.5-pro': { input: 800, cached: 300, output: 100, reasoning: 0 } },
      finalText: 'All fixed.',
    });
  });

  it('an error event and an error result are errors', () => {
    const { summary } = parse('gemini-json', [
      `${j({ type: 'error', severity: 'error', message: 'Quota exceeded. Please retry in 20s.' })}\n`,
      `${j({ type: 'result', status: 'error', error: { type: 'TerminalQuotaError', message: 'RESOURCE_EXHAUSTED' }, stats: {} })}\n`,
    ]);
    assert.equal(summary.isError, true);
    assert.deepEqual(summary.errors, ['Quota exceeded. Please retry in 20s.', 'RESOURCE_EXHAUSTED']);
  });

  it('reads the single pretty-printed object of --output-format json', () => {
    const out = JSON.stringify(
      {
        session_id: 'g-2',
        response: 'The answer.',
        stats: { models: { 'gemini-2.5-pro': { tokens: { prompt: 40, candidates: 7, cached: 0 } } } },
      },
      null,
      2,
    );
    const { summary } = parse('gemini-json', [out.slice(0, 13), out.slice(13)]);
    assert.equal(summary.finalText, 'The answer.');
    assert.equal(summary.sessionId, 'g-2');
    assert.equal(summary.inputTokens, 40);
    assert.equal(summary.outputTokens, 7);
  });
});

describe('agent streams: text', () => {
  it('passes lines through, JSON-looking ones included, and leaves the answer to the stdout tail', () => {
    const { lines, summary } = assertChunkingIrrelevant('text', 'Aider v0.86\r\n{"not":"an event"}\n\nlast line');
    assert.deepEqual(lines, [
      { kind: 'text', text: 'Aider v0.86' },
      { kind: 'text', text: '{"not":"an event"}' },
      { kind: 'text', text: 'last line' },
    ]);
    assert.deepEqual(summary, { errors: [] });
  });
});

describe('agent streams: the fake agent as a real process', () => {
  const cases: { format: Format; name: string; sessionId?: string; costUsd?: number; tool: string }[] = [
    {
      format: 'claude-stream-json',
      name: 'claude',
      sessionId: '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f',
      costUsd: 0.0123,
      tool: '→ Bash: npm test',
    },
    {
      format: 'codex-json',
      name: 'codex',
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      tool: '→ shell: bash -lc "npm test"',
    },
    {
      format: 'gemini-json',
      name: 'gemini',
      sessionId: 'c2d6a0e4-5f1b-4a7c-8e9d-0b1c2d3e4f5a',
      tool: '→ run_shell_command: npm test',
    },
  ];
  for (const c of cases) {
    it(`parses ${c.name}'s stdout as it streams, lines split across writes`, async () => {
      const stream = createAgentStream(c.format);
      const lines: ParsedLine[] = [];
      let chunks = 0;
      const prompt = c.name === 'codex' ? ['exec', '--json', 'Fix the "toggle"'] : ['-p', 'Fix the "toggle"'];
      const r = await runProcess({
        argv: [process.execPath, FAKE, ...prompt],
        cwd: __dirname,
        env: { PATH: process.env.PATH ?? '', FAKE_AGENT_FORMAT: c.name, FAKE_AGENT_DELAY_MS: '2' },
        onOutput: (s, text) => {
          if (s === 'stdout') {
            chunks++;
            lines.push(...stream.push(text));
          }
        },
      });
      lines.push(...stream.end());
      assert.equal(r.exitCode, 0, r.message);
      assert.ok(chunks > 1, 'the output arrived in several chunks');
      assert.equal(stream.summary.finalText, 'done: Fix the "toggle"');
      assert.equal(stream.summary.sessionId, c.sessionId);
      assert.equal(stream.summary.costUsd, c.costUsd);
      assert.ok(texts(lines).includes(c.tool), texts(lines).join('\n'));
      assert.ok(!texts(lines).some((t) => t.startsWith('{')), 'no raw event in the readable log');
      assert.ok(r.stdoutTail.includes('"type"'), 'the raw stream is still there for the .jsonl');
    });
  }
});
