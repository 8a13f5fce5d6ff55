// `braid run --dry-run` (and retry's): the schedule, what --only would reuse, and the agents'
// commands with the flags a run would pass, with nothing run.
import type { ReusedStep } from '../../core/engine/reuse/reusable';
import type { Selection } from '../../core/engine/scheduling/selection';
import { formatDiagnostic } from '../../core/format';
import type { CompileOptions } from '../../core/plan/compile';
import type { GraphStep } from '../../core/plan/types';
import { err, out } from '../output';
import { Usage } from '../usage';

export async function dryRun(
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
    import('../../core/plan/compile'),
    import('../../core/engine/isolation/gitWorkspace'),
    import('../../core/plan/formats'),
    import('../../core/engine/scheduling/selection'),
    import('../../core/engine/reuse/reusable'),
    import('../../core/engine/reuse/contentKey'),
    import('../../core/engine/records/runStore'),
    import('../../core/engine/steps/missingAgents'),
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
    import('../../core/plan/alternativeStep'),
    import('../../core/agents/stepAgent'),
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
