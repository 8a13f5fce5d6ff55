// The engine protocol's schemas: what each end accepts and what it drops.
import { strict as assert } from 'node:assert';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PROTOCOL_VERSION,
  encodeMessage,
  parseClientMessage,
  parseEngineMessage,
  parseResult,
} from '../../src/protocol/engine';
import { LineSplitter } from '../../src/protocol/jsonLines';
import { engineSocketPath, ensurePrivateDir } from '../../src/core/engineSocket';

const line = (o: unknown) => JSON.stringify(o);
const time = '2026-12-02T10:00:00.000Z';
const run = '20261202-100000-abcd';

describe('engine protocol', () => {
  describe('client → engine', () => {
    it('accepts every request type with its fields', () => {
      const good = [
        { type: 'hello', id: 0, protocol: PROTOCOL_VERSION, client: 'test' },
        { type: 'run', id: 1, planFile: 'plans/p.braid.yaml' },
        {
          type: 'run',
          id: 2,
          planFile: '/abs/p.braid.yaml',
          only: ['a', 'b'],
          from: 'c',
          concurrency: 3,
          compile: { agentOverrides: { claude: { command: ['claude', '-p'] } }, defaultIsolation: 'worktree' },
        },
        { type: 'retry', id: 3, runId: run, steps: ['a'] },
        { type: 'retry', id: 8, runId: run, resume: true },
        { type: 'run', id: 11, planFile: 'p', compile: { permission: 'read-only' } },
        { type: 'retry', id: 12, runId: run, compile: { permission: 'full', defaultIsolation: 'shared' } },
        { type: 'budgetDecision', id: 9, runId: run, decision: 'continue' },
        { type: 'budgetDecision', id: 10, runId: run, decision: 'stop' },
        { type: 'cancelRun', id: 4, runId: run },
        { type: 'cancelStep', id: 5, runId: run, stepId: 'a' },
        { type: 'listRuns', id: 6 },
        { type: 'shutdown', id: 7 },
      ];
      for (const m of good) {
        const r = parseClientMessage(line(m));
        assert.ok(r.ok, `${m.type}: ${r.ok ? '' : r.error}`);
        assert.deepEqual(r.message, m);
      }
    });

    it('drops what is not JSON, not a known type, or missing/mistyped fields, with a reason', () => {
      const bad: [string, RegExp][] = [
        ['{"type":"run"', /not JSON/],
        ['42', /expected object|Invalid/i],
        [line({ type: 'frobnicate', id: 1 }), /type/],
        [line({ type: 'run', id: 1 }), /planFile/],
        [line({ type: 'run', id: -1, planFile: 'p' }), /id/],
        [line({ type: 'run', id: 1, planFile: 'p', concurrency: 0 }), /concurrency/],
        [line({ type: 'run', id: 1, planFile: 'p', compile: { defaultIsolation: 'container' } }), /defaultIsolation/],
        // The permission reaches the agents' flags: only the three levels, never a free string.
        [line({ type: 'run', id: 1, planFile: 'p', compile: { permission: 'sudo' } }), /compile\.permission/],
        [line({ type: 'retry', id: 1, runId: run, compile: { permission: 'Full' } }), /compile\.permission/],
        [line({ type: 'cancelStep', id: 1, runId: run }), /stepId/],
        // Run ids end up in paths: nothing that could leave .braid/runs/.
        [line({ type: 'cancelRun', id: 1, runId: '../../etc' }), /runId/],
        [line({ type: 'hello', id: 1, client: 'x' }), /protocol/],
        [line({ type: 'retry', id: 1, runId: run, resume: 'yes' }), /resume/],
        [line({ type: 'budgetDecision', id: 1, runId: run, decision: 'maybe' }), /decision/],
        [line({ type: 'budgetDecision', id: 1, runId: run }), /decision/],
        [line({ type: 'budgetDecision', id: 1, runId: '../x', decision: 'stop' }), /runId/],
      ];
      for (const [text, reason] of bad) {
        const r = parseClientMessage(text);
        assert.equal(r.ok, false, text);
        if (!r.ok) assert.match(r.error, reason, text);
      }
    });
  });

  describe('engine → client', () => {
    it('accepts replies, snapshots, every event kind and run endings', () => {
      const good = [
        { type: 'reply', id: 1, ok: true, result: { runId: run } },
        {
          type: 'reply',
          id: 2,
          ok: false,
          error: 'invalid plan',
          diagnostics: [
            {
              file: 'p',
              range: { start: { line: 0, column: 0 }, end: { line: 0, column: 3 } },
              severity: 'error',
              message: 'm',
              code: 'c',
            },
          ],
        },
        { type: 'snapshot', runs: [] },
        { type: 'event', event: { type: 'run', status: 'started', plan: 'p', steps: 2, time, run } },
        {
          type: 'event',
          event: {
            type: 'step',
            id: 'a',
            status: 'failed',
            attempt: 1,
            exitCode: 3,
            signal: null,
            reason: 'exit',
            time,
            run,
          },
        },
        { type: 'event', event: { type: 'output', id: 'a', stream: 'stderr', text: 'oops\n', time, run } },
        { type: 'event', event: { type: 'lock', id: 'b', waitingFor: 'a', paths: ['src/**'], time, run } },
        { type: 'event', event: { type: 'budget', spentUsd: 0.0246, budgetUsd: 0.02, time, run } },
        { type: 'event', event: { type: 'budget', spentUsd: 0.0246, budgetUsd: 0.02, decision: 'stop', time, run } },
        {
          type: 'event',
          event: {
            type: 'agent',
            id: 'a',
            attempt: 1,
            sessionId: 's',
            turns: 3,
            costUsd: 0.01,
            runCostUsd: 0.02,
            activity: 'Bash: npm test',
            time,
            run,
          },
        },
        {
          type: 'event',
          event: { type: 'run', status: 'failed', plan: 'p', steps: 3, costUsd: 0.0246, reason: 'budget', time, run },
        },
        { type: 'runEnded', runId: run, status: 'failed', steps: { a: 'failed', b: 'skipped' } },
      ];
      for (const m of good) {
        const r = parseEngineMessage(line(m));
        assert.ok(r.ok, `${line(m)}: ${r.ok ? '' : r.error}`);
        assert.deepEqual(r.message, m);
      }
    });

    it("keeps a snapshot record's fields the schema does not name (records grow)", () => {
      const record = {
        version: 1,
        id: run,
        planFile: '/w/p.braid.yaml',
        planName: 'p',
        workspace: '/w',
        status: 'running',
        createdAt: time,
        host: { pid: 1, hostname: 'h' },
        graph: { plan: { file: 'p', name: 'p' }, agents: {}, steps: [{ id: 'a', run: 'echo' }] },
        steps: { a: { id: 'a', status: 'running', attempts: [{ attempt: 1, startedAt: time }], futureField: 7 } },
      };
      const r = parseEngineMessage(line({ type: 'snapshot', runs: [record] }));
      assert.ok(r.ok);
      assert.deepEqual(r.message, { type: 'snapshot', runs: [record] });
    });

    it("carries a held run's pendingBudget on its snapshot record, and checks it", () => {
      const record = {
        version: 1,
        id: run,
        planFile: '/w/p.braid.yaml',
        planName: 'p',
        workspace: '/w',
        status: 'running',
        createdAt: time,
        graph: { steps: [{ id: 'a' }] },
        steps: { a: { id: 'a', status: 'succeeded', attempts: [] } },
        pendingBudget: { spentUsd: 0.0246, budgetUsd: 0.02 },
      };
      const r = parseEngineMessage(line({ type: 'snapshot', runs: [record] }));
      assert.ok(r.ok);
      assert.deepEqual(r.ok && r.message.type === 'snapshot' && r.message.runs[0]!.pendingBudget, {
        spentUsd: 0.0246,
        budgetUsd: 0.02,
      });
      assert.equal(
        parseEngineMessage(
          line({ type: 'snapshot', runs: [{ ...record, pendingBudget: { spentUsd: -1, budgetUsd: 0.02 } }] }),
        ).ok,
        false,
      );
      assert.equal(
        parseEngineMessage(line({ type: 'snapshot', runs: [{ ...record, pendingBudget: { spentUsd: 1 } }] })).ok,
        false,
      );
    });

    it('drops unknown statuses, event kinds and malformed run endings', () => {
      const bad = [
        { type: 'event', event: { type: 'step', id: 'a', status: 'exploded', attempt: 1, time, run } },
        { type: 'event', event: { type: 'telemetry', time, run } },
        { type: 'event', event: { type: 'output', id: 'a', stream: 'stdin', text: '', time, run } },
        { type: 'runEnded', runId: run, status: 'running', steps: {} },
        { type: 'runEnded', runId: run, status: 'succeeded', steps: { a: 'done' } },
        { type: 'reply', id: 1, ok: false },
        { type: 'snapshot', runs: [{ id: run }] },
        { type: 'event', event: { type: 'budget', spentUsd: 0.03, budgetUsd: 0.02, decision: 'later', time, run } },
        { type: 'event', event: { type: 'budget', spentUsd: -0.01, budgetUsd: 0.02, time, run } },
        { type: 'event', event: { type: 'budget', budgetUsd: 0.02, time, run } },
      ];
      for (const m of bad) assert.equal(parseEngineMessage(line(m)).ok, false, line(m));
    });

    it("checks a reply's result against its request", () => {
      assert.ok(parseResult('run', { runId: run }).ok);
      assert.equal(parseResult('run', {}).ok, false);
      assert.equal(parseResult('hello', { protocol: 1, pid: 'x', workspace: '/w' }).ok, false);
      assert.ok(parseResult('listRuns', { active: [], runs: [] }).ok);
      assert.deepEqual(parseResult('budgetDecision', { accepted: false }), { ok: true, message: { accepted: false } });
      assert.equal(parseResult('budgetDecision', {}).ok, false);
      assert.equal(parseResult('budgetDecision', { accepted: 'yes' }).ok, false);
    });
  });

  it('frames one message a line and splits lines across chunks', () => {
    const text = encodeMessage({ type: 'listRuns', id: 1 }) + encodeMessage({ type: 'shutdown', id: 2 });
    const got: string[] = [];
    let overflow = 0;
    const split = new LineSplitter(
      (l) => got.push(l),
      () => overflow++,
      64,
    );
    for (const ch of text) split.push(ch);
    assert.deepEqual(
      got.map((l) => parseClientMessage(l).ok),
      [true, true],
    );
    split.push('x'.repeat(65));
    assert.equal(overflow, 1, 'an endless line is cut off, not buffered');
  });

  describe('socket path', () => {
    const ws = '/home/me/projects/app';
    it('is per workspace, stable, in the runtime dir when there is one', () => {
      const a = engineSocketPath(ws, {
        protocol: PROTOCOL_VERSION,
        platform: 'linux',
        runtimeDir: '/run/user/1000',
        tmpdir: '/tmp',
      });
      assert.match(a, /^\/run\/user\/1000\/braid-[0-9a-f]{16}-v\d+\.sock$/);
      assert.equal(
        engineSocketPath(ws, {
          protocol: PROTOCOL_VERSION,
          platform: 'linux',
          runtimeDir: '/run/user/1000',
          tmpdir: '/tmp',
        }),
        a,
      );
      assert.notEqual(
        engineSocketPath(`${ws}2`, {
          protocol: PROTOCOL_VERSION,
          platform: 'linux',
          runtimeDir: '/run/user/1000',
          tmpdir: '/tmp',
        }),
        a,
      );
      assert.match(
        engineSocketPath(ws, { protocol: PROTOCOL_VERSION, platform: 'darwin', tmpdir: '/var/folders/x/T', uid: 501 }),
        /^\/var\/folders\/x\/T\/braid-501\/braid-[0-9a-f]{16}-v\d+\.sock$/,
        "in the temp folder, inside a folder of the user's own",
      );
    });

    it("stays under sun_path's limit when the folders are deep", () => {
      const deep = '/' + 'd'.repeat(120);
      const p = engineSocketPath(ws, {
        protocol: PROTOCOL_VERSION,
        platform: 'darwin',
        runtimeDir: deep,
        tmpdir: deep,
      });
      assert.match(p, /^\/tmp\/braid-user\/braid-[0-9a-f]{16}-v\d+\.sock$/);
      assert.ok(Buffer.byteLength(p) < 104);
    });

    it('keeps the socket folder private: created 0700, loosened modes tightened, a symlink refused', () => {
      const base = mkdtempSync(join(tmpdir(), 'braid-priv-'));
      try {
        const dir = join(base, 'braid-me');
        ensurePrivateDir(dir, false); // absent and not to be created: nothing to check yet
        assert.equal(existsSync(dir), false);
        ensurePrivateDir(dir, true);
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        chmodSync(dir, 0o777);
        ensurePrivateDir(dir, false);
        assert.equal(statSync(dir).mode & 0o777, 0o700, 'group and other bits dropped');
        // Someone else's folder in /tmp could be a symlink to theirs: never trusted.
        const link = join(base, 'braid-link');
        symlinkSync(dir, link);
        assert.throws(() => ensurePrivateDir(link, false), /not a folder owned by this user/);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    });

    it('is a named pipe on Windows, one for differently cased spellings of a folder', () => {
      const p = engineSocketPath('C:\\Repo', { protocol: PROTOCOL_VERSION, platform: 'win32', tmpdir: 'C:\\Temp' });
      assert.match(p, /^\\\\\.\\pipe\\braid-[0-9a-f]{16}-v\d+$/);
      assert.equal(
        engineSocketPath('c:\\repo', { protocol: PROTOCOL_VERSION, platform: 'win32', tmpdir: 'C:\\Temp' }),
        p,
      );
    });
  });
});
