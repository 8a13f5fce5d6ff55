import { strict as assert } from 'node:assert';
import { OutputBatcher } from '../../src/core/engine/events';

interface Got {
  id: string;
  text: string;
  skippedLines: number | undefined;
}

function batcher(maxChars: number): { b: OutputBatcher; got: Got[] } {
  const got: Got[] = [];
  return {
    b: new OutputBatcher(
      (id, _stream, text, skippedLines) => got.push({ id, text, skippedLines }),
      1_000_000,
      maxChars,
    ),
    got,
  };
}

describe('output batching', () => {
  it('coalesces chunks per step; under the cap nothing is left out', () => {
    const { b, got } = batcher(100);
    b.push('a', 'stdout', 'one\n');
    b.push('b', 'stdout', 'other\n');
    b.push('a', 'stdout', 'two\n');
    b.flush();
    assert.deepEqual(got, [
      { id: 'a', text: 'one\ntwo\n', skippedLines: undefined },
      { id: 'b', text: 'other\n', skippedLines: undefined },
    ]);
  });

  it('past the cap keeps the newest whole lines and counts the rest, also while it accumulates', () => {
    const { b, got } = batcher(100);
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`); // 10 chars each
    for (let i = 0; i < lines.length; i += 7) b.push('a', 'stdout', lines.slice(i, i + 7).join(''));
    b.flush();
    assert.equal(got.length, 1);
    const { text, skippedLines } = got[0]!;
    assert.ok(text.length <= 100, `${text.length} chars`);
    assert.ok(text.startsWith('line '), 'starts at a line');
    assert.ok(text.endsWith('line 0999\n'), 'ends with the newest line');
    assert.equal(skippedLines! + text.split('\n').length - 1, 1000, 'every line shown or counted');
  });

  it('one line longer than the cap is cut inside it, with no line counted', () => {
    const { b, got } = batcher(100);
    b.push('a', 'stdout', 'x'.repeat(150));
    b.flush();
    assert.deepEqual(
      got.map((g) => [g.text.length, g.skippedLines]),
      [[100, 0]],
    );
  });
});
