// Line access to a growing log file must agree with reading the whole file and splitting it,
// whatever the chunk boundaries, line endings and appends in between.
import { strict as assert } from 'node:assert';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogLines } from '../../src/core/engine/records/logLines';
import { rng } from '../../bench/stats';

/** What the whole-file read gives: split on newlines, CR dropped, no empty last line. */
function naive(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

describe('LogLines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'braid-loglines-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('agrees with a whole-file split across random appends (partial lines, CRLF, empty lines, UTF-8)', async () => {
    const r = rng(7);
    const pieces = ['a', 'bb\n', '\n', 'ünï ✓', '\r\n', 'x'.repeat(3000), 'tail'];
    for (let round = 0; round < 20; round++) {
      const file = join(dir, `log${round}`);
      writeFileSync(file, '');
      const log = new LogLines(file);
      let text = '';
      for (let step = 0; step < 30; step++) {
        const add = Array.from(
          { length: 1 + Math.floor(r() * 5) },
          () => pieces[Math.floor(r() * pieces.length)]!,
        ).join('');
        appendFileSync(file, add);
        text += add;
        const n = await log.refresh();
        const want = naive(text);
        assert.equal(n, want.length, `round ${round} step ${step}: count`);
        const a = Math.floor(r() * (n + 1)),
          b = a + Math.floor(r() * (n - a + 1));
        assert.deepEqual(await log.read(a, b), want.slice(a, b), `round ${round} step ${step}: lines ${a}..${b}`);
      }
      assert.deepEqual(await log.read(0, log.count()), naive(text));
    }
  });

  it('indexes a file bigger than its read chunk, and reads the last page without the rest', async () => {
    const file = join(dir, 'big');
    const line = (i: number) => `line ${i} ${'·'.repeat(40)}`;
    writeFileSync(file, Array.from({ length: 60_000 }, (_, i) => line(i)).join('\n') + '\n');
    const log = new LogLines(file);
    assert.equal(await log.refresh(), 60_000);
    assert.deepEqual(await log.read(59_998, 60_000), [line(59_998), line(59_999)]);
    assert.deepEqual(await log.read(0, 1), [line(0)]);
  });

  it('a missing file has no lines; a replaced (shorter) file is indexed anew', async () => {
    const file = join(dir, 'replaced');
    const log = new LogLines(file);
    assert.equal(await log.refresh(), 0);
    writeFileSync(file, 'one\ntwo\nthree\n');
    assert.equal(await log.refresh(), 3);
    writeFileSync(file, 'new\n');
    assert.equal(await log.refresh(), 1);
    assert.deepEqual(await log.read(0, 5), ['new']);
  });
});
