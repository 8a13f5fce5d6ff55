import { strict as assert } from 'node:assert';
import { closingLine, keepsTerminal, TerminalTranscript } from '../../src/extension/terminals/terminalPolicy';

describe('step terminals: what stays and how it ends', () => {
  it("keeps failed, conflicted and interrupted steps' terminals, closes the rest", () => {
    const kept = ['succeeded', 'failed', 'conflict', 'canceled', 'skipped', 'interrupted'].filter((s) =>
      keepsTerminal(s, 'failures'),
    );
    assert.deepEqual(kept, ['failed', 'conflict', 'interrupted']);
  });
  it('keeps every terminal of a step that ran when the user asks for all', () => {
    const kept = ['succeeded', 'failed', 'canceled', 'skipped'].filter((s) => keepsTerminal(s, 'all'));
    assert.deepEqual(kept, ['succeeded', 'failed', 'canceled']);
  });
  it("ends with the step's own outcome: its sentence, else its exit code or signal", () => {
    assert.equal(
      closingLine({ status: 'failed', exitCode: 3, message: 'exited with code 3' }),
      '── failed: exited with code 3 ──',
    );
    assert.equal(closingLine({ status: 'failed', exitCode: 3 }), '── failed: exited with code 3 ──');
    assert.equal(closingLine({ status: 'canceled', signal: 'SIGTERM' }), '── canceled: killed by SIGTERM ──');
    assert.equal(
      closingLine({ status: 'succeeded', exitCode: 0, message: undefined }),
      '── succeeded: exited with code 0 ──',
    );
    assert.equal(
      closingLine({ status: 'failed', exitCode: 1, message: 'timed out after 2s' }),
      '── failed: timed out after 2s ──',
    );
  });
  it('keeps the newest output within its bound and says when the start was dropped', () => {
    const t = new TerminalTranscript(10);
    t.add('aaaa');
    t.add('bbbb');
    assert.equal(t.text(), 'aaaabbbb');
    t.add('cccc');
    assert.match(t.text(), /earlier output left out/);
    assert.ok(t.text().endsWith('bbbbcccc'));
  });
});
