// The `braid` command (cli.md): validate, graph, run, status, retry, logs, clean, pick, plan, export,
// and the review commands (diff, approve, reject, revert, merge).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
// Only what every command needs is imported here: each command loads its own modules when it runs
// (`await import`), so `validate` never parses the engine and `run` never parses mermaid or export.
import { AGENT_PERMISSIONS, type AgentPermission } from '../core/agents/permission';
import type { RunOutcome } from '../core/engine/runPlan';
import type { Selection } from '../core/engine/scheduling/selection';
import type { ReusedStep } from '../core/engine/reuse/reusable';
import type { EngineEvent } from '../core/engine/types';
import { endSentence, shownStatus, type StepStatus } from '../core/status';
import type { CompileOptions } from '../core/plan/compile';
import { formatDiagnostic, stepTimeText } from '../core/format';
import { costText } from '../core/cost/costText';
import type { StepRecord } from '../core/engine/records/runRecord';
import { timeFactsOf } from '../core/engine/records/timeFacts';
import type { GraphStep } from '../core/plan/types';
import { MCP_HELP } from './mcp/mcpHelp';
import type { ReviewIo } from './reviewCommands';
import type { HumanView } from './view';
import { fsFailureMessage } from './fsFailure';
import { isFoundGitTop, WorkspaceError, workspaceForCwd, workspaceForPlan } from './workspace';

