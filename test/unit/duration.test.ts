import { strict as assert } from 'node:assert';
import { formatDuration } from '../../src/core/format';
import { parseDuration } from '../../src/core/plan/duration';

describe('duration: parseDuration', () => {
  const good: [string | number, number][] = [
    ['250ms', 250],
    ['1.5s', 1500],
    ['90s', 90_000],
    ['20m', 1_200_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2h15m30s', 8_130_000],
    ['1m30s500ms', 90_500],
    ['1m 05s', 65_000],
    ['  45s ', 45_000],
    ['.5s', 500],
    ['0', 0],
    ['0s', 0],
    ['90', 90_000],
    ['2.5', 2500],
    [90, 90_000],
    [0.25, 250],
    [0, 0],
  ];
  for (const [input, ms] of good) {
    it(`${JSON.stringify(input)} → ${ms}ms`, () => assert.equal(parseDuration(input), ms));
  }

  const bad: (string | number)[] = [
    '',
    '   ',
    '-5',
    '-1s',
    'abc',
    '5x',
    's',
    'ms',
    '1.s',
    '1..5s',
    '5 s',
    '30m1h',
    '1s1m',
    '1h1h',
    '1H',
    '1d',
    '1e3',
    '0x10',
    'NaN',
    'Infinity',
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ];
  for (const input of bad) {
    it(`${typeof input === 'string' ? JSON.stringify(input) : String(input)} → undefined`, () =>
      assert.equal(parseDuration(input), undefined));
  }
});

describe('duration: formatDuration', () => {
  const cases: [number, string][] = [
    [0, '0ms'],
    [-40, '0ms'],
    [850, '850ms'],
    [999.4, '999ms'],
    [999.6, '1.0s'],
    [4200, '4.2s'],
    [4249, '4.2s'],
    [59_940, '59.9s'],
    [59_960, '1m 00s'],
    [65_000, '1m 05s'],
    [599_000, '9m 59s'],
    [3_599_400, '59m 59s'],
    [3_599_600, '1h 00m'],
    [3_720_000, '1h 02m'],
    [3_779_000, '1h 02m'],
    [90_000_000, '25h 00m'],
  ];
  for (const [ms, text] of cases) it(`${ms} → ${text}`, () => assert.equal(formatDuration(ms), text));

  it('throws on a non-finite value (a bug in the caller)', () => {
    assert.throws(() => formatDuration(Number.NaN), RangeError);
    assert.throws(() => formatDuration(Number.POSITIVE_INFINITY), RangeError);
  });

  it('reads back what it writes at minute precision', () => {
    for (const ms of [65_000, 599_000, 3_599_000]) assert.equal(parseDuration(formatDuration(ms)), ms);
  });
});
