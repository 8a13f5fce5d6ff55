// `braid mcp [--workspace DIR] [--no-land]`: Braid as a Model Context Protocol server on stdio, for
// agents (Claude Code, Codex, Gemini CLI, Copilot in VS Code) to validate, write and run plans and
// follow, review and land their runs. It serves until its client closes stdin. Nothing but the
// protocol goes to stdout.
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { realWorkspace } from '../../core/engineSocket';
import { isDir, workspaceForCwd } from '../workspace';
import { mcpContext } from './context';
import { MCP_HELP } from './mcpHelp';
import { registerTools } from './tools';

/** Serves until stdin closes; the exit code (2: bad usage, said on stderr). */
export async function mcpCommand(args: string[], cliPath: string): Promise<number> {
  try {
    return await serveMcp(args, cliPath);
  } catch (e) {
    if (!(e instanceof McpUsage) && !(e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw e;
    process.stderr.write(`braid mcp: ${(e as Error).message}\nusage:\n${MCP_HELP}`);
    return 2;
  }
}

async function serveMcp(args: string[], cliPath: string): Promise<number> {
  // Variables VS Code set only to start us (ELECTRON_RUN_AS_NODE): the engine and its steps must not inherit them.
  for (const name of (process.env.BRAID_ENGINE_UNSET ?? '').split(',')) if (name) delete process.env[name];
  delete process.env.BRAID_ENGINE_UNSET;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { workspace: { type: 'string' }, 'no-land': { type: 'boolean', default: false } },
  });
  if (positionals.length > 0) throw new McpUsage(`mcp takes no arguments, got ${positionals.join(' ')}`);
  if (values.workspace !== undefined && !isDir(values.workspace))
    throw new McpUsage(`--workspace must name a folder, got ${values.workspace}`);
  const workspace = realWorkspace(workspaceForCwd(values.workspace));
  const ctx = mcpContext({ workspace, noLand: values['no-land'], cliPath });
  const server = new McpServer(
    { name: 'braid', version: '0.1.0' },
    {
      instructions:
        `Braid runs plans (*.braid.yaml: a DAG of agent-prompt and shell steps) in ${workspace} with concurrency caps, pools, write locks, git worktrees and review. ` +
        'Write a plan with write_plan (or check one with validate_plan), start it with run_plan, poll run_status until ended, read step_log and diff, then approve or reject steps in review.' +
        (ctx.noLand ? ' approve and pick are turned off here: a person lands changes.' : ''),
    },
  );
  registerTools(server, ctx);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The client went away: its end of stdin closed.
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  ctx.dispose();
  await server.close().catch(() => undefined);
  return 0;
}

class McpUsage extends Error {}
