import { strict as assert } from 'node:assert';
import { PRESETS } from '../../src/core/agents/presets';
import { TERMINAL } from '../../src/core/status';

describe('core contract', () => {
  it('every preset names its command and uses the prompt template exactly once', () => {
    for (const [name, def] of Object.entries(PRESETS)) {
      assert.equal(def.name, name);
      assert.equal(def.command.filter((a) => a.includes('${{ prompt }}')).length, 1, name);
    }
  });
  it('pending, waiting and running are not terminal', () => {
    for (const s of ['pending', 'waiting', 'running'] as const) assert.equal(TERMINAL.has(s), false);
  });
});
