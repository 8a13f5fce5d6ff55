// Braid's MCP server offered to agent mode, in the real extension host: the runtime check of
// vscode.lm.registerMcpServerDefinitionProvider (stable from VS Code 1.101; code-server 4.100.3 is
// VS Code 1.100, which lacks it), and the server definition the provider hands VS Code started as
// VS Code would start it, then spoken to with the official MCP SDK's client.
import { strict as assert } from 'node:assert';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import {
  atLeast,
  MCP_PROVIDER_ID,
  registerMcpServers,
  type McpVscodeApi,
} from '../../../src/extension/engine/mcpServers';
import { requestScreenshot } from './screenshot';
import { EXTENSION_ID, braidApi, waitFor, workspaceRoot, writePlan } from './helpers';

/** A log channel that keeps its lines. */
function lines(): vscode.LogOutputChannel & { readonly said: string[] } {
  const said: string[] = [];
  const keep = (m: string) => {
    said.push(m);
  };
  return {
    said,
    info: keep,
    warn: keep,
    error: keep,
    debug: keep,
    trace: keep,
  } as unknown as vscode.LogOutputChannel & { said: string[] };
}

describe("Braid's MCP server in VS Code", function () {
  this.timeout(60_000);
  const ext = () => vscode.extensions.getExtension(EXTENSION_ID)!;
  const cliPath = () => join(ext().extensionPath, 'out', 'cli.js');
  before(async () => {
    await braidApi();
  });

  it('declares its provider in package.json under the id it registers', () => {
    const pkg = ext().packageJSON as {
      contributes: { mcpServerDefinitionProviders?: { id: string; label: string }[] };
    };
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: MCP_PROVIDER_ID, label: 'Braid' }]);
  });

  it('checks at run time that the API exists, and says so in the log where it does not', () => {
    const log = lines();
    const stable = atLeast(vscode.version, 1, 101);
    const d = registerMcpServers({ cliPath: cliPath(), roots: async () => [workspaceRoot()], version: '0.1.0', log });
    try {
      if (stable) assert.deepEqual(log.said, []);
      // code-server 4.100.3 (VS Code 1.100) has a proposed registerMcpServerDefinitionProvider that throws
      // on the stable contribution: without the check, activation failed there.
      else
        assert.match(
          log.said.join('\n'),
          new RegExp(
            `VS Code ${vscode.version.replace(/\./g, '\\.')} is older than 1\\.101, where vscode\\.lm\\.registerMcpServerDefinitionProvider became stable`,
          ),
        );
      assert.ok(ext().isActive);
    } finally {
      d.dispose();
    }
  });

  it("offers one stdio server for the workspace, which starts as VS Code would start it and serves Braid's tools", async () => {
    let provider: any;
    class Definition {
      cwd?: vscode.Uri;
      constructor(
        readonly label: string,
        public command: string,
        public args: string[] = [],
        public env: Record<string, string | number | null> = {},
        readonly version?: string,
      ) {}
    }
    const api: McpVscodeApi = {
      lm: {
        registerMcpServerDefinitionProvider: (id, p) => {
          assert.equal(id, MCP_PROVIDER_ID);
          provider = p;
          return new vscode.Disposable(() => undefined);
        },
      },
      McpStdioServerDefinition: Definition,
    };
    const d = registerMcpServers({
      cliPath: cliPath(),
      roots: async () => [workspaceRoot()],
      version: '0.1.0',
      log: lines(),
      api,
    });
    let client: Client | undefined;
    try {
      const defs = (await provider.provideMcpServerDefinitions(
        new vscode.CancellationTokenSource().token,
      )) as Definition[];
      assert.equal(defs.length, 1);
      const def = defs[0]!;
      assert.deepEqual(
        [def.label, def.args.slice(1), def.cwd?.fsPath],
        ['Braid', ['mcp', '--workspace', workspaceRoot()], workspaceRoot()],
      );
      // VS Code starts it with the extension host's environment overlaid with the definition's.
      const env = { ...process.env, ...def.env } as Record<string, string>;
      client = new Client({ name: 'vscode-test', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: def.command, args: def.args, env, cwd: def.cwd!.fsPath }),
      );
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'run_plan'),
        tools.map((t) => t.name).join(', '),
      );
      const r = await client.callTool({ name: 'validate_plan', arguments: { file: 'demo.braid.yaml' } });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      assert.equal((r.structuredContent as { valid: boolean }).valid, true, JSON.stringify(r.structuredContent));
    } finally {
      await client?.close();
      d.dispose();
    }
  });

  it('a run an agent starts through braid mcp shows live in the runs model, this window having started nothing', async () => {
    const api = await braidApi();
    const root = workspaceRoot();
    const plan = await writePlan(
      'mcp-live',
      'version: 1\nsteps:\n  wait:\n    timeout: 30s\n    run: until [ -f plans/mcp-live.go ]; do sleep 0.05; done\n',
    );
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath(), 'mcp', '--workspace', root],
        env: process.env as Record<string, string>,
        cwd: root,
      }),
    );
    try {
      const r = await client.callTool({
        name: 'run_plan',
        arguments: { file: vscode.workspace.asRelativePath(plan, false) },
      });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      const runId = (r.structuredContent as { run: string }).run;
      await waitFor(
        'the run running in the runs model',
        () => api.runs.get(runId)?.steps.get('wait')?.status === 'running',
      );
      await vscode.commands.executeCommand('workbench.view.extension.braid');
      const shot = await requestScreenshot('mcp-run-live');
      if (shot) console.log(`screenshot: ${shot}`);
      await writeFile(join(root, 'plans', 'mcp-live.go'), '');
      await waitFor('the run ended in the runs model', () => api.runs.get(runId)?.status === 'succeeded');
      assert.equal(api.runs.get(runId)!.steps.get('wait')!.status, 'succeeded');
    } finally {
      await client.close();
    }
  });
});
