// Runs inside a real VS Code extension host: the extension is installed, activates on its own
// because the workspace holds a plan, and registers every command it declares.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from './helpers';
import { requestScreenshot } from './screenshot';

interface DeclaredCommand {
  command: string;
  title: string;
  category?: string;
}

function braid(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed in this extension host`);
  return ext;
}

describe('extension activation', () => {
  it('runs in a workbench whose kind and remote are known', () => {
    console.log(
      `uiKind=${vscode.UIKind[vscode.env.uiKind]} remoteName=${vscode.env.remoteName ?? '(local)'} appHost=${vscode.env.appHost} version=${vscode.version}`,
    );
    if (process.env.BRAID_TEST_SHIM === '1') {
      // code-server: a web workbench talking to a remote extension host, like Codespaces.
      assert.equal(vscode.env.uiKind, vscode.UIKind.Web);
      assert.ok(vscode.env.remoteName, 'remoteName should be set in code-server');
    } else {
      assert.ok([vscode.UIKind.Desktop, vscode.UIKind.Web].includes(vscode.env.uiKind));
    }
  });

  it('is installed as braid.braid, a workspace extension', () => {
    const ext = braid();
    const pkg = ext.packageJSON as { name: string; publisher: string; extensionKind?: string[] };
    assert.equal(`${pkg.publisher}.${pkg.name}`, EXTENSION_ID);
    assert.deepEqual(pkg.extensionKind, ['workspace']);
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
  });

  it('the test workspace holds a plan file, found through the search service', async () => {
    const plans = await vscode.workspace.findFiles('**/*.braid.{yaml,yml,json}');
    assert.ok(
      plans.map((u) => u.path.split('/').pop()).includes('demo.braid.yaml'),
      plans.map((u) => u.path).join(', '),
    );
  });

  it('activates by itself because the workspace contains a plan', async () => {
    const ext = braid();
    // No ext.activate() here: that would pass even if workspaceContains never fired.
    await waitFor(`${EXTENSION_ID} to activate`, () => ext.isActive);
    const shot = await requestScreenshot('extension-host-activated');
    if (shot) console.log(`screenshot: ${shot}`);
  });

  it('registers every command declared in contributes.commands', async () => {
    const declared = (
      (braid().packageJSON as { contributes?: { commands?: DeclaredCommand[] } }).contributes?.commands ?? []
    ).map((c) => c.command);
    assert.ok(declared.includes('braid.validatePlan'), `declared commands: ${declared.join(', ')}`);
    await waitFor('the extension to activate', () => braid().isActive);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
    // And the other way: no braid command is reachable only by knowing its id (a view's own
    // `braid.steps.*` commands come from VS Code, not from us).
    const undeclared = [...registered].filter(
      (id) => id.startsWith('braid.') && !id.startsWith('braid.steps.') && !declared.includes(id),
    );
    assert.deepEqual(undeclared, [], `registered but not declared: ${undeclared.join(', ')}`);
  });

  it("declares the issue's commands, titled as their ids say, in category Braid", () => {
    const declared = new Map(
      ((braid().packageJSON as { contributes?: { commands?: DeclaredCommand[] } }).contributes?.commands ?? []).map(
        (c) => [c.command, c],
      ),
    );
    const expected: Record<string, string> = {
      'braid.runPlan': 'Run Plan',
      'braid.runStep': 'Run Step',
      'braid.runFrom': 'Run From Here',
      'braid.retryStep': 'Retry Step',
      'braid.retryFailed': 'Retry Failed Steps',
      'braid.cancelRun': 'Cancel Run',
      'braid.cancelStep': 'Cancel Step',
      'braid.showGraph': 'Show Graph',
      'braid.showLog': 'Show Log',
      'braid.validatePlan': 'Validate Plan',
      'braid.newPlan': 'New Plan',
      'braid.cleanRun': 'Clean Up Run',
    };
    for (const [id, title] of Object.entries(expected)) {
      assert.equal(declared.get(id)?.title, title, id);
      assert.equal(declared.get(id)?.category, 'Braid', id);
    }
  });

  it('contributes the Runs view, the plan schema and the braid task type', () => {
    const c = (braid().packageJSON as { contributes: Record<string, unknown> }).contributes as {
      views: Record<string, { id: string }[]>;
      jsonValidation: { url: string }[];
      taskDefinitions: { type: string }[];
    };
    assert.ok(c.views.braid?.some((v) => v.id === 'braid.steps'));
    assert.ok(c.taskDefinitions.some((t) => t.type === 'braid'));
    const schema = JSON.parse(readFileSync(join(braid().extensionPath, c.jsonValidation[0]!.url), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    assert.ok(schema.properties.steps && schema.properties.version, 'the generated plan schema names plan keys');
  });

  it('declares limited support for untrusted workspaces; this one is trusted (trust is off in this run)', function () {
    const caps = (braid().packageJSON as { capabilities?: { untrustedWorkspaces?: { supported: unknown } } })
      .capabilities;
    assert.equal(caps?.untrustedWorkspaces?.supported, 'limited');
    if (process.env.BRAID_TEST_TRUST === '1') this.skip();
    assert.equal(vscode.workspace.isTrusted, true);
  });
});
