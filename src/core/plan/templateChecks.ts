// Template checks for every concrete step: `${{ … }}` must parse, name a documented thing, and,
// for another step's output or status, name one of the step's transitive needs (otherwise it could
// not be ready). That last question waits for the reachability index, so it comes back as queries.
import { takesText } from '../agents/promptInput';
import { hasOwnKey, ownValue } from './dict';
import { didYouMean } from './didYouMean';
import { isBestOf, type Instance, type PlanModel } from './expand';
import { fieldPath, type KeyPath, type Report } from './reporter';
import type { Reach } from './reachability';
import { classifyRef, parseTemplates, singleQuotedRefs, type TemplateRef } from '../templates';

// Locating a problem inside a value searches the value's source; a few per value say enough.
const MAX_FIELD_ERRORS = 10;

/** "Is `ancestor` among `step`'s needs?", to be answered once the order is known. */
export interface StepRefQuery {
  readonly step: string;
  readonly ancestor: string;
  readonly report: () => void;
}

interface Field {
  readonly path: KeyPath;
  readonly text: string;
  /** Agent commands may use `${{ prompt }}`; nothing else may. */
  readonly agentCommand: boolean;
  /** Shell source, where a template in single quotes would never expand. */
  readonly shell: boolean;
  /** A step's prompt: the only place a retry's `${{ attempt.previous.* }}` goes. */
  readonly prompt?: boolean;
}

function fieldsOf(model: PlanModel, inst: Instance): Field[] {
  const out: Field[] = [];
  const push = (path: KeyPath, text: string | undefined, shell: boolean) => {
    if (text !== undefined) out.push({ path, text, shell, agentCommand: false });
  };
  const agent = inst.agent === undefined ? undefined : ownValue(model.table.agents, inst.agent);
  // An agent that may run its prompt gets it as `run` gets its script: templates as references.
  const code = agent ? !takesText(agent) : false;
  push(['steps', inst.group, 'run'], inst.own.run, true);
  if (inst.own.prompt !== undefined)
    out.push({
      path: ['steps', inst.group, 'prompt'],
      text: inst.own.prompt,
      shell: code,
      agentCommand: false,
      prompt: true,
    });
  inst.own.alternatives?.forEach((alt, i) => {
    // An alternative's prompt goes to its own agent, which may run it as shell source where the step's does not.
    const altAgent = alt.agent === undefined ? agent : ownValue(model.table.agents, alt.agent);
    const altShell = altAgent ? !takesText(altAgent) : false;
    if (alt.prompt !== undefined)
      out.push({
        path: ['steps', inst.group, 'alternatives', i, 'prompt'],
        text: alt.prompt,
        shell: altShell,
        agentCommand: false,
        prompt: true,
      });
    for (const [k, v] of Object.entries(alt.env ?? {}))
      push(['steps', inst.group, 'alternatives', i, 'env', k], v, false);
  });
  push(fieldPath(inst.group, inst.own, 'check'), inst.merged.check, true);
  // `setup` runs in the step's worktree as `run` does; env values are rendered for the step.
  push(fieldPath(inst.group, inst.own, 'setup'), inst.merged.setup, true);
  for (const [k, v] of Object.entries(inst.merged.env ?? {})) {
    push(hasOwnKey(inst.own.env, k) ? ['steps', inst.group, 'env', k] : ['defaults', 'env', k], v, false);
  }
  if (agent && inst.agent !== undefined) {
    // Checked per step (what a template may name depends on the step), located where it is written.
    const name = inst.agent;
    const written = ownValue(model.checked.agents, name) !== undefined;
    // A command written as one string was split into argv; its elements are not separate nodes.
    const asList = model.checked.listCommands.has(name);
    agent.command.forEach((arg, i) => {
      if (!arg.includes('${{')) return;
      const path: KeyPath = !written
        ? fieldPath(inst.group, inst.own, 'agent')
        : asList
          ? ['agents', name, 'command', i]
          : ['agents', name, 'command'];
      out.push({ path, text: arg, shell: code, agentCommand: true });
    });
  }
  return out;
}