/** The help text; its command groups' parts live with their commands, loaded only to print it. */
async function help(): Promise<string> {
  const [{ REVIEW_HELP }, { TAKEOVER_HELP }, { PLAN_HELP }, { EXPORT_HELP }] = await Promise.all([
    import('./reviewCommands'),
    import('./takeoverCommands'),
    import('./planCommand'),
    import('./exportCommand'),
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

class Usage extends Error {}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const isPermission = (v: string): v is AgentPermission => (AGENT_PERMISSIONS as readonly string[]).includes(v);

const out = (s: string) => {
  if (!process.stdout.destroyed) process.stdout.write(s);
};
const err = (s: string) => {
  if (!process.stderr.destroyed) process.stderr.write(s);
};

async function validate(files: string[]): Promise<number> {
  if (files.length === 0) throw new Usage('validate needs at least one FILE');
  const [{ compilePlanFile }, { isGitWorkspace }] = await Promise.all([
    import('../core/plan/compile'),
    import('../core/engine/isolation/gitWorkspace'),
  ]);
  let problems = 0;
  for (const f of files) {
    // As `run` will see it: worktree steps need the plan's workspace to be a git repository.
    const ws = workspaceForPlan(f);
    const r = await compilePlanFile(f, { isGit: isFoundGitTop(ws) || (await isGitWorkspace(ws)) });
    for (const d of r.diagnostics) (d.severity === 'error' ? out : err)(`${formatDiagnostic(d)}\n`);
    problems += r.diagnostics.filter((d) => d.severity === 'error').length;
  }
  if (problems === 0) err(`${files.length} plan${files.length > 1 ? 's' : ''} valid\n`);
  return problems > 0 ? 1 : 0;
}

async function graph(file: string | undefined, format: string): Promise<number> {
  if (!file) throw new Usage('graph needs a FILE');
  if (!['mermaid', 'json', 'dot'].includes(format))
    throw new Usage(`--format must be mermaid, json or dot, got ${format}`);
  const { compilePlanFile } = await import('../core/plan/compile');
  const r = await compilePlanFile(file, { isGit: true });
  if (!r.graph) {
    for (const d of r.diagnostics) err(`${formatDiagnostic(d)}\n`);
    return 2;
  }
  const { toDot, toJson } = await import('../core/plan/formats');
  out(
    format === 'json'
      ? JSON.stringify(toJson(r.graph), null, 2) + '\n'
      : format === 'dot'
        ? toDot(r.graph)
        : (await import('../core/plan/mermaid')).toMermaid(r.graph).text + '\n',
  );
  return 0;
}

async function finish(outcome: RunOutcome, json: boolean, view?: HumanView, retried = false): Promise<number> {
  if (!outcome.ok) {
    if (outcome.usage) {
      err(`braid: ${outcome.usage}\n`);
      return outcome.busy || outcome.refused ? 1 : 2;
    }
    for (const d of outcome.diagnostics) err(`${formatDiagnostic(d)}\n`);
    return 2;
  }
  if (!json) {
    view?.summary(outcome.result, outcome.record);
    // A retry's run holds every step as its own (a conflict it kept fails it): the report covers them all.
    out(
      await (
        await import('./failureReport')
      ).failureReport(outcome.record, new Set(retried ? Object.keys(outcome.record.steps) : outcome.ran)),
    );
  }
  if (outcome.result.status === 'canceled') return 130;
  return outcome.result.status === 'succeeded' ? 0 : 1;
}

async function run(args: string[], retry = false, resolving = false): Promise<number> {
  const { values, positionals: given } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      concurrency: { type: 'string' },
      only: { type: 'string', multiple: true },
      from: { type: 'string' },
      json: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      workspace: { type: 'string' },
      resume: { type: 'boolean', default: false },
      permission: { type: 'string' },
      last: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      agent: { type: 'string' },
      'max-cost-usd': { type: 'string' },
      otel: { type: 'boolean', default: false },
    },
  });
  if (values.agent !== undefined && !resolving) throw new Usage('--agent is for resolve');
  let maxCostUsd: number | undefined;
  if (values['max-cost-usd'] !== undefined) {
    maxCostUsd = Number(values['max-cost-usd']);
    if (!Number.isFinite(maxCostUsd) || maxCostUsd < 0 || values['max-cost-usd'].trim() === '')
      throw new Usage(`--max-cost-usd must be an amount in US dollars ≥ 0, got ${values['max-cost-usd']}`);
  }
  const permission = values.permission;
  if (permission !== undefined && !isPermission(permission)) {
    throw new Usage(`--permission must be one of ${AGENT_PERMISSIONS.join(', ')}, got ${permission}`);
  }
  const compile: CompileOptions = { isGit: true, ...(permission ? { permission } : {}) };
  // `retry RUN-ID [STEP...]`: the run id is the first positional, wherever the options stand.
  if (values.last && !retry) throw new Usage('--last is for retry');
  if (values.fresh && (retry || !values.only))
    throw new Usage('--fresh goes with --only (a whole run, --from and retry never reuse)');
  const { RunStore } = await import('../core/engine/records/runStore');
  const latest = values.last ? (await new RunStore(workspaceForCwd(values.workspace)).latest())?.id : undefined;
  if (values.last && !latest) {
    err('braid: no runs here\n');
    return 1;
  }
  const retryId = retry ? (latest ?? given[0]) : undefined;
  const positionals = retry && !latest ? given.slice(1) : given;
  if (retry && !retryId) throw new Usage('retry needs a RUN-ID (or --last)');
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Usage(`--concurrency must be an integer ≥ 1, got ${values.concurrency}`);
  }
  let planFile: string;
  let workspace: string;
  let steps: string[] = [];
  if (retryId) {
    workspace = workspaceForCwd(values.workspace);
    const rec = await new RunStore(workspace).load(retryId);
    if (!rec) {
      err(`braid: unknown run ${retryId}\n`);
      return 1;
    }
    planFile = rec.planFile;
    steps = positionals;
    if (resolving && steps.length !== 1) throw new Usage('resolve needs a RUN-ID and one STEP');
  } else {
    if (positionals.length !== 1) throw new Usage('run needs exactly one FILE');
    planFile = resolve(positionals[0]!);
    workspace = workspaceForPlan(planFile, values.workspace);
  }
  // --only accepts `--only a b c` as well as repeated flags.
  const only = values.only ? [...values.only, ...(retryId ? [] : [])] : undefined;
  if (values['dry-run']) {
    const selection: Selection = retryId
      ? { retry: { previous: await retryStatuses(workspace, retryId), ...(steps.length > 0 ? { steps } : {}) } }
      : { ...(only ? { only } : {}), ...(values.from ? { from: values.from } : {}) };
    return dryRun(planFile, workspace, values.json, compile, selection, values.fresh);
  }
  const [{ runPlan }, { killGuardedNow }, { HumanView }, { JsonEventWriter }, { runWatchers }] = await Promise.all([
    import('../core/engine/runPlan'),
    import('../core/exec/watchdog'),
    import('./view'),
    import('./jsonEvents'),
    import('../core/engine/runWatchers'),
  ]);
  const json = values.json;
  const fancy = !json && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const view = json ? undefined : new HumanView(process.stdout, fancy);
  const ac = new AbortController();
  let interrupted = false;
  // HUP (the terminal closed, SSH dropped) cancels as INT does. A second signal skips the steps'
  // grace, not their end: every group is KILLed before the exit.
  const onSignal = () => {
    if (interrupted) {
      killGuardedNow();
      process.exit(130);
    }
    interrupted = true;
    err('\nbraid: canceling… (again to stop at once)\n');
    ac.abort();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  // A slow reader of --json costs dropped output events (counted), never unbounded memory.
  const events = json ? new JsonEventWriter(process.stdout) : undefined;
  const onEvent = (e: EngineEvent) => (events ? process.stdout.destroyed || events.write(e) : view!.on(e));
  const notice = (m: string) => err(`braid: ${m}\n`);
  const outcome = await runPlan({
    planFile,
    workspace,
    signal: ac.signal,
    onEvent,
    compile,
    onWarning: (d) => err(`${formatDiagnostic(d)}\n`),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(only ? { only } : {}),
    ...(values.from ? { from: values.from } : {}),
    ...(values.fresh ? { fresh: true } : {}),
    ...(retryId ? { retry: { runId: retryId, steps }, resume: values.resume } : {}),
    ...(resolving
      ? { resolve: { step: steps[0]!, ...(values.agent !== undefined ? { agent: values.agent } : {}) } }
      : {}),
    // Traces (with an OTLP endpoint) and the plan's webhooks; what fails there is said, never fatal.
    observers: runWatchers(process.env, { otel: { enabled: values.otel } }, notice),
    onNotice: notice,
    // No onBudget: at the plan's max-cost-usd the CLI stops (running steps finish, the rest are canceled).
  });
  for (const s of SIGNALS) process.off(s, onSignal);
  const code = await finish(outcome, json, view, retryId !== undefined);
  return interrupted ? 130 : code;
}

