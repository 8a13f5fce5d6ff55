import { strict as assert } from 'node:assert';
import { AlternativeLines } from '../../src/extension/terminals/alternativeLines';

const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

describe("a best-of step's terminal: each alternative's lines marked", () => {
  it('marks every line an alternative starts, across chunks, and not the rest of a line it continues', () => {
    const m = new AlternativeLines();
    assert.equal(plain(m.mark(1, 'one\ntwo\n')), '[1] one\n[1] two\n');
    assert.equal(plain(m.mark(2, 'thr')), '[2] thr');
    assert.equal(plain(m.mark(1, 'four\n')), '[1] four\n', 'alternative 1 was at a line start');
    assert.equal(plain(m.mark(2, 'ee\nfive\n')), 'ee\n[2] five\n', 'alternative 2 continues its own line');
    assert.equal(m.mark(3, ''), '');
  });

  it('dims the mark so the output itself stands out', () => {
    assert.equal(new AlternativeLines().mark(2, 'x\n'), '\x1b[2m[2]\x1b[0m x\n');
  });
});
