import { strict as assert } from 'node:assert';
import { agentLineRange } from '../../src/core/plan/agentLine';

describe('agentLineRange: the line a step names its agent on', () => {
  const plan = [
    'version: 1', // 0
    'steps:', // 1
    '  draft:', // 2
    '    prompt: |', // 3
    '      agent: not me', // 4 (inside the prompt's text)
    '    agent: claude   ', // 5
    '  review:', // 6
    '    prompt: look', // 7
    '    needs: [draft]', // 8
    'agent: codex', // 9 (the plan's default, not review's)
  ];

  it("finds the step's own agent key, not text inside a value", () => {
    assert.deepEqual(agentLineRange(plan, 2), { start: { line: 5, column: 4 }, end: { line: 5, column: 17 } });
  });

  it('is undefined for a step without its own agent (the default is not its line)', () => {
    assert.equal(agentLineRange(plan, 6), undefined);
    assert.equal(agentLineRange(plan, 99), undefined);
  });
});
