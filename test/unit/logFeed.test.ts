import { strict as assert } from 'node:assert';
import { LOG_TAIL, LogFeed } from '../../src/extension/graph/logFeed';

interface Sent {
  lines: string[];
  startLine: number | undefined;
}

function feed(intervalMs = 1_000_000): { f: LogFeed; sent: Sent[] } {
  const sent: Sent[] = [];
  const f = new LogFeed((lines, startLine) => sent.push({ lines, startLine }), intervalMs);
  return { f, sent };
}

const lines = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `line ${from + i}`);

describe("the graph panel's log feed", () => {
  it('sends a line only once its newline arrived, however the output was cut', () => {
    const { f, sent } = feed();
    f.output('a', 'one\r\ntw');
    f.output('a', 'o\nthr');
    f.flush();
    f.output('a', 'ee\n');
    f.flush();
    f.dispose();
    assert.deepEqual(sent, [
      { lines: ['one', 'two'], startLine: undefined },
      { lines: ['three'], startLine: undefined },
    ]);
  });

  it('marks the lines the step wrote to stderr, by their index in the batch', () => {
    const stderr: number[][] = [];
    const f = new LogFeed((_lines, _start, err) => stderr.push(err), 1_000_000);
    f.output('a', 'out 1\n');
    f.output('a', 'err 1\nerr 2\n', undefined, true);
    f.output('a', 'out 2\n');
    f.flush();
    f.output('a', 'out 3\n');
    f.flush();
    f.dispose();
    assert.deepEqual(stderr, [[1, 2], []]);
  });

  it('batches: everything within one interval goes in one message', async () => {
    const sent: Sent[] = [];
    let f!: LogFeed;
    // The first delivery, when the feed's own timer fires (no fixed sleep here).
    const delivered = new Promise<void>((done) => {
      f = new LogFeed((lines, startLine) => {
        sent.push({ lines, startLine });
        done();
      }, 20);
    });
    for (let i = 0; i < 50; i++) f.output('a', `l${i}\n`);
    assert.equal(sent.length, 0, 'nothing before the interval ends');
    await delivered;
    f.dispose();
    assert.equal(sent.length, 1);
    assert.deepEqual(
      sent[0]!.lines,
      Array.from({ length: 50 }, (_, i) => `l${i}`),
    );
  });

  it('past the tail, keeps the newest lines and tells the page where they start', () => {
    const { f, sent } = feed();
    f.output('a', `${lines(0, 10).join('\n')}\n`);
    f.flush();
    f.output('a', `${lines(10, LOG_TAIL + 500).join('\n')}\n`);
    f.flush();
    f.output('a', 'next\n');
    f.flush();
    f.dispose();
    assert.equal(sent[1]!.lines.length, LOG_TAIL);
    assert.equal(sent[1]!.lines[0], 'line 510', 'the 500 oldest of the burst were dropped');
    assert.equal(sent[1]!.startLine, 510, 'line number in the file of the first line sent');
    assert.deepEqual(sent[2], { lines: ['next'], startLine: undefined }, 'no gap after it: no startLine');
  });

  it('counts lines posted outside the batches (an attempt header) in later gaps', () => {
    const { f, sent } = feed();
    f.counted(1);
    f.output('a', `${lines(0, LOG_TAIL + 1).join('\n')}\n`);
    f.flush();
    f.dispose();
    assert.equal(sent[0]!.startLine, 2, 'header (line 0) + 1 dropped line');
  });

  it('lines the engine left out (a capped event) become a gap, with what was pending', () => {
    const { f, sent } = feed();
    f.output('a', 'shown\npending 1\npending 2\npart');
    f.flush();
    f.output('a', 'more\n');
    f.output('a', 'tail 1\ntail 2\n', 500); // 500 lines between "partmore" and "tail 1" were left out
    f.flush();
    f.dispose();
    assert.deepEqual(sent[0], { lines: ['shown', 'pending 1', 'pending 2'], startLine: undefined });
    assert.deepEqual(
      sent[1],
      { lines: ['tail 1', 'tail 2'], startLine: 3 + 1 + 500 },
      '"partmore" and the 500 are paged in from the file',
    );
  });

  it('holds output while a tail is read, then drops it: the tail has it', () => {
    const { f, sent } = feed();
    f.output('a', 'before the tail\npart');
    f.hold();
    f.output('a', 'ial\nduring\n');
    f.flush();
    assert.equal(sent.length, 0, 'nothing reaches the page before the tail');
    f.reset('a', 40);
    f.release();
    f.output('a', 'after\n');
    f.flush();
    f.dispose();
    assert.deepEqual(
      sent,
      [{ lines: ['after'], startLine: undefined }],
      'the held lines and the old partial line are gone',
    );
    f.output('a', `${lines(0, LOG_TAIL + 3).join('\n')}\n`);
    f.flush();
    assert.equal(sent[1]!.startLine, 41 + 3, 'numbering continues from the tail\'s 40 lines and "after"');
  });
});
