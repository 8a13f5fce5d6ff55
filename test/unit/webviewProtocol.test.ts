import { strict as assert } from 'node:assert';
import { attemptHeader } from '../../src/core/engine/records/stepLog';
import { ATTEMPT_HEADER, parseHostMessage, parseWebviewMessage, webviewStateSchema } from '../../src/protocol/webview';

const RUN = '20261203-095253-ab12';

describe('webview protocol: messages from the page (untrusted)', () => {
  it('accepts every well-formed message, typed', () => {
    const good: unknown[] = [
      { type: 'ready' },
      { type: 'action', action: 'run-plan' },
      { type: 'action', action: 'retry-failed', runId: RUN },
      { type: 'action', action: 'cancel-run', runId: RUN },
      { type: 'action', action: 'retry', stepId: 'build', runId: RUN },
      { type: 'action', action: 'run-from', stepId: 'research-aider' },
      { type: 'action', action: 'cancel', stepId: 'a_b-c', runId: RUN },
      { type: 'action', action: 'open-worktree', stepId: 'x', runId: RUN },
      { type: 'select', stepId: 'build' },
      { type: 'openLog', stepId: 'build', runId: RUN },
      { type: 'requestLogPage', runId: RUN, stepId: 'build', beforeLine: 0 },
      { type: 'requestLogPage', runId: RUN, stepId: 'build', beforeLine: 123_456 },
      { type: 'expandGroups', groups: [] },
      { type: 'expandGroups', groups: ['research', 'pkg'] },
    ];
    for (const m of good) assert.deepEqual(parseWebviewMessage(m), m, JSON.stringify(m));
    const action = parseWebviewMessage({ type: 'action', action: 'retry', stepId: 'build' });
    assert.ok(action?.type === 'action' && action.stepId === 'build');
  });

  it('rejects malformed messages', () => {
    const bad: unknown[] = [
      undefined,
      null,
      0,
      'ready',
      [],
      {},
      { type: 'nope' },
      { type: 'READY' },
      { type: 'action' },
      { type: 'action', action: 'delete-everything' },
      // step actions must name the step
      { type: 'action', action: 'retry' },
      { type: 'action', action: 'cancel', runId: RUN },
      { type: 'select' },
      { type: 'select', stepId: '' },
      { type: 'select', stepId: 42 },
      { type: 'openLog', stepId: 'a' },
      { type: 'requestLogPage', runId: RUN, stepId: 'a' },
      { type: 'requestLogPage', runId: RUN, stepId: 'a', beforeLine: -1 },
      { type: 'requestLogPage', runId: RUN, stepId: 'a', beforeLine: 1.5 },
      { type: 'requestLogPage', runId: RUN, stepId: 'a', beforeLine: '10' },
      { type: 'requestLogPage', runId: RUN, stepId: 'a', beforeLine: Infinity },
      { type: 'expandGroups' },
      { type: 'expandGroups', groups: 'research' },
      { type: 'expandGroups', groups: ['a b'] },
      { type: 'expandGroups', groups: ['<img>'] },
      { type: 'expandGroups', groups: [], extra: 1 },
    ];
    for (const m of bad) assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m));
  });

  it('rejects hostile ids and extra keys', () => {
    const hostile: unknown[] = [
      { type: 'select', stepId: '../../etc/passwd' },
      { type: 'select', stepId: 'a"]' },
      { type: 'select', stepId: '<img src=x onerror=alert(1)>' },
      { type: 'select', stepId: 'a b' },
      { type: 'select', stepId: 'x'.repeat(513) },
      { type: 'openLog', stepId: 'a', runId: '../other' },
      { type: 'openLog', stepId: 'a', runId: '-rf' },
      { type: 'openLog', stepId: 'a', runId: `a${'b'.repeat(128)}` },
      { type: 'action', action: 'retry', stepId: 'a', runId: 'run/../../x' },
      // unknown keys are dropped as a whole message, not silently stripped
      { type: 'ready', extra: 1 },
      { type: 'select', stepId: 'a', command: 'rm -rf /' },
      { type: 'action', action: 'run-plan', __proto__: { stepId: 'x' }, constructor: 'x' },
      JSON.parse('{"type":"select","stepId":"a","__proto__":{"polluted":true}}'),
    ];
    for (const m of hostile) assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it("names a best-of step's alternative as the engine does (`<step>.alt<i>`), and nothing else with a dot", () => {
    assert.ok(parseWebviewMessage({ type: 'select', stepId: 'fix.alt2' }));
    assert.ok(parseWebviewMessage({ type: 'action', action: 'pick', stepId: 'fix.alt10', runId: 'r1' }));
    assert.ok(parseWebviewMessage({ type: 'expandGroups', groups: ['fix', 'pkg'] }));
    for (const stepId of [
      'fix.',
      'fix.alt',
      'fix.alt123',
      'fix.alt2.alt3',
      '.alt2',
      'fix..',
      'fix.alt2/..',
      'fix.x1',
    ]) {
      assert.equal(parseWebviewMessage({ type: 'select', stepId }), undefined, stepId);
    }
    assert.equal(parseWebviewMessage({ type: 'action', action: 'pick' }), undefined, 'a pick names its alternative');
  });
});

