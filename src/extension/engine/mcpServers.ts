// Offers `braid mcp` (one server a workspace root) to Copilot's agent mode and any other MCP client
// inside VS Code, through `vscode.lm.registerMcpServerDefinitionProvider`: stable from VS Code 1.101,
// newer than this extension's engine (^1.100) and its @types/vscode, so the API is looked up at run
// time and, where it is missing, nothing is offered (a line in the log says why). In an untrusted
// workspace no server is offered: its tools run plans.
import { basename } from 'node:path';
import * as vscode from 'vscode';

/** The id package.json's `contributes.mcpServerDefinitionProviders` declares. */
export const MCP_PROVIDER_ID = 'braid.mcpServers';

/** VS Code ≥ 1.101's McpStdioServerDefinition, as far as Braid uses it. */
interface StdioDefinition {
  readonly label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  cwd?: vscode.Uri;
}
type StdioDefinitionCtor = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string | number | null>,
  version?: string,
) => StdioDefinition;
interface McpProvider {
  readonly onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): Promise<StdioDefinition[]>;
}
/** The part of the `vscode` module this needs; absent members on VS Code before 1.101. */
export interface McpVscodeApi {
  readonly lm?: { registerMcpServerDefinitionProvider?: (id: string, provider: McpProvider) => vscode.Disposable };
  readonly McpStdioServerDefinition?: StdioDefinitionCtor;
}

export interface McpServersDeps {
  /** The CLI bundle (`out/cli.js`) that serves `braid mcp`. */
  readonly cliPath: string;
  /** Where runs of the open folders are recorded: each folder's git root, else the folder. */
  readonly roots: () => Promise<string[]>;
  readonly version: string;
  readonly log: vscode.LogOutputChannel;
  /** The `vscode` module (tests pass one with the API where the running VS Code lacks it). */
  readonly api?: McpVscodeApi;
}

/** Registers the provider where the API exists; a no-op Disposable elsewhere. */
export function registerMcpServers(deps: McpServersDeps): vscode.Disposable {
  const api = deps.api ?? (vscode as unknown as McpVscodeApi);
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  const unavailable = (why: string): vscode.Disposable => {
    deps.log.info(
      `Braid's MCP server is not offered to agent mode: ${why}; \`braid mcp\` works as a server you configure`,
    );
    return new vscode.Disposable(() => undefined);
  };
  // VS Code 1.100 has a proposed version of the call, which refuses the stable contribution and would fail activation.
  if (!deps.api && !atLeast(vscode.version, 1, 101))
    return unavailable(
      `VS Code ${vscode.version} is older than 1.101, where vscode.lm.registerMcpServerDefinitionProvider became stable`,
    );
  if (typeof register !== 'function' || typeof Definition !== 'function')
    return unavailable(`VS Code ${vscode.version} has no vscode.lm.registerMcpServerDefinitionProvider`);
  const changed = new vscode.EventEmitter<void>();
  const provider: McpProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    async provideMcpServerDefinitions() {
      if (!vscode.workspace.isTrusted) return [];
      const roots = await deps.roots();
      return roots.map((root) => {
        const label = roots.length > 1 ? `Braid (${basename(root)})` : 'Braid';
        // The editor's own runtime runs the CLI (desktop VS Code's is Electron, run as Node); the
        // server drops that variable again before it starts anything (src/cli/mcp/mcpCommand.ts).
        const d = new Definition(
          label,
          process.execPath,
          [deps.cliPath, 'mcp', '--workspace', root],
          { ELECTRON_RUN_AS_NODE: '1', BRAID_ENGINE_UNSET: 'ELECTRON_RUN_AS_NODE' },
          deps.version,
        );
        d.cwd = vscode.Uri.file(root);
        return d;
      });
    },
  };
  let registration: vscode.Disposable;
  try {
    registration = register.call(api.lm, MCP_PROVIDER_ID, provider);
  } catch (e) {
    // An editor whose API differs from the stable one: Braid goes on without offering its server.
    changed.dispose();
    return unavailable(`registering it failed: ${(e as Error).message}`);
  }
  return vscode.Disposable.from(
    changed,
    registration,
    // Trust granted or folders changed: the set of servers is another one.
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
  );
}

/** Whether `version` (`1.101.2`, `1.102.0-insider`) is at least major.minor. */
export function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map((x) => parseInt(x, 10));
  return a > major || (a === major && b >= minor);
}
