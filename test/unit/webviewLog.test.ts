import { strict as assert } from 'node:assert';
import { LogModel, MAX_LINE_CHARS } from '../../webview/logModel';
import { RingBuffer } from '../../webview/ringBuffer';
import { atBottom, bottomScrollTop, visibleWindow } from '../../webview/virtualWindow';

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('webview ring buffer', () => {
  it('keeps the newest items, numbered absolutely', () => {
    const b = new RingBuffer<number>(3);
    assert.equal(b.push(0, 1), 0);
    assert.deepEqual([b.start, b.end, b.size], [0, 2, 2]);
    assert.equal(b.push(2, 3, 4), 2);
    assert.deepEqual([b.start, b.end, b.size], [2, 5, 3]);
    assert.deepEqual(b.slice(0, 10), [2, 3, 4]);
    assert.equal(b.at(1), undefined);
    assert.equal(b.at(4), 4);
    assert.equal(b.at(5), undefined);
    assert.equal(b.at(2.5), undefined);
  });

  it('stays bounded however much is pushed, in one batch or many', () => {
    const one = new RingBuffer<number>(100);
    one.push(...range(0, 10_000));
    const many = new RingBuffer<number>(100);
    for (const n of range(0, 10_000)) many.push(n);
    for (const b of [one, many]) {
      assert.equal(b.size, 100);
      assert.deepEqual(b.slice(b.start, b.end), range(9_900, 10_000));
    }
  });

  it('prepends older items and drops the newest past capacity', () => {
    const b = new RingBuffer<number>(4);
    b.clear(10);
    b.push(10, 11, 12);
    assert.equal(b.unshift(8, 9), 1);
    assert.deepEqual([b.start, b.end], [8, 12]);
    assert.deepEqual(b.slice(0, 100), [8, 9, 10, 11]);
    assert.throws(() => new RingBuffer<number>(1).unshift(1), /before item 0/);
  });

  it('wraps around its storage correctly in both directions', () => {
    const b = new RingBuffer<number>(5);
    b.clear(100);
    for (let i = 0; i < 7; i++) b.push(100 + i); // head has wrapped
    b.unshift(99, 100, 101); // back over the wrap, dropping the newest three
    assert.deepEqual(b.slice(0, 1000), [99, 100, 101, 102, 103]);
    assert.throws(() => new RingBuffer(0), /positive integer, got 0/);
  });
});

describe('webview log model', () => {
  it('streams batches, marks attempt headers, and cuts huge lines', () => {
    const m = new LogModel('r', 's', 100);
    m.reset(['──── attempt 1 · s · 2026-12-03T00:00:00.000Z ────', 'a'], 0);
    m.append(['b', 'x'.repeat(MAX_LINE_CHARS + 10)]);
    m.append(['retrying', 'c'], undefined, 2);
    const lines = m.buffer.slice(0, 100);
    assert.deepEqual(
      lines.map((l) => l.attempt),
      [1, undefined, undefined, undefined, 2, undefined],
    );
    assert.ok(lines[3]?.text.endsWith('… (10 more characters)'));
    assert.equal(m.knownLines, 6);
    assert.equal(m.hasOlder, false);
    assert.equal(m.olderPageRequest(), undefined);
  });

  it('keeps which live lines were stderr (and not for lines a batch repeats)', () => {
    const m = new LogModel('r', 's', 100);
    m.reset(['0', '1'], 0);
    m.append(['1', 'oops', '3'], 1, undefined, [0, 1]);
    assert.deepEqual(
      m.buffer.slice(0, 100).map((l) => l.stderr === true),
      [false, false, true, false],
    );
  });

  it('does not double lines a batch repeats, and jumps over a gap', () => {
    const m = new LogModel('r', 's', 100);
    m.reset(['0', '1', '2']);
    m.append(['1', '2', '3'], 1);
    assert.deepEqual(
      m.buffer.slice(0, 10).map((l) => l.text),
      ['0', '1', '2', '3'],
    );
    m.append(['10'], 10);
    assert.deepEqual([m.buffer.start, m.buffer.size, m.knownLines], [10, 1, 11]);
    assert.equal(m.hasOlder, true);
  });

  it('asks once for the page before its oldest line, and takes only the matching reply', () => {
    const m = new LogModel('r', 's', 100);
    m.reset(range(50, 60).map(String), 50);
    assert.equal(m.olderPageRequest(), 50);
    assert.equal(m.olderPageRequest(), undefined, 'one request in flight');
    assert.equal(m.applyPage(40, 49, range(40, 49).map(String)), 0, 'stale reply ignored');
    assert.equal(
      m.applyPage(40, 50, range(40, 49).map(String)),
      0,
      'a reply that does not end at beforeLine is ignored',
    );
    assert.equal(m.olderPageRequest(), 50);
    assert.equal(m.applyPage(40, 50, range(40, 50).map(String)), 10);
    assert.deepEqual(
      m.buffer.slice(0, 100).map((l) => Number(l.text)),
      range(40, 60),
    );
    assert.equal(m.olderPageRequest(), 40);
  });

  it('detaches from the tail when paging pushes it out, and re-attaches on follow', () => {
    const m = new LogModel('r', 's', 10);
    m.reset(range(100, 110).map(String), 100);
    assert.equal(m.olderPageRequest(), 100);
    m.applyPage(95, 100, range(95, 100).map(String));
    assert.equal(m.detached, true);
    assert.deepEqual(
      m.buffer.slice(0, 1000).map((l) => Number(l.text)),
      range(95, 105),
    );
    // live output while detached is counted, not held
    m.append(['110', '111']);
    assert.equal(m.knownLines, 112);
    assert.equal(m.buffer.end, 105);
    // following again: empty, ask for the page ending at the newest line, live lines land after it
    assert.equal(m.reattach(), 112);
    m.append(['112']);
    assert.equal(m.applyPage(103, 112, range(103, 112).map(String)), 9);
    assert.deepEqual(
      m.buffer.slice(0, 1000).map((l) => Number(l.text)),
      range(103, 113),
    );
    assert.equal(m.detached, false);
    assert.equal(m.reattach(), undefined);
  });
});