async function dryRun(
  planFile: string,
  workspace: string,
  json: boolean,
  compile: CompileOptions,
  selection: Selection,
  fresh: boolean,
): Promise<number> {
  const [
    { compilePlanFile },
    { isGitWorkspace },
    { toJson },
    { unknownSteps, selectSteps },
    { reusableNeeds },
    { contentKeys },
    { RunStore },
    { missingAgents },
  ] = await Promise.all([
    import('../core/plan/compile'),
    import('../core/engine/isolation/gitWorkspace'),
    import('../core/plan/formats'),
    import('../core/engine/scheduling/selection'),
    import('../core/engine/reuse/reusable'),
    import('../core/engine/reuse/contentKey'),
    import('../core/engine/records/runStore'),
    import('../core/engine/steps/missingAgents'),
  ]);
  const r = await compilePlanFile(planFile, { ...compile, isGit: await isGitWorkspace(workspace) });
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  for (const d of r.diagnostics) err(`${formatDiagnostic(d)}\n`);
  if (!r.graph || errors.length > 0) return 2;
  const g = r.graph;
  const named = [
    ...(selection.only ?? []),
    ...(selection.from ? [selection.from] : []),
    ...(selection.retry?.steps ?? []),
  ];
  const unknown = unknownSteps(g, named);
  if (unknown.length > 0) throw new Usage(`unknown step${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  // What `run` would refuse, the dry run reports too (and fails the same way).
  const selected = selectSteps(g, selection);
  // What `--only` would reuse rather than run (as run decides it, from the runs recorded here).
  const reused =
    selection.only && selection.only.length > 0 && !fresh
      ? await reusableNeeds(new RunStore(workspace), planFile, g, selected, selection.only, contentKeys(g))
      : new Map<string, ReusedStep>();
  for (const id of reused.keys()) selected.delete(id);
  const missing = missingAgents(g, selected, workspace, process.env);
  for (const d of missing) err(`${formatDiagnostic(d)}\n`);
  const code = missing.length > 0 ? 2 : 0;
  const order = g.order.filter((id) => selected.has(id));
  const reusing = g.order.filter((id) => reused.has(id)).map((id) => ({ id, run: reused.get(id)!.run }));
  if (json) {
    out(JSON.stringify({ ...toJson(g), selected: order, reused: reusing }) + '\n');
    return code;
  }
  const of = order.length === g.order.length ? '' : ` of ${g.order.length}`;
  out(
    `would run ${order.length}${of} steps of ${g.plan.name} (concurrency ${g.plan.concurrency ?? 4}), longest paths first:\n`,
  );
  for (const id of order) {
    const s = g.steps.get(id)!;
    out(
      `  ${id}${s.needs.length ? ` after ${s.needs.join(', ')}` : ''}${s.writes.length ? ` · writes ${s.writes.join(' ')}` : ''}\n`,
    );
    if (s.bestOf) out(alternativesLine(s));
  }
  if (reusing.length > 0)
    out(
      `would reuse ${reusing.length} (--fresh runs them again):\n${reusing.map((r) => `  ${r.id} · from run ${r.run}\n`).join('')}`,
    );
  // The agents' commands, so the permission flags a run would pass are visible before it.
  const used = [
    ...new Set(
      order
        .flatMap((id) => {
          const s = g.steps.get(id)!;
          return [s.agent, ...(s.bestOf?.alternatives.map((a) => a.agent) ?? [])];
        })
        .filter((a): a is string => a !== undefined),
    ),
  ];
  if (used.length > 0) out('agents:\n');
  for (const name of used) out(`  ${name}: ${g.agents[name]!.command.join(' ')}\n`);
  const [{ alternativeStep }, { stepAgent, stepAgentOptions }] = await Promise.all([
    import('../core/engine/scheduling/alternatives'),
    import('../core/agents/stepAgent'),
  ]);
  // And each step's own flags (model, max-turns, permission, tools) where it adds some.
  // (A best-of step's alternatives each: their agent and model may differ from the step's.)
  for (const id of order) {
    const whole = g.steps.get(id)!;
    for (const s of whole.bestOf && whole.kind === 'prompt'
      ? whole.bestOf.alternatives.map((a) => alternativeStep(whole, a))
      : [whole]) {
      const agent = s.agent === undefined ? undefined : g.agents[s.agent];
      const own = agent && stepAgent(agent, stepAgentOptions(s));
      if (agent && own !== agent) out(`  ${s.agent} for ${s.id}: ${own!.command.join(' ')}\n`);
    }
  }
  return code;
}

/** `    best-of 3 (pick first, one slot each): 1 · claude, 2 · codex model o3, 3 · gemini` */
function alternativesLine(s: GraphStep): string {
  const b = s.bestOf!;
  const parts = b.alternatives.map((a) => {
    const what = [
      a.agent ?? s.agent,
      a.model !== undefined ? `model ${a.model}` : undefined,
      a.prompt !== undefined ? 'own prompt' : undefined,
      ...Object.entries(a.env).map(([k, v]) => `${k}=${v}`),
    ].filter((x) => x !== undefined);
    return what.length > 0 ? `${a.index} · ${what.join(' ')}` : `${a.index}`;
  });
  return `    best-of ${b.alternatives.length} (pick ${b.pick}, one slot each): ${parts.join(', ')}\n`;
}

async function retryStatuses(workspace: string, runId: string): Promise<Map<string, StepStatus>> {
  const { RunStore } = await import('../core/engine/records/runStore');
  const rec = await new RunStore(workspace).load(runId);
  return new Map(Object.values(rec?.steps ?? {}).map((s) => [s.id, s.status] as const));
}

async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, workspace: { type: 'string' } },
  });
  const { RunStore } = await import('../core/engine/records/runStore');
  const store = new RunStore(workspaceForCwd(values.workspace));
  // Reading needs no space: a record that cannot be updated is shown as it is.
  await store.markInterrupted().catch((e: unknown) => {
    const fs = fsFailureMessage(e);
    if (!fs) throw e;
    err(`${fs}\n`);
  });
  const id = positionals[0] ?? (await store.latest())?.id;
  const rec = id ? await store.load(id) : undefined;
  if (!rec) {
    err(id ? `braid: unknown run ${id}\n` : 'braid: no runs here\n');
    return 1;
  }
  const cost =
    rec.costUsd !== undefined
      ? { costUsd: rec.costUsd, ...(rec.costSource ? { costSource: rec.costSource } : {}) }
      : {};
  if (values.json) {
    out(
      JSON.stringify({ id: rec.id, plan: rec.planName, status: rec.status, ...cost, steps: rec.steps }, null, 2) + '\n',
    );
    return 0;
  }
  out(
    `run ${rec.id} · ${rec.planName} · ${rec.status}${rec.costUsd !== undefined ? ` · ${costText(rec.costUsd, rec.costSource)}` : ''}\n`,
  );
  const now = Date.now();
  for (const s of Object.values(rec.steps)) {
    const why = endSentence(s);
    // Time spent running; the wall time apart when retry delays or waits made it longer.
    const t = stepTimeText(timeFactsOf(s), now);
    const time = t ? ` · ${t.time}${t.wall ? ` (${t.wall})` : ''}` : '';
    out(
      `  ${shownStatus(s).padEnd(11)} ${s.id}${time}${s.attempts.length > 1 ? ` · ${s.attempts.length} attempts` : ''}${spendText(s)}${why ? ` · ${why}` : ''}\n`,
    );
  }
  return 0;
}

/** ` · 12,345 in / 678 out tokens · $0.0400 est.` for a step whose agent counted tokens or a cost. */
function spendText(s: StepRecord): string {
  const tokens =
    s.inputTokens !== undefined
      ? ` · ${s.inputTokens.toLocaleString('en-US')} in / ${(s.outputTokens ?? 0).toLocaleString('en-US')} out tokens`
      : '';
  const unknown = s.attempts.map((a) => a.costUnknown).find((u) => u !== undefined);
  const cost =
    s.costUsd !== undefined ? ` · ${costText(s.costUsd, s.costSource)}` : unknown !== undefined ? ` · ${unknown}` : '';
  return tokens + cost;
}

async function logs(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' } },
  });
  const [runId, step] = positionals;
  if (!runId || !step) throw new Usage('logs needs RUN-ID and STEP');
  const { RunStore } = await import('../core/engine/records/runStore');
  const store = new RunStore(workspaceForCwd(values.workspace));
  const rec = await store.load(runId);
  if (!rec) {
    err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  // A best-of step's alternatives log as steps of their own (`<step>.alt<i>`): each in turn.
  const alts = rec.steps[step]?.alternatives;
  const parts = alts
    ? alts.map((a) => ({
        id: `${step}.alt${a.index}`,
        head: `════ alternative ${a.index} · ${a.status}${rec.steps[step]!.winner === a.index ? ' · won' : ''} ════\n`,
      }))
    : [{ id: step, head: '' }];
  let shown = 0;
  for (const p of parts) {
    const text = await readFile(store.paths(runId).log(p.id), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    out(p.head + text);
    shown++;
  }
  if (shown === 0) {
    err(`braid: no log for ${step} in ${runId}\n`);
    return 1;
  }
  return 0;
}

function reviewIo(): ReviewIo {
  return { out, err, color: process.stdout.isTTY === true && !process.env.NO_COLOR };
}

async function pick(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' } },
  });
  const [runId, step, which] = positionals;
  const n = Number(which);
  if (!runId || !step || positionals.length !== 3 || !Number.isInteger(n))
    throw new Usage('pick needs RUN-ID, STEP and the number N of an alternative');
  const [{ RunStore }, { pickProblem, writePick }] = await Promise.all([
    import('../core/engine/records/runStore'),
    import('../core/engine/records/pickRequest'),
  ]);
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) {
    err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  const problem = pickProblem(rec, step, n);
  if (problem) {
    err(`braid: ${problem}\n`);
    return 1;
  }
  await writePick(store.paths(runId).dir, step, n);
  err(`picked alternative ${n} of ${step}; the run lands it\n`);
  return 0;
}

/** `braid run --help`: a help flag anywhere before `--` asks for the help, not for a run. */
function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
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
        return await validate(rest);
      case 'graph': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { format: { type: 'string', default: 'mermaid' } },
        });
        return await graph(positionals[0], values.format);
      }
      case 'run':
        return await run(rest);
      case 'retry':
        return await run(rest, true);
      case 'resolve':
        return await run(rest, true, true);
      case 'status':
        return await status(rest);
      case 'logs':
        return await logs(rest);
      // Internal: the engine process the VS Code extension starts (not in the help).
      case 'serve':
        return await (await import('./serve')).serve(rest);
      case 'clean':
      case 'runs': {
        const m = await import('./housekeeping');
        groupUsage = m.HousekeepingUsage;
        return await (cmd === 'clean' ? m.cleanCommand : m.runsCommand)(rest, { out, err });
      }
      case 'pick':
        return await pick(rest);
      // `--continue`: what the landed step blocked runs now, as `braid retry RUN STEP...`.
      case 'diff':
      case 'approve':
      case 'reject':
      case 'revert':
      case 'merge': {
        const m = await import('./reviewCommands');
        groupUsage = m.ReviewUsage;
        return await (cmd === 'diff'
          ? m.diffCommand(rest, reviewIo())
          : m.reviewCommand(cmd, rest, reviewIo(), (args) => run(args, true)));
      }
      case 'attach':
      case 'say': {
        const m = await import('./takeoverCommands');
        groupUsage = m.TakeoverUsage;
        return await (cmd === 'attach' ? m.attachCommand : m.sayCommand)(rest, { out, err });
      }
      case 'plan':
        return await (await import('./planCommand')).planCommand(rest);
      case 'export':
        return await (await import('./exportCommand')).exportCommand(rest);
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
    if (e instanceof WorkspaceError) {
      err(`braid: ${e.message}\n`);
      return 2;
    }
    if (
      e instanceof Usage ||
      (groupUsage && e instanceof groupUsage) ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      err(`braid: ${(e as Error).message}\n\n${await help()}`);
      return 2;
    }
    const fs = fsFailureMessage(e);
    if (fs) {
      err(`${fs}\n`);
      return 1;
    }
    throw e;
  }
}

/** The file that runs `braid` (out/cli.js): `braid mcp` starts it again for its tools. */
let cliFile: string | undefined;

/** Runs the command line; out/cli.js calls it with its own path. */
export function start(file: string): void {
  cliFile = file;
  // A reader that went away (`braid status | head -1`, a closed terminal) ends what is printed,
  // not the command: a write's EPIPE is no crash and no stack trace.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      err(`braid: internal error: ${(e as Error).stack}\n`);
      process.exitCode = 70;
    },
  );
}

// Run as a CommonJS bundle of its own (tests build one); the ES module build is started by out/cli.js.
if (typeof module !== 'undefined' && require.main === module) start(__filename);
