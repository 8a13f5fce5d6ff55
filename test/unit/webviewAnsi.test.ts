import { strict as assert } from 'node:assert';
import { applySgr, color256, exactColors, parseAnsi, stripAnsi, styleClasses } from '../../webview/ansi';

const ESC = '\x1b';

describe('webview ANSI handling', () => {
  it('splits SGR colours and styles into segments', () => {
    assert.deepEqual(parseAnsi(`plain ${ESC}[1;31merror${ESC}[0m: ${ESC}[32mok${ESC}[39m end`), [
      { text: 'plain ', style: {} },
      { text: 'error', style: { bold: true, fg: 1 } },
      { text: ': ', style: {} },
      { text: 'ok', style: { fg: 2 } },
      { text: ' end', style: {} },
    ]);
    assert.deepEqual(parseAnsi(`${ESC}[91;44mx`), [{ text: 'x', style: { fg: 9, bg: 4 } }]);
    assert.deepEqual(parseAnsi(`${ESC}[mx`), [{ text: 'x', style: {} }]);
  });

  it('reads 256-colour and true-colour codes, keeping the 16 palette colours as theme colours', () => {
    assert.deepEqual(applySgr({}, '38;5;1'), { fg: 1 });
    assert.deepEqual(applySgr({}, '38;5;196'), { fg: 'rgb(255,0,0)' });
    assert.deepEqual(applySgr({}, '48;5;244'), { bg: 'rgb(128,128,128)' });
    assert.deepEqual(applySgr({}, '38;2;10;20;30;1'), { fg: 'rgb(10,20,30)', bold: true });
    assert.deepEqual(applySgr({}, '38:2:10:20:30'), { fg: 'rgb(10,20,30)' });
    assert.equal(color256(16), 'rgb(0,0,0)');
    assert.equal(color256(231), 'rgb(255,255,255)');
    assert.equal(color256(232), 'rgb(8,8,8)');
  });

  it('ignores out-of-range and malformed colour codes', () => {
    assert.deepEqual(applySgr({ fg: 3 }, '38;5;300'), { fg: 3 });
    assert.deepEqual(applySgr({}, '38;2;999;0;0'), {});
    assert.deepEqual(applySgr({}, '38;2;1'), {});
    assert.deepEqual(applySgr({ bold: true }, '?25'), { bold: true });
  });

  it('resets attributes one by one', () => {
    let s = applySgr({}, '1;2;3;4;7;31;42');
    assert.deepEqual(s, { bold: true, dim: true, italic: true, underline: true, inverse: true, fg: 1, bg: 2 });
    s = applySgr(s, '22;23;24;27;39;49');
    assert.deepEqual(s, {});
  });

  it('drops every other escape and control character, so output cannot move a cursor or hide text', () => {
    const nasty = `a${ESC}[2J${ESC}[H${ESC}]0;title\x07${ESC}]8;;https://x${ESC}\\link${ESC}]8;;${ESC}\\${ESC}(B${ESC}7\x00\x08\x9b31mb\tc`;
    assert.equal(stripAnsi(nasty), 'alinkb\tc');
    assert.deepEqual(
      parseAnsi(nasty)
        .map((s) => s.text)
        .join(''),
      'alinkb\tc',
    );
    assert.equal(stripAnsi(`${ESC}[31`), '31', 'an unterminated escape loses only its ESC');
  });

  it('shows what a carriage-return progress bar leaves on screen', () => {
    assert.equal(stripAnsi('10%\r50%\r100%'), '100%');
    assert.equal(stripAnsi('done\r'), 'done');
    assert.equal(stripAnsi('crlf line\r\r'), 'crlf line');
  });

  it('keeps markup as text: segments are plain strings for textContent', () => {
    const [seg] = parseAnsi(`${ESC}[31m<img src=x onerror=alert(1)>`);
    assert.equal(seg?.text, '<img src=x onerror=alert(1)>');
  });

  it('maps styles to classes and exact colours, swapping on inverse', () => {
    assert.deepEqual(styleClasses({ fg: 1, bg: 12, bold: true, underline: true }), [
      'ansi-fg-1',
      'ansi-bg-12',
      'ansi-bold',
      'ansi-underline',
    ]);
    assert.deepEqual(styleClasses({ fg: 1, inverse: true }), ['ansi-bg-1', 'ansi-inverse-fg']);
    assert.deepEqual(styleClasses({ inverse: true }), ['ansi-inverse-fg', 'ansi-inverse-bg']);
    assert.deepEqual(exactColors({ fg: 'rgb(1,2,3)', bg: 4 }), { color: 'rgb(1,2,3)' });
    assert.deepEqual(exactColors({ fg: 'rgb(1,2,3)', inverse: true }), { background: 'rgb(1,2,3)' });
  });
});
