import { strict as assert } from 'node:assert';
import { WholeChars, wholeCharsEnd } from '../../src/core/exec/wholeChars';

const euro = Buffer.from('€'); // E2 82 AC
const face = Buffer.from('😀'); // F0 9F 98 80

describe('wholeChars', () => {
  it('holds back exactly the incomplete character at the end, of every length', () => {
    assert.equal(wholeCharsEnd(Buffer.from('abc')), 3);
    assert.equal(wholeCharsEnd(Buffer.from([0x61, euro[0]!])), 1);
    assert.equal(wholeCharsEnd(Buffer.from([0x61, euro[0]!, euro[1]!])), 1);
    assert.equal(wholeCharsEnd(Buffer.concat([Buffer.from('a'), euro])), 4);
    assert.equal(wholeCharsEnd(face.subarray(0, 3)), 0);
    assert.equal(wholeCharsEnd(face), 4);
    assert.equal(wholeCharsEnd(Buffer.from([0xc3])), 0);
    assert.equal(wholeCharsEnd(Buffer.alloc(0)), 0);
  });

  it('passes invalid bytes through rather than holding them forever', () => {
    // Continuation bytes with no lead, and a lead followed by too many: nothing to wait for.
    assert.equal(wholeCharsEnd(Buffer.from([0x80, 0x80, 0x80, 0x80])), 4);
    assert.equal(wholeCharsEnd(Buffer.from([0xc3, 0xa9, 0xa9])), 3);
  });

  it('joins a character cut anywhere, whichever stream came between', () => {
    for (const ch of [euro, face])
      for (let cut = 1; cut < ch.length; cut++) {
        const out = new WholeChars();
        const err = new WholeChars();
        const log: Buffer[] = [];
        log.push(out.push(Buffer.concat([Buffer.from('x'), ch.subarray(0, cut)])));
        log.push(err.push(Buffer.concat([Buffer.from('y'), ch.subarray(0, 1)])));
        log.push(out.push(Buffer.concat([ch.subarray(cut), Buffer.from('\n')])));
        log.push(err.push(Buffer.concat([ch.subarray(1), Buffer.from('\n')])));
        assert.equal(out.end(), undefined);
        assert.equal(Buffer.concat(log).toString('utf8'), `xy${ch.toString()}\n${ch.toString()}\n`);
      }
  });

  it('gives up what it holds at the end, so no byte is lost', () => {
    const s = new WholeChars();
    assert.equal(s.push(Buffer.from([0x61, 0xe2, 0x82])).toString('latin1'), 'a');
    assert.deepEqual([...s.end()!], [0xe2, 0x82]);
    assert.equal(s.end(), undefined);
  });
});
