// Issue 32, on GitHub: the plan of injection vectors exported, every job's scripts run under bash
// (test/helpers/actionsEmulator.ts): a value reaches a command that may run it only as a variable
// reference, exactly as locally, so the payloads create nothing while the control steps' code runs.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { exportGithubActions } from '../../src/core/export/githubActions';
import { compilePlan } from '../../src/core/plan/compile';
import { bareOrigin as origin, emulate } from '../helpers/actionsEmulator';
import { filesNamed, VECTORS, vectorPlan } from '../helpers/injectionVectors';
import { PAYLOADS, payloadOutputs, payloadPlan } from '../helpers/valuePayloads';
import { REFUSED, SAFE_OUTPUTS, safeOptionPlan, unsafeOptionPlan } from '../helpers/optionVectors';

describe('export github-actions: values never become code (issue 32)', function () {
  this.timeout(300_000);

  it(`${VECTORS.length} commands that run their prompt: exported jobs create nothing from outputs and matrix values`, () => {
    const r = compilePlan('vectors.braid.yaml', vectorPlan(), { isGit: true });
    assert.ok(r.graph, r.diagnostics.map((d) => d.message).join('; '));
    const yaml = exportGithubActions(r.graph, { planPath: 'vectors.braid.yaml' }).yaml;
    const run = emulate(yaml, { origin: origin() });
    const root = dirname(run.artifacts);
    assert.deepEqual(filesNamed(root, 'pwned'), [], 'a value ran as code');
    // Each exported vector ran its prompt as code: the code written in the plan did.
    assert.deepEqual(
      [...new Set(filesNamed(root, 'ctl-'))],
      VECTORS.map((v) => `ctl-${v.id}`).sort(),
      JSON.stringify(run.logs, null, 1).slice(0, 20_000),
    );
    // Where a shell reads it, the value arrives whole, as data.
    assert.match(run.logs['val-shell']!, /^\$\(touch pwned-shell-out\)$/m);
    assert.match(run.logs['val-timeout']!, /^\$\(touch pwned-timeout-out\)$/m);
  });

  it(`${PAYLOADS.length} payloads through run, setup, check, env and agents, as outputs and matrix values: exported jobs create nothing, each value arrives whole`, () => {
    const r = compilePlan('payloads.braid.yaml', payloadPlan(), { isGit: true });
    assert.ok(r.graph, r.diagnostics.map((d) => d.message).join('; '));
    const run = emulate(exportGithubActions(r.graph, { planPath: 'payloads.braid.yaml' }).yaml, { origin: origin() });
    assert.deepEqual(filesNamed(dirname(run.artifacts), 'pwned'), [], 'a value ran as code');
    for (const [job, result] of Object.entries(run.results))
      if (!job.startsWith('envs-')) assert.equal(result, 'success', `${job}: ${run.logs[job]}`);
    for (const [id, want] of payloadOutputs()) assert.ok(run.logs[id]?.includes(want), `${id}: ${run.logs[id]}`);
  });

  it('a text agent: a value that starts with - reaches its CLI only after --, as --name=… or inside text, in exported jobs too; a bare one is refused before export', () => {
    const refused = compilePlan('bare.braid.yaml', unsafeOptionPlan(), { isGit: true });
    assert.equal(refused.graph, undefined, 'a value where the CLI reads options was exported');
    assert.deepEqual(
      refused.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.message.split(':')[0], d.code]),
      REFUSED,
    );
    const r = compilePlan('options.braid.yaml', safeOptionPlan(), { isGit: true });
    assert.ok(r.graph, r.diagnostics.map((d) => d.message).join('; '));
    const run = emulate(exportGithubActions(r.graph, { planPath: 'options.braid.yaml' }).yaml, { origin: origin() });
    const root = dirname(run.artifacts);
    assert.deepEqual(filesNamed(root, 'pwned'), [], 'a value was read as an option');
    assert.deepEqual([...new Set(filesNamed(root, 'ctl-'))], ['ctl-opt'], JSON.stringify(run.logs).slice(0, 5000));
    const logs = Object.entries(run.logs);
    for (const [id, want] of SAFE_OUTPUTS) {
      const log = run.logs[id] ?? logs.find(([job]) => job.startsWith(`${id}-`))?.[1];
      assert.ok(log?.includes(want), `${id}: ${log}`);
    }
  });
});
