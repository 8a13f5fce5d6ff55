// Template checks for every concrete step: `${{ … }}` must parse, name a documented thing, and,
// for another step's output or status, name one of the step's transitive needs (otherwise it could
// not be ready). That last question waits for the reachability index, so it comes back as queries.
import { didYouMean } from './didYouMean';
import type { Instance, PlanModel } from './expand';
import { fieldPath, type KeyPath, type Report } from './reporter';
import type { Reach } from './reachability';
import { classifyRef, parseTemplates, singleQuotedRefs, type TemplateRef } from './templates';

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
}

function fieldsOf(model: PlanModel, inst: Instance): Field[] {
  const out: Field[] = [];
  const push = (path: KeyPath, text: string | undefined, shell: boolean) => {
    if (text !== undefined) out.push({ path, text, shell, agentCommand: false });
  };
  push(['steps', inst.group, 'run'], inst.own.run, true);
  push(['steps', inst.group, 'prompt'], inst.own.prompt, false);
  inst.own.alternatives?.forEach((alt, i) => push(['steps', inst.group, 'alternatives', i, 'prompt'], alt.prompt, false));
  push(fieldPath(inst.group, inst.own, 'check'), inst.merged.check, true);
  const agent = inst.agent === undefined ? undefined : model.table.agents[inst.agent];
  if (agent && inst.agent !== undefined) {
    // Checked per step (what a template may name depends on the step), located where it is written.
    const name = inst.agent;
    const written = model.checked.agents[name] !== undefined;
    // A command written as one string was split into argv; its elements are not separate nodes.
    const asList = model.checked.listCommands.has(name);
    agent.command.forEach((arg, i) => {
      if (!arg.includes('${{')) return;
      const path: KeyPath = !written ? fieldPath(inst.group, inst.own, 'agent')
        : asList ? ['agents', name, 'command', i] : ['agents', name, 'command'];
      out.push({ path, text: arg, shell: false, agentCommand: true });
    });
  }
  return out;
}

/** Reports template problems that need no graph; returns the step references to check against it. */
export function checkTemplates(model: PlanModel, report: Report): StepRefQuery[] {
  const queries: StepRefQuery[] = [];
  const ids = [...model.byId.keys()];
  for (const inst of model.instances) {
    for (const f of fieldsOf(model, inst)) {
      const { refs, errors } = parseTemplates(f.text);
      const at = (r: { start: number; end: number }) => ({ within: { value: f.text, start: r.start, end: r.end } });
      for (const e of errors) report(f.path, e.message, 'template', at(e));
      for (const r of refs) {
        const problem = refProblem(r, f, inst, model, ids);
        if (typeof problem === 'string') report(f.path, problem, 'template', at(r));
        // A direct need (the usual case) is settled here, so only the rest needs the index.
        else if (problem && !(model.needs.get(inst.id) ?? []).includes(problem.ancestor)) {
          const message = `\${{ ${r.expr} }}: \`${problem.ancestor}\` is not among the steps ${inst.group} needs (add it to \`needs\`)`;
          queries.push({ step: inst.id, ancestor: problem.ancestor, report: () => report(f.path, message, 'template', at(r)) });
        }
      }
      if (!f.shell) continue;
      for (const r of singleQuotedRefs(f.text)) {
        // On the whole value, as the CLI has always shown it (the quotes are the point, not the template).
        report(f.path, `\${{ ${r.expr} }} is inside single quotes, where the shell would not expand it`, 'single-quoted', { severity: 'warning' });
      }
    }
  }
  return queries;
}

/** Reports each query whose step does not (transitively) need the step its template names. */
export function checkStepRefs(queries: readonly StepRefQuery[], reach: Reach): void {
  for (const q of queries) if (!reach.isAncestor(q.ancestor, q.step)) q.report();
}

function refProblem(r: TemplateRef, f: Field, inst: Instance, model: PlanModel, ids: readonly string[]): string | { ancestor: string } | undefined {
  const c = classifyRef(r.path);
  const shown = `\${{ ${r.expr} }}`;
  if (!c) return `unknown template ${shown}; expected context, matrix.<key>, env.<NAME>, steps.<id>.output, steps.<id>.status, plan.name, run.id or alternative.index`;
  switch (c.kind) {
    case 'prompt': return f.agentCommand ? undefined : `${shown} is only for agent commands`;
    case 'matrix': {
      const key = c.key ?? '';
      if (!inst.values) return `${shown}: the step has no matrix`;
      return key in inst.values ? undefined : `${shown}: no matrix key \`${key}\`${didYouMean(key, Object.keys(inst.values))}`;
    }
    case 'alternative-index': return inst.own['best-of'] !== undefined || inst.own.alternatives !== undefined ? undefined : `${shown}: the step has no \`best-of\` or \`alternatives\``;
    case 'step-output': case 'step-status': {
      const key = c.key ?? '';
      if (key === inst.id || key === inst.group) return `${shown}: a step cannot read its own ${c.kind === 'step-output' ? 'output' : 'status'}`;
      if (!model.byId.has(key)) return `${shown}: no step \`${key}\`${didYouMean(key, ids)}`;
      return { ancestor: key };
    }
    default: return undefined;
  }
}
