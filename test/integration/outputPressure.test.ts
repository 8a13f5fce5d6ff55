// Output floods cost bounded memory: the step's pipes pause while its log file is behind, and
// `--json` drops output events (counted) while stdout's reader is behind.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { JsonEventWriter } from '../../src/cli/jsonEvents';
import { runProcess } from '../../src/core/exec/process';
import type { EngineEvent } from '../../src/core/engine/types';

const base = { time: '2026-01-01T00:00:00.000Z', run: 'r' };

describe('output backpressure', function () {
  this.timeout(30_000);

  it('a log that does not keep up pauses the step (it blocks on its writes), then gets every byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-pressure-'));
    const held: Array<() => void> = [];
    let bytes = 0;
    let blocked = true;
    const log = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (blocked) held.push(() => cb());
        else cb();
      },
    });
    const run = runProcess({
      argv: ['/bin/sh', '-c', 'head -c 10000000 /dev/zero; touch done'],
      cwd: dir,
      env: { PATH: process.env.PATH! },
      log,
    });
    // Bounded look at a negative: in this second a free-running step writes its 10 MB many times over.
    await new Promise((r) => setTimeout(r, 1000));
    try {
      assert.equal(existsSync(join(dir, 'done')), false, 'the step waits for its log');
      assert.ok(bytes <= 1024 * 1024, `only what the log took was read (${bytes} bytes)`);
    } finally {
      blocked = false;
      for (const cb of held.splice(0)) cb();
    }
    const r = await run;
    assert.equal(r.exitCode, 0);
    assert.equal(bytes, 10_000_000, 'nothing lost');
    rmSync(dir, { recursive: true, force: true });
  });

  it('--json: output events are dropped past the limit and counted; other events always pass', () => {
    const lines: EngineEvent[] = [];
    const out = {
      writableLength: 0,
      write: (s: string) => {
        lines.push(JSON.parse(s) as EngineEvent);
        return true;
      },
    };
    const w = new JsonEventWriter(out, 100);
    const output = (text: string, skippedLines?: number): EngineEvent => ({
      type: 'output',
      id: 'a',
      stream: 'stdout',
      text,
      ...(skippedLines ? { skippedLines } : {}),
      ...base,
    });
    w.write(output('one\n'));
    out.writableLength = 1000; // the reader fell behind
    w.write(output('two\nthree\n'));
    w.write(output('four\n', 5));
    w.write({ type: 'step', id: 'b', status: 'succeeded', attempt: 1, ...base });
    out.writableLength = 0;
    w.write(output('five\n'));
    w.write(output('x\n'));
    out.writableLength = 1000;
    w.write(output('y'));
    w.write({ type: 'step', id: 'a', status: 'succeeded', attempt: 1, ...base });
    assert.equal(w.droppedEvents, 3);
    assert.deepEqual(
      lines.map((e) =>
        e.type === 'output' ? `${e.text.trim()}:${e.skippedLines ?? 0}` : `${e.type}:${'id' in e ? e.id : ''}`,
      ),
      ['one:0', 'step:b', 'five:8', 'x:0', ':1', 'step:a'],
    );
  });
});
