// Braid's MCP tools, each with its input and output schema, on one McpServer: names, descriptions
// and schemas here; the work in planTools, runTools and reviewTools. Every call answers within
// TOOL_DEADLINE_MS (answer.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import { toResult, withinDeadline, type Answer } from './answer';
import type { McpContext } from './context';
import * as plan from './planTools';
import * as review from './reviewTools';
import * as runs from './runTools';

const TOOL_DEADLINE_MS = 30_000;

type Shape = Record<string, z.ZodType>;

export function registerTools(server: McpServer, ctx: McpContext): void {
  const tool = <I extends Shape>(
    name: string,
    description: string,
    input: I,
    output: Shape,
    work: (a: z.infer<z.ZodObject<I>>) => Promise<Answer>,
    readOnly = false,
  ): void => {
    server.registerTool(
      name,
      {
        description,
        inputSchema: input,
        outputSchema: output,
        annotations: { readOnlyHint: readOnly, openWorldHint: false },
      },
      (async (a: z.infer<z.ZodObject<I>>) =>
        toResult(await withinDeadline(name, TOOL_DEADLINE_MS, () => work(a)))) as never,
    );
  };
  const land = ctx.noLand ? ' Turned off on this server (--no-land): a person lands changes.' : '';

  tool(
    'validate_plan',
    'Check a Braid plan (*.braid.yaml: a DAG of agent-prompt and shell steps) given as text or as a file in the workspace; every problem with its line and column.',
    plan.validateInput,
    plan.validateOutput,
    (a) => plan.validatePlanTool(ctx, a),
    true,
  );
  tool(
    'write_plan',
    'Write a Braid plan file in the workspace, only if it is valid (an invalid plan is refused with its problems, nothing written). Refuses to replace a file unless overwrite is true.',
    plan.writeInput,
    plan.writeOutput,
    (a) => plan.writePlanTool(ctx, a),
  );
  tool(
    'run_plan',
    "Start running a Braid plan file in the background and answer at once with the run id; poll run_status until `ended`. Steps run in parallel under the plan's caps, pools and write locks; each agent step in its own git worktree. `landsWithoutReview` names steps whose change lands in the workspace when they succeed (give them `review: true` to approve first).",
    plan.runInput,
    plan.runOutput,
    (a) => plan.runPlanTool(ctx, a),
  );
  tool(
    'run_status',
    "A run's status and each step's: status (pending, waiting, running, review, succeeded, failed, conflict, canceled, skipped, interrupted), why it ended, attempts, cost in USD. `ended` is true once the run is over. Default: the newest run.",
    runs.statusInput,
    runs.statusOutput,
    (a) => runs.runStatusTool(ctx, a),
    true,
  );
  tool(
    'step_log',
    "The end of a step's log (its output, every attempt), at most 64 KiB.",
    runs.logInput,
    runs.logOutput,
    (a) => runs.stepLogTool(ctx, a),
    true,
  );
  tool(
    'diff',
    'The change each step recorded (a unified diff, or --stat), for landed, review and conflict steps alike; at most 200 KiB in all.',
    review.diffInput,
    review.diffOutput,
    (a) => review.diffTool(ctx, a),
    true,
  );
  tool(
    'approve',
    `Land the changes of steps waiting in review into the workspace.${land}`,
    review.approveInput,
    review.reviewOutput,
    (a) => review.reviewTool(ctx, 'approve', a),
  );
  tool(
    'reject',
    'Reject the changes of steps waiting in review: the step fails (reason rejected), its change never lands, its dependents are skipped.',
    review.rejectInput,
    review.reviewOutput,
    (a) => review.reviewTool(ctx, 'reject', a),
  );
  tool(
    'pick',
    `Land alternative N of a best-of step waiting for a pick (pick: review).${land}`,
    review.pickInput,
    review.pickOutput,
    (a) => review.pickTool(ctx, a),
  );
  tool(
    'retry',
    "Run a run's failed, canceled, skipped or interrupted steps again (or the named ones) in the same run, keeping what succeeded; the plan file is read again. Answers at once; poll run_status.",
    runs.retryInput,
    runs.retryOutput,
    (a) => runs.retryTool(ctx, a),
  );
  tool('cancel', 'Cancel a running run, or one of its steps.', runs.cancelInput, runs.cancelOutput, (a) =>
    runs.cancelTool(ctx, a),
  );
}
