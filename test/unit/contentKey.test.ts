// The content key says whether a step would do the same thing again: what changes it (its command,
// environment, agent, matrix values, a need's content) and what does not (its name, retries,
// timeouts, its place in the file), and that a change upstream reaches everything after it.
import { strict as assert } from 'node:assert';
import { canonicalJson, contentKeys } from '../../src/core/engine/reuse/contentKey';
import type { GraphStep, PlanInfo } from '../../src/core/plan/types';
import { makeGraph, type StepSpec } from '../helpers/graph';

const chain = (b: Partial<GraphStep> = {}, plan: Partial<PlanInfo> = {}) =>
  makeGraph(
    [
      { id: 'a', run: 'echo a' },
      { id: 'b', run: 'echo b', needs: ['a'], ...b },
      { id: 'c', run: 'echo ${{ steps.b.output }}', needs: ['b'] },
    ],
    { plan },
  );

const base = contentKeys(chain());

describe('content key', () => {
  it('is a sha-256 per step, the same for the same plan compiled twice', () => {
    assert.match(base.get('a')!, /^[0-9a-f]{64}$/);
    assert.deepEqual(contentKeys(chain()), base);
    assert.equal(new Set(base.values()).size, 3, 'three different steps, three keys');
  });

  const changes: Array<[string, Partial<GraphStep>, Partial<PlanInfo>?]> = [
    ['its command', { run: 'echo B' }],
    ['its environment', { env: { MODE: 'fast' } }],
    ['its folder', { cwd: 'sub' }],
    ['its write set', { writes: ['out/**'] }],
    ['its check', { check: 'test -f out' }],
    ['its isolation', { isolation: 'worktree' }],
    ['its matrix values', { matrix: { group: 'b', values: { os: 'mac' } } }],
    ['its output file', { output: 'out.txt' }],
    ["the plan's environment", {}, { env: { CI: '1' } }],
    ["the plan's agent context", {}, { context: 'be brief' }],
  ];
  for (const [what, b, plan] of changes) {
    it(`changes with ${what}, and so do its dependents' (not its needs')`, () => {
      const k = contentKeys(chain(b, plan));
      assert.notEqual(k.get('b'), base.get('b'));
      assert.notEqual(k.get('c'), base.get('c'), 'c needs b: its inputs changed');
      if (!plan) assert.equal(k.get('a'), base.get('a'), 'a comes before b: unchanged');
    });
  }

  const same: Array<[string, Partial<GraphStep>]> = [
    ['its name', { name: 'Build the thing' }],
    ['its retries and delay', { retries: 3, retryDelayMs: 5000 }],
    ['its timeouts', { timeoutMs: 60_000, idleTimeoutMs: 5000 }],
    ['its pool and budget', { pool: 'agents', maxCostUsd: 2 }],
    ['continue-on-error and if', { continueOnError: true, if: 'always' }],
    ['its place in the file', { range: { start: { line: 40, column: 2 }, end: { line: 40, column: 3 } } }],
    ['what it reads (locks only)', { reads: ['docs/**'] }],
  ];
  for (const [what, b] of same) {
    it(`does not change with ${what}`, () => {
      assert.deepEqual(contentKeys(chain(b)), base);
    });
  }

  it("an agent step's key follows its agent's command and model, not its pool", () => {
    const agent = (command: string[], pool?: string) => ({
      name: 'bot',
      command,
      env: {},
      context: true,
      format: 'text' as const,
      ...(pool ? { pool } : {}),
    });
    const g = (spec: Partial<StepSpec>, cmd = ['bot', '-p'], pool?: string) =>
      contentKeys(
        makeGraph([{ id: 'p', kind: 'prompt', prompt: 'go', agent: 'bot', ...spec }], {
          agents: { bot: agent(cmd, pool) },
        }),
      ).get('p');
    const k = g({});
    assert.notEqual(g({}, ['bot', '--fast']), k);
    assert.notEqual(g({ model: 'big' }), k);
    assert.equal(g({}, ['bot', '-p'], 'agents'), k);
  });

  it('canonical JSON ignores key order and undefined fields', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } }),
      '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}',
    );
  });
});
