// The plan-side half of promptInput.ts's rule. An agent that takes its prompt as text gets values,
// so each must be a whole argument: a template spliced into longer text is refused, located, with
// what to write instead. An agent the plan defines without saying how it takes its prompt is
// treated as code (templates stay references); where that changes what it gets, a warning says so.
import { splicedMessage, splicedTemplates, takesText } from '../agents/promptInput';
import { ownValue } from './dict';
import type { PlanModel } from './expand';
import { fieldPath, type KeyPath, type Report } from './reporter';
import { parseTemplates } from '../templates';

/** Reports spliced templates in text agents' commands and plan agents whose `input` would matter unsaid. */
export function checkAgentInputs(model: PlanModel, report: Report): void {
  const checked = new Set<string>();
  const warned = new Set<string>();
  const context = (model.checked.top.context ?? '').trim() !== '';
  for (const inst of model.instances) {
    const names = [inst.agent, ...(inst.own.alternatives ?? []).map((a) => a.agent)];
    for (const name of names) {
      if (name === undefined || inst.own.run !== undefined) continue;
      const agent = ownValue(model.table.agents, name);
      if (!agent) continue;
      const written = ownValue(model.checked.agents, name);
      if (!checked.has(name)) {
        checked.add(name);
        if (takesText(agent)) {
          const asList = model.checked.listCommands.has(name);
          agent.command.forEach((arg, i) => {
            const path: KeyPath = !written
              ? fieldPath(inst.group, inst.own, 'agent')
              : asList
                ? ['agents', name, 'command', i]
                : ['agents', name, 'command'];
            for (const r of splicedTemplates(arg))
              report(path, splicedMessage(r), 'spliced-template', {
                within: { value: arg, start: r.start, end: r.end },
              });
          });
        }
      }
      if (!written || written.input !== undefined || warned.has(name)) continue;
      const prompts = [
        inst.own.prompt,
        ...(inst.own.alternatives ?? []).filter((a) => (a.agent ?? inst.agent) === name).map((a) => a.prompt),
      ];
      const templated = prompts.some((p) => p !== undefined && parseTemplates(p).refs.length > 0);
      if (!templated && !(context && agent.context)) continue;
      warned.add(name);
      report(
        ['agents', name],
        `\`input\` is not set, so ${name} is given its prompt as code: each template as a \`\${BRAID_…}\` reference (the value in its environment), without the plan's context. ` +
          `Add \`input: text\` if ${name} reads its prompt as text and never runs it, or \`input: code\` if it may run it (a shell, \`python3 -c\`)`,
        'agent-input',
        { severity: 'warning', key: true },
      );
    }
  }
}
