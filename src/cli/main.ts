// The `braid` command (cli.md): validate, graph, run, status, retry, logs, clean, pick, plan, export,
// and the review commands (diff, approve, reject, revert, merge).
// Only what every command needs is imported here: each command's file (commands/) is loaded when it
// runs (`await import`), so `validate` never parses the engine and `run` never parses mermaid or export.
import { MCP_HELP } from './mcp/mcpHelp';
import { asksHelp } from './bundleFor';
import type { ReviewIo } from './commands/review';
import { expectedFailure, startCommand } from './commandStart';
import { err, out } from './output';
import { Usage } from './usage';

/** The help text; its command groups' parts live with their commands, loaded only to print it. */
async function help(): Promise<string> {
  const [{ REVIEW_HELP }, { TAKEOVER_HELP }, { PLAN_HELP }, { EXPORT_HELP }] = await Promise.all([
    import('./commands/review'),
    import('./commands/takeover'),
    import('./commands/plan'),
    import('./commands/export'),
  ]);
  return `braid — run a plan of agent and shell steps in parallel

usage:
  braid validate FILE...                       check plans (FILE:LINE:COL: error: MESSAGE)
  braid graph FILE [--format mermaid|json|dot] print the expanded DAG
  braid run FILE [options]                     run a plan
      --concurrency N   most steps at once (overrides the plan)
      --only STEP...    those steps and what they need; a need that succeeded the last time
                        it ran here, defined as it is now, is reused (not run again)
      --fresh           with --only: run the needs again too, reusing nothing
      --from STEP       that step and all that depend on it
      --json            events on stdout, one JSON object a line (a step's
                        reason is a code, its message the sentence)
      --dry-run         print the schedule and the agent commands, run nothing
      --permission P    what agent CLIs may do unasked: read-only, edit (default) or full
                        (a step's or the plan's defaults' \`permission\` wins)
      --max-cost-usd N  the run's budget (overrides the plan's max-cost-usd); codex's and
                        gemini's costs are estimated from their tokens (shown "est.")
      --otel            export the run as an OpenTelemetry trace (OTLP/HTTP) even with no
                        OTEL_EXPORTER_OTLP_ENDPOINT set (then to http://localhost:4318);
                        with it set, every run is exported and the OTEL_* variables apply
      --workspace DIR   where runs are recorded (default: the plan's git root, else its folder)
  braid status [RUN-ID] [--json]               the last (or named) run's steps
  braid retry RUN-ID [STEP...] [--json] [--concurrency N] [--resume] [--permission P] [--max-cost-usd N] [--otel]
                                               re-run failed/canceled/skipped steps and what they block
                                               (--resume: agent steps continue their last session)
  braid retry --last [STEP...] [options]       the same for the newest run
  braid resolve RUN-ID STEP [--agent NAME] [--json]
                                               a conflict step's agent (or NAME) resolves its conflict in its kept
                                               worktree, then its check, then it lands (and what it blocked runs)
  braid runs [--json]                          every run, newest first, with the worktrees and braid/* branches it kept
  braid logs RUN-ID STEP                       a step's log, every attempt (best-of: each alternative's)
  braid clean RUN-ID | --all | --older-than DURATION
                                               remove kept worktrees, branches and recorded changes (of one run, all, or runs ended
                                               longer ago than 7d, 12h…); records and logs stay
  braid pick RUN-ID STEP N                     land alternative N of a best-of step waiting on pick: review
${REVIEW_HELP}${TAKEOVER_HELP}${PLAN_HELP}${EXPORT_HELP}${MCP_HELP}
exit codes: 0 success · 1 failed steps or problems · 2 usage, invalid plan or missing agent CLI · 130 interrupted
`;
}

function reviewIo(): ReviewIo {
  return { out, err, color: process.stdout.isTTY === true && !process.env.NO_COLOR };
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd !== undefined && cmd !== 'serve' && asksHelp(rest)) {
    out(await help());
    return 0;
  }
  // The usage error of the command group that ran, if it has its own (its module is loaded by then).
  let groupUsage: (new (...a: never[]) => Error) | undefined;
  try {
    switch (cmd) {
      case 'validate':
        return await (await import('./commands/validate')).validate(rest);
      case 'graph':
        return await (await import('./commands/graph')).graphCommand(rest);
      case 'run':
        return await (await import('./commands/run')).run(rest);
      case 'retry':
        return await (await import('./commands/run')).run(rest, true);
      case 'resolve':
        return await (await import('./commands/run')).run(rest, true, true);
      case 'status':
        return await (await import('./commands/status')).status(rest);
      case 'logs':
        return await (await import('./commands/logs')).logs(rest);
      // Internal: the engine process the VS Code extension starts (not in the help).
      case 'serve':
        return await (await import('./commands/serve')).serve(rest);
      case 'clean':
      case 'runs': {
        const m = await import('./commands/housekeeping');
        groupUsage = m.HousekeepingUsage;
        return await (cmd === 'clean' ? m.cleanCommand : m.runsCommand)(rest, { out, err });
      }
      case 'pick':
        return await (await import('./commands/pick')).pick(rest);
      // `--continue`: what the landed step blocked runs now, as `braid retry RUN STEP...`.
      case 'diff':
      case 'approve':
      case 'reject':
      case 'revert':
      case 'merge': {
        const m = await import('./commands/review');
        groupUsage = m.ReviewUsage;
        return await (cmd === 'diff'
          ? m.diffCommand(rest, reviewIo())
          : m.reviewCommand(cmd, rest, reviewIo(), async (args) => (await import('./commands/run')).run(args, true)));
      }
      case 'attach':
      case 'say': {
        const m = await import('./commands/takeover');
        groupUsage = m.TakeoverUsage;
        return await (cmd === 'attach' ? m.attachCommand : m.sayCommand)(rest, { out, err });
      }
      case 'plan':
        return await (await import('./commands/plan')).planCommand(rest);
      case 'export':
        return await (await import('./commands/export')).exportCommand(rest);
      case 'mcp':
        return await (await import('./mcp/mcpCommand')).mcpCommand(rest, cliFile ?? process.argv[1]!);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        out(await help());
        return cmd ? 0 : 2;
      default:
        throw new Usage(`unknown command ${cmd}`);
    }
  } catch (e) {
    if (
      e instanceof Usage ||
      (groupUsage && e instanceof groupUsage) ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      err(`braid: ${(e as Error).message}\n\n${await help()}`);
      return 2;
    }
    const code = expectedFailure(e);
    if (code === undefined) throw e;
    return code;
  }
}

/** The file that runs `braid` (out/cli.js): `braid mcp` starts it again for its tools. */
let cliFile: string | undefined;

/** Runs the command line; out/cli.js calls it with its own path. */
export function start(file: string): void {
  cliFile = file;
  startCommand(() => main(process.argv.slice(2)));
}

// Run as a CommonJS bundle of its own (tests build one); the ES module build is started by out/cli.js.
if (typeof module !== 'undefined' && require.main === module) start(__filename);
