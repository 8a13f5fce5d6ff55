// A claude step's live input channel (agents/liveInput.ts): which commands get it, the prompt as
// the first stream-json user message, and the rule that ends the process once its work is done:
// stdin closes at a `result` only when every message sent was taken (claude echoes each).
import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { LiveInput, liveArgv, userLine } from '../../src/core/agents/liveInput';
import { presetTable } from '../../src/core/agents/presets';

const full = presetTable({ permission: 'full' });
const replay = (text: string) =>
  `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] }, isReplay: true })}\n`;
const RESULT = '{"type":"result","subtype":"success","is_error":false}\n';

function channel(prompt: string): { live: LiveInput; written: () => string[]; ended: () => boolean } {
  const stdin = new PassThrough();
  let text = '';
  stdin.on('data', (d: Buffer) => {
    text += d.toString();
  });
  const live = new LiveInput(prompt);
  live.attach(stdin);
  return { live, written: () => text.split('\n').filter(Boolean), ended: () => stdin.writableEnded };
}

describe('liveArgv', () => {
  it("claude's preset: the prompt leaves argv (and its `--`), --input-format stream-json and --replay-user-messages follow -p", () => {
    const argv = [
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'bypassPermissions',
      '--',
      'do it',
    ];
    assert.deepEqual(liveArgv(full.claude!, { argv }, 'do it'), [
      'claude',
      '-p',
      '--input-format',
      'stream-json',
      '--replay-user-messages',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'bypassPermissions',
    ]);
  });

  it("not for codex, gemini, a stand-in speaking claude's format, nor a command with an input format of its own", () => {
    assert.equal(liveArgv(full.codex!, { argv: ['codex', 'exec', '--json', '--', 'p'] }, 'p'), undefined);
    assert.equal(
      liveArgv(full.gemini!, { argv: ['gemini', '--prompt=p', '--output-format', 'stream-json'] }, 'p'),
      undefined,
    );
    assert.equal(
      liveArgv(full.claude!, { argv: ['node', 'fake.mjs', '-p', 'p', '--output-format', 'stream-json'] }, 'p'),
      undefined,
    );
    assert.equal(
      liveArgv(
        full.claude!,
        { argv: ['claude', '-p', '--input-format', 'text', '--output-format', 'stream-json', '--', 'p'] },
        'p',
      ),
      undefined,
    );
  });
});

describe('LiveInput', () => {
  it('sends the prompt first, then a message said; closes at a result only once claude took every message', () => {
    const { live, written, ended } = channel('FIRST');
    assert.deepEqual(written(), [userLine('FIRST').trimEnd()]);
    live.onStdout(replay('FIRST'));
    assert.equal(live.say('STEER'), true);
    live.onStdout(RESULT); // the first turn's result, the message not yet taken
    assert.equal(ended(), false, 'a message is pending: the channel stays open');
    live.onStdout(replay('STEER').slice(0, 10));
    live.onStdout(replay('STEER').slice(10) + RESULT);
    assert.equal(ended(), true, 'all taken and answered: the process may end');
    assert.equal(live.say('late'), false, 'a message after that goes the stop-and-continue way');
    assert.equal(written().length, 2);
    assert.deepEqual(JSON.parse(written()[1]!).message.content, [{ type: 'text', text: 'STEER' }]);
  });
});
