// Runs against Braid installed from its .vsix (test/vscode/vsix/run.ts installs it into a fresh
// extensions folder; the development extension is an empty host): the packaged bundles alone
// activate, start their own engine and run a shell plan.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../../src/extension/common/commandIds';
import { braidApi, EXTENSION_ID, runRecord, statusesOf, waitFor, writePlan } from '../../suite/helpers';
import { plan } from '../../../helpers/planText';

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`$${name} is not set: run this suite through test/vscode/vsix/run.ts`);
  return v;
}

/** argv of every process whose command line mentions `needle` (Linux /proc). */
function processesWith(needle: string): string[][] {
  const found: string[][] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.includes(needle))) found.push(argv);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

describe('Braid installed from its .vsix', function () {
  this.timeout(90_000);

  it('is braid.braid from the extensions folder, not the project, and activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    const extensionsDir = env('BRAID_VSIX_EXTENSIONS_DIR');
    assert.ok(ext.extensionPath.startsWith(extensionsDir + sep), `${ext.extensionPath} is not under ${extensionsDir}`);
    assert.ok(!ext.extensionPath.startsWith(env('BRAID_PROJECT_ROOT') + sep), 'not loaded from the project');
    assert.equal((ext.packageJSON as { version: string }).version, env('BRAID_VSIX_VERSION'));
    // What the package leaves out really is absent from the installed copy.
    for (const absent of ['src', 'test', 'node_modules', 'tsconfig.json', join('out', 'extension.js.map')]) {
      assert.ok(!existsSync(join(ext.extensionPath, absent)), `${absent} should not be installed`);
    }
    await waitFor(`${EXTENSION_ID} to activate by itself`, () => ext.isActive);
  });

  it('runs a shell plan with braid.runPlan: a succeeded summary, a matching run record, an engine from the installed bundle', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await braidApi();
    const uri = await writePlan(
      'packaged',
      plan`
        version: 1
        name: Packaged
        steps:
          one:
            run: echo one
          two:
            run: echo two
          both:
            needs: [one, two]
            run: echo "after \${{ steps.one.output }}"
        `,
    );
    const summary = await vscode.commands.executeCommand<RunSummary | undefined>('braid.runPlan', uri);
    assert.ok(summary, 'braid.runPlan resolved undefined');
    assert.equal(summary.status, 'succeeded', JSON.stringify(summary.steps));
    assert.deepEqual(summary.steps, { one: 'succeeded', two: 'succeeded', both: 'succeeded' });
    const record = runRecord(summary.runId);
    assert.equal(record.status, 'succeeded');
    assert.deepEqual(statusesOf(record), summary.steps);
    const engines = processesWith(join(ext.extensionPath, 'out', 'cli.js')).filter((argv) => argv.includes('serve'));
    assert.equal(engines.length, 1, `one engine, run from the installed cli.js: ${JSON.stringify(engines)}`);
  });
});
