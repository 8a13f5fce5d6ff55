// The graph checks, on the expanded model: what a step is (run or prompt, which agent), what it
// depends on (unknown or self needs, duplicate ids, cycles) and where it may touch (paths leaving
// the workspace, worktrees outside git). Every problem is reported; nothing stops at the first.
import { stepAgentProblems } from '../agents/stepAgent';
import { escapesWorkspace } from '../paths/containment';
import { globProblem } from '../paths/glob';
import { checkBestOf } from './bestOfChecks';
import { findCycles } from './cycles';
import { checkEnvNames } from './envNames';
import { hint } from './didYouMean';
import {
  MAX_MATRIX_STEPS,
  MAX_PLAN_EDGES,
  MAX_PLAN_STEPS,
  type ExpandOptions,
  type Instance,
  type PlanModel,
} from './expand';
import { fieldPath, type Report } from './reporter';
import { topoOrder } from './topoOrder';

/** Reports the model's graph problems; the topological order when there is no cycle. */
export function validateGraph(model: PlanModel, opts: ExpandOptions, report: Report): { order?: readonly string[] } {
  for (const p of model.table.problems) report([], p, 'settings', { severity: 'warning', bare: true });
  const seenGroup = new Set<string>();
  for (const inst of model.instances) {
    // Most checks are about what the user wrote once, not about each matrix copy.
    if (!seenGroup.has(inst.group)) {
      seenGroup.add(inst.group);
      if (inst.mapping) checkKind(inst, report);
      checkAgent(model, inst, report);
      checkIsolation(inst, opts, report);
      checkOnConflict(inst, report);
      checkBestOf(model, inst, opts, report);
    }
    checkPaths(inst, report);
    checkAgentAsks(model, inst, report);
  }
  checkEnvNames(model, report);
  const fmt = (n: number) => n.toLocaleString('en-US');
  for (const { group, count } of model.oversized.filter((o) => o.limit === 'matrix')) {
    report(
      ['steps', group, 'matrix'],
      `the matrix makes ${fmt(count)} steps; at most ${fmt(MAX_MATRIX_STEPS)}`,
      'matrix-size',
    );
  }
  // Past the plan's cap, one problem at the step that crosses it says what the rest add up to.
  const beyond = model.oversized.filter((o) => o.limit === 'plan');
  const [cross] = beyond;
  if (cross) {
    const more = beyond.slice(1).reduce((n, o) => n + o.count, 0);
    const rest = beyond.length > 1 ? `, and ${fmt(beyond.length - 1)} later steps would add ${fmt(more)} more` : '';
    const message = `the plan would expand to more than ${fmt(MAX_PLAN_STEPS)} steps: ${fmt(cross.before)} before this step, which makes ${fmt(cross.count)}${rest}`;
    report(cross.count > 1 ? ['steps', cross.group, 'matrix'] : ['steps', cross.group], message, 'plan-size', {
      key: cross.count === 1,
    });
  }
  for (const { id, groups } of model.duplicates) {
    const [first, ...later] = groups;
    if (later.length === 0)
      report(['steps', first ?? id, 'matrix'], `two matrix combinations both make the step id \`${id}\``, 'duplicate');
    for (const g of later)
      report(['steps', g], `duplicate step id \`${id}\` (also made by \`${first}\`)`, 'duplicate', { key: true });
  }
  for (const p of model.needProblems) {
    const at = ['steps', p.group, 'needs', p.index];
    // Past the cap the problem is only counted: no did-you-mean against every step for it.
    if (report.full()) {
      report(at, '', 'unknown-need');
      continue;
    }
    if (p.kind === 'self') report(at, `a step cannot need itself (\`${p.entry}\`)`, 'self-need');
    else if (p.kind === 'no-match') report(at, `\`${p.entry}\` matches no step`, 'unknown-need');
    else if (p.kind === 'too-many')
      report(at, `the plan's needs expand to more than ${fmt(MAX_PLAN_EDGES)} dependencies`, 'plan-size');
    else if (p.kind === 'bad-glob') report(at, `\`${p.entry}\`: ${p.reason ?? 'not a usable glob'}`, 'glob');
    else {
      const h = hint(p.entry, [...model.groups.keys()]);
      report(at, `unknown step \`${p.entry}\`${h.text}`, 'unknown-need', h.fix);
    }
  }
  const ids = [...model.byId.keys()];
  const { order, cyclic } = topoOrder(ids, model.needs);
  if (cyclic.length === 0) return { order };
  const fileOrder = new Map(ids.map((id, i) => [id, i]));
  for (const cycle of findCycles(cyclic, model.needs, fileOrder)) {
    const start = model.byId.get(cycle[0]!)!;
    // The closing edge: the start needs the step just before it in run order.
    report(needsEntryPath(start, cycle[cycle.length - 2]!, model), `cycle: ${cycle.join(' → ')}`, 'cycle');
  }
  return {};
}

function checkKind(inst: Instance, report: Report): void {
  const run = inst.present.has('run'),
    prompt = inst.present.has('prompt');
  if (run && prompt)
    report(['steps', inst.group, 'prompt'], 'a step has either `run` or `prompt`, not both', 'run-prompt', {
      key: true,
    });
  else if (!run && !prompt)
    report(['steps', inst.group], 'needs `run` (a shell command) or `prompt` (for an agent)', 'run-prompt', {
      key: true,
    });
}

