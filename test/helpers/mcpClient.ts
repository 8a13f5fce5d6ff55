// An MCP client on the official SDK, talking to `braid mcp` (the built bundle) over stdio as an
// agent's client would; its tools called by name, their structured answers read back. The engine
// the server starts for runs is shut down by `close`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectEngine } from '../../src/extension/engine/engineClient';
import { MAIN } from './cliRun';

export interface ToolAnswer {
  readonly isError: boolean;
  /** The structured result (absent on an error). */
  readonly data: any;
  /** The text content, joined. */
  readonly text: string;
}

export interface BraidMcp {
  readonly client: Client;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@localhost',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@localhost',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** `braid mcp --workspace DIR [extra]` with an SDK client connected to it. */
export async function braidMcp(workspace: string, extra: readonly string[] = []): Promise<BraidMcp> {
  const env = { ...process.env, ...GIT_IDENTITY, NO_COLOR: '1' } as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', '--workspace', workspace, ...extra],
    cwd: workspace,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const client = new Client({ name: 'braid-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      if (!r.isError && r.structuredContent === undefined)
        throw new Error(`${name} answered without structured content: ${text}\n${stderr}`);
      return { isError: r.isError === true, data: r.structuredContent, text };
    },
    async close() {
      await client.close();
      // The server started the workspace's engine for its runs: stop it (it would exit when idle anyway).
      const engine = await connectEngine({ workspace, cliPath: MAIN, startTimeoutMs: 5000 }).catch(() => undefined);
      await engine?.shutdown().catch(() => undefined);
      engine?.dispose();
    },
  };
}