/** Reports template problems that need no graph; returns the step references to check against it. */
export function checkTemplates(model: PlanModel, report: Report): StepRefQuery[] {
  const queries: StepRefQuery[] = [];
  const ids = [...model.byId.keys()];
  checkPlanEnv(model, report, ids);
  for (const inst of model.instances) {
    for (const f of fieldsOf(model, inst)) {
      const { refs, errors } = parseTemplates(f.text);
      const at = (r: { start: number; end: number }) => ({ within: { value: f.text, start: r.start, end: r.end } });
      for (const e of errors.slice(0, MAX_FIELD_ERRORS)) report(f.path, e.message, 'template', at(e));
      if (errors.length > MAX_FIELD_ERRORS) {
        const rest = errors.slice(MAX_FIELD_ERRORS);
        report(f.path, `and ${rest.length} more template problems in this value`, 'template', at(rest[0]!));
      }
      for (const r of refs) {
        const problem = refProblem(r, f, inst, model, ids);
        if (typeof problem === 'string') report(f.path, problem, 'template', at(r));
        // A direct need (the usual case) is settled here, so only the rest needs the index.
        else if (problem && !(model.needs.get(inst.id) ?? []).includes(problem.ancestor)) {
          const message = `\${{ ${r.expr} }}: \`${problem.ancestor}\` is not among the steps ${inst.group} needs (add it to \`needs\`)`;
          queries.push({
            step: inst.id,
            ancestor: problem.ancestor,
            report: () => report(f.path, message, 'template', at(r)),
          });
        }
      }
      if (!f.shell) continue;
      for (const r of singleQuotedRefs(f.text)) {
        // On the whole value, as the CLI has always shown it (the quotes are the point, not the template).
        report(
          f.path,
          `\${{ ${r.expr} }} is inside single quotes, where the shell would not expand it`,
          'single-quoted',
          { severity: 'warning' },
        );
      }
    }
  }
  return queries;
}

/** The plan's `env` is rendered for every step: its templates must parse and name documented things. */
function checkPlanEnv(model: PlanModel, report: Report, ids: readonly string[]): void {
  for (const [k, v] of Object.entries(model.checked.top.env ?? {})) {
    const { refs, errors } = parseTemplates(v);
    const at = (r: { start: number; end: number }) => ({ within: { value: v, start: r.start, end: r.end } });
    for (const e of errors.slice(0, MAX_FIELD_ERRORS)) report(['env', k], e.message, 'template', at(e));
    for (const r of refs) {
      const c = classifyRef(r.path);
      const shown = `\${{ ${r.expr} }}`;
      const problem = !c
        ? `unknown template ${shown}; expected context, matrix.<key>, env.<NAME>, steps.<id>.output, steps.<id>.status, plan.name or run.id`
        : c.kind === 'prompt'
          ? `${shown} is only for agent commands`
          : (c.kind === 'step-output' || c.kind === 'step-status') && !model.byId.has(c.key ?? '')
            ? `${shown}: no step \`${c.key}\`${didYouMean(c.key ?? '', ids)}`
            : undefined;
      if (problem) report(['env', k], problem, 'template', at(r));
    }
  }
}

/** Reports each query whose step does not (transitively) need the step its template names. */
export function checkStepRefs(queries: readonly StepRefQuery[], reach: Reach): void {
  for (const q of queries) if (!reach.isAncestor(q.ancestor, q.step)) q.report();
}

function refProblem(
  r: TemplateRef,
  f: Field,
  inst: Instance,
  model: PlanModel,
  ids: readonly string[],
): string | { ancestor: string } | undefined {
  const c = classifyRef(r.path);
  const shown = `\${{ ${r.expr} }}`;
  if (!c)
    return `unknown template ${shown}; expected context, matrix.<key>, env.<NAME>, steps.<id>.output, steps.<id>.status, plan.name, run.id, attempt.previous.reason/output or alternative.index`;
  switch (c.kind) {
    case 'prompt':
      return f.agentCommand ? undefined : `${shown} is only for agent commands`;
    case 'attempt-reason':
    case 'attempt-output':
      return f.prompt ? undefined : `${shown} is only for prompts (a retry is told why the attempt before it failed)`;
    case 'matrix': {
      const key = c.key ?? '';
      if (!inst.values) return `${shown}: the step has no matrix`;
      return hasOwnKey(inst.values, key)
        ? undefined
        : `${shown}: no matrix key \`${key}\`${didYouMean(key, Object.keys(inst.values))}`;
    }
    case 'alternative-index':
      return isBestOf(inst.own) ? undefined : `${shown}: the step has no \`best-of\` or \`alternatives\``;
    case 'step-output':
    case 'step-status': {
      const key = c.key ?? '';
      if (key === inst.id || key === inst.group)
        return `${shown}: a step cannot read its own ${c.kind === 'step-output' ? 'output' : 'status'}`;
      if (!model.byId.has(key)) return `${shown}: no step \`${key}\`${didYouMean(key, ids)}`;
      return { ancestor: key };
    }
    default:
      return undefined;
  }
}