function checkAgent(model: PlanModel, inst: Instance, report: Report): void {
  if (inst.agent === undefined || model.table.known.has(inst.agent)) return;
  const path = inst.merged.agent === undefined ? ['steps', inst.group] : fieldPath(inst.group, inst.own, 'agent');
  const h = hint(inst.agent, [...model.table.known]);
  // Without an `agent` written anywhere, the range is the step's key: nothing there to replace.
  report(
    path,
    `unknown agent \`${inst.agent}\`${h.text}`,
    'unknown-agent',
    inst.merged.agent === undefined ? {} : h.fix,
  );
}

/** `model`, `max-turns`, `permission`, `tools`: each must become a flag of the step's agent's CLI. */
function checkAgentAsks(model: PlanModel, inst: Instance, report: Report): void {
  const agent = inst.agent === undefined ? undefined : model.table.agents[inst.agent];
  if (!agent) return;
  const m = inst.merged;
  const problems = stepAgentProblems(agent, {
    ...(inst.model !== undefined ? { model: inst.model } : {}),
    ...(m['max-turns'] !== undefined ? { maxTurns: m['max-turns'] } : {}),
    ...(m.permission !== undefined ? { permission: m.permission } : {}),
    ...(m.tools !== undefined ? { tools: m.tools } : {}),
  });
  for (const p of problems) {
    const base = fieldPath(inst.group, inst.own, p.key);
    // From `defaults`, the message names the step the agent belongs to.
    const whose = base[0] === 'defaults' ? ` (step \`${inst.group}\`)` : '';
    report(p.index === undefined ? base : [...base, p.index], `${p.message}${whose}`, 'agent-flag');
  }
}

function checkIsolation(inst: Instance, opts: ExpandOptions, report: Report): void {
  if (inst.merged.isolation === 'worktree' && !opts.isGit) {
    report(
      fieldPath(inst.group, inst.own, 'isolation'),
      '`worktree` needs a git workspace; use `shared` here',
      'isolation',
    );
  }
  // Only a worktree step's change is a thing apart that can wait; `defaults.review` just skips shared steps.
  if (inst.own.review === true && inst.isolation !== 'worktree') {
    report(
      fieldPath(inst.group, inst.own, 'review'),
      "`review` holds a worktree step's change until it is approved; this step runs in the shared workspace, so its edits land as it makes them (set `isolation: worktree`)",
      'review',
      { severity: 'warning' },
    );
  }
}

function checkOnConflict(inst: Instance, report: Report): void {
  if (inst.own['on-conflict'] === 'resolve' && inst.kind === 'run') {
    report(
      fieldPath(inst.group, inst.own, 'on-conflict'),
      "`resolve` runs the step's agent on the conflict, and a `run` step has none: use `rerun` (run it again on the workspace as it is now) or `stop`, or resolve it afterwards with `braid resolve RUN STEP --agent NAME`",
      'on-conflict',
    );
  }
}

// Paths decide locks, worktrees and what is copied before a step starts, so they must be known
// when the plan is read: matrix values and the plan's name are (expand.ts substitutes them); a
// step's output, the run id or an environment variable is not, and would be used literally.
const LEFT_TEMPLATE = /\$\{\{[^}]*\}\}|\$\{\{/;

function checkPaths(inst: Instance, report: Report): void {
  const lists = [
    ['writes', inst.writes],
    ['reads', inst.reads],
    ['copy', inst.copy],
    ['symlink', inst.symlink],
    ['sparse', inst.sparse],
  ] as const;
  for (const [key, values] of lists) {
    values.forEach((v, i) => {
      // `writes: x` is one scalar; rangeAt reads index 0 of a scalar as the scalar itself.
      const at = () => [...fieldPath(inst.group, inst.own, key), i];
      const problem = key === 'sparse' ? undefined : globProblem(v);
      const template = LEFT_TEMPLATE.exec(v)?.[0];
      if (template !== undefined) report(at(), templateInPath(template, key), 'path-template');
      else if (problem) report(at(), `\`${v}\`: ${problem}`, 'glob');
      // copy, symlink and sparse bring files into a worktree from the workspace: never from outside it.
      else if (escapesWorkspace(v)) report(at(), `\`${v}\` leaves the workspace`, 'escapes');
    });
  }
  for (const key of ['cwd', 'output'] as const) {
    const v = inst[key];
    if (v === undefined) continue;
    const template = LEFT_TEMPLATE.exec(v)?.[0];
    if (template !== undefined)
      report(fieldPath(inst.group, inst.own, key), templateInPath(template, key), 'path-template');
    else if (escapesWorkspace(v))
      report(fieldPath(inst.group, inst.own, key), `\`${v}\` leaves the workspace`, 'escapes');
  }
}

function templateInPath(template: string, key: string): string {
  return `${template} cannot be used in \`${key}\`: a path must be known before the run, so only \${{ matrix.<key> }} and \${{ plan.name }} are expanded here`;
}

/** The `needs` entry of `inst` that brings in `dep` (its id, its matrix group or a glob), else the whole list. */
function needsEntryPath(inst: Instance, dep: string, model: PlanModel): PropertyKey[] {
  const entries = inst.own.needs ?? [];
  const group = model.byId.get(dep)?.group;
  const i = entries.findIndex((e) => e === dep || e === group);
  return i >= 0 ? ['steps', inst.group, 'needs', i] : ['steps', inst.group, 'needs'];
}
