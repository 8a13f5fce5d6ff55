// `braid mcp`'s lines in `braid --help`: apart, so the help does not load the MCP server.
export const MCP_HELP = `  braid mcp [--workspace DIR] [--no-land]     serve Braid's tools to an agent over MCP (stdio): validate_plan,
                                               write_plan, run_plan, run_status, step_log, diff, approve, reject,
                                               pick, retry, cancel; paths stay inside the workspace (default: the
                                               current folder's git root); --no-land refuses approve and pick
`;