describe('webview virtual window', () => {
  it('renders only the lines in view plus the overscan', () => {
    const w = visibleWindow({ total: 1_000_000, lineHeight: 20, scrollTop: 200_000, viewportHeight: 400, overscan: 5 });
    assert.deepEqual(w, { first: 9_995, last: 10_026, offsetTop: 199_900, totalHeight: 20_000_000 });
    assert.ok(w.last - w.first < 40);
  });

  it('clamps at both ends and on an empty log', () => {
    assert.deepEqual(visibleWindow({ total: 10, lineHeight: 20, scrollTop: -50, viewportHeight: 100, overscan: 2 }), {
      first: 0,
      last: 8,
      offsetTop: 0,
      totalHeight: 200,
    });
    assert.deepEqual(visibleWindow({ total: 10, lineHeight: 20, scrollTop: 9_999, viewportHeight: 100, overscan: 2 }), {
      first: 3,
      last: 10,
      offsetTop: 60,
      totalHeight: 200,
    });
    assert.deepEqual(visibleWindow({ total: 0, lineHeight: 20, scrollTop: 0, viewportHeight: 100 }), {
      first: 0,
      last: 0,
      offsetTop: 0,
      totalHeight: 0,
    });
    assert.throws(
      () => visibleWindow({ total: 1, lineHeight: 0, scrollTop: 0, viewportHeight: 1 }),
      /lineHeight must be positive, got 0/,
    );
  });

  it('knows where the bottom is, within half a line', () => {
    assert.equal(bottomScrollTop(100, 20, 400), 1_600);
    assert.equal(bottomScrollTop(5, 20, 400), 0);
    assert.equal(atBottom(1_600, 100, 20, 400), true);
    assert.equal(atBottom(1_591, 100, 20, 400), true);
    assert.equal(atBottom(1_589, 100, 20, 400), false);
  });
});

describe('log model: a message bigger than the buffer', () => {
  it('keeps the newest lines, numbered as in the file, the same whether sent at once or line by line', () => {
    const lines = range(0, 25).map((n) => `line ${n}`);
    const once = new LogModel('r', 's', 10);
    once.reset(['first'], 0);
    once.append(lines, 1);
    const each = new LogModel('r', 's', 10);
    each.reset(['first'], 0);
    lines.forEach((l, i) => each.append([l], 1 + i));
    for (const m of [once, each]) {
      assert.deepEqual([m.buffer.start, m.buffer.end, m.knownLines], [16, 26, 26]);
      assert.deepEqual(
        m.buffer.slice(0, 100).map((l) => l.text),
        lines.slice(15),
      );
      assert.equal(m.hasOlder, true, 'the lines it skipped can be paged in');
    }
  });
});