describe('webview protocol: problems in place of the graph', () => {
  it('the page may only pick a problem by its index, within the bound', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'openProblem', index: 3 }), { type: 'openProblem', index: 3 });
    for (const bad of [
      { type: 'openProblem', index: -1 },
      { type: 'openProblem', index: 50 },
      { type: 'openProblem', index: 1.5 },
      { type: 'openProblem', index: 0, line: 3 },
      { type: 'openProblem', file: '/etc/passwd', index: 0 },
    ]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
  });
  it('the host sends located problems and a count of the rest', () => {
    const msg = {
      type: 'problems',
      file: 'plans/x.braid.yaml',
      problems: [{ line: 3, column: 2, severity: 'error', message: 'unknown key "nedds"' }],
      more: 0,
    };
    assert.deepEqual(parseHostMessage(msg), msg);
    assert.equal(parseHostMessage({ ...msg, problems: Array.from({ length: 51 }, () => msg.problems[0]) }), undefined);
    assert.equal(parseHostMessage({ ...msg, problems: [{ ...msg.problems[0], severity: 'fatal' }] }), undefined);
  });
});

describe('webview protocol: messages from the host', () => {
  const node = { stepId: 'a', nodeId: 'n0', name: '<img src=x onerror=alert(1)>', status: 'pending' };

  it('accepts graph, status, log, logPage and restore', () => {
    const good: unknown[] = [
      {
        type: 'graph',
        mermaid: 'flowchart LR\n',
        nodes: [node, { ...node, stepId: 'b', nodeId: 'n1', agent: 'claude', group: 'g' }],
        planName: 'p',
        structureKey: 'k',
      },
      { type: 'graph', mermaid: '', nodes: [], runId: RUN, planName: 'p', structureKey: '' },
      { type: 'status', updates: [{ stepId: 'a', status: 'running', attempt: 2, detail: 'retrying' }] },
      { type: 'status', runId: RUN, updates: [] },
      { type: 'log', runId: RUN, stepId: 'a', lines: ['x', ''], reset: true, startLine: 10, attemptBoundary: 1 },
      { type: 'logPage', runId: RUN, stepId: 'a', beforeLine: 10, startLine: 8, lines: ['a', 'b'] },
      { type: 'restore', state: { selectedStepId: 'a', follow: false } },
      { type: 'restore', state: {} },
    ];
    for (const m of good) assert.deepEqual(parseHostMessage(m), m, JSON.stringify(m));
  });

  it('rejects unknown statuses, node ids that are not ours, and oversized batches', () => {
    const bad: unknown[] = [
      { type: 'graph', mermaid: '', nodes: [{ ...node, status: 'exploded' }], planName: 'p', structureKey: 'k' },
      { type: 'graph', mermaid: '', nodes: [{ ...node, nodeId: 'x"><script>' }], planName: 'p', structureKey: 'k' },
      { type: 'graph', mermaid: '', nodes: [{ ...node, nodeId: 'a' }], planName: 'p', structureKey: 'k' },
      { type: 'graph', mermaid: '', nodes: [] },
      { type: 'status', updates: [{ stepId: 'a', status: 'done' }] },
      { type: 'status', updates: [{ stepId: 'a', status: 'failed', attempt: 0 }] },
      { type: 'log', runId: RUN, stepId: 'a', lines: 'x' },
      { type: 'log', runId: RUN, stepId: 'a', lines: new Array(20_001).fill('') },
      { type: 'log', runId: RUN, stepId: 'a', lines: ['x'.repeat(64 * 1024 + 1)] },
      { type: 'logPage', runId: RUN, stepId: 'a', beforeLine: 1, lines: [] },
      { type: 'restore', state: { selectedStepId: 'a b' } },
      { type: 'ready' },
    ];
    for (const m of bad) assert.equal(parseHostMessage(m), undefined, JSON.stringify(m).slice(0, 200));
  });

  it('keeps the page state schema strict about ids', () => {
    assert.equal(
      webviewStateSchema.safeParse({ selectedStepId: 'a', runId: RUN, follow: true, query: 'x' }).success,
      true,
    );
    assert.equal(webviewStateSchema.safeParse({ selectedStepId: '<b>' }).success, false);
    assert.equal(webviewStateSchema.safeParse(undefined).success, false);
  });

  it('recognises the attempt header the engine writes into step logs', () => {
    const line = attemptHeader(3, 'build', new Date(0)).trimEnd();
    assert.equal(ATTEMPT_HEADER.exec(line)?.[1], '3');
    assert.equal(ATTEMPT_HEADER.exec('attempt 3 · build'), null);
  });
});
