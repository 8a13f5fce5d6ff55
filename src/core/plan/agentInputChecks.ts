// The plan-side half of promptInput.ts's rule. An agent that takes its prompt as text gets values,
// so each must be a whole argument (a template spliced into longer text is refused) that no
// program reads as an option: after `--`, or an option's `--name=` value; a bare `${{ prompt }}`
// only for prompts that start with plain text. Each refusal located, with what to write instead.
// An agent the plan defines without saying how it takes its prompt is treated as code (templates
// stay references); where that changes what it gets, a warning says so.
import { promptWithContext } from '../agents/invocation';
import {
  bareMessage,
  bareTemplates,
  promptStartProblem,
  splicedMessage,
  splicedTemplates,
  takesText,
} from '../agents/promptInput';
import type { AgentDef } from '../agents/agentDef';
import { ownValue } from './dict';
import type { Instance, PlanModel } from './expand';
import { fieldPath, type KeyPath, type Report } from './reporter';
import { classifyRef, parseTemplates } from '../templates';

/** Reports text agents' templates that are spliced or bare, and plan agents whose `input` would matter unsaid. */
export function checkAgentInputs(model: PlanModel, report: Report): void {
  const checked = new Set<string>();
  const warned = new Set<string>();
  const prompts = new Set<string>();
  // A context that cannot start a prompt is one error, however many steps it goes to.
  const contextReported = new Set<string>();
  const context = model.checked.top.context;
  const hasContext = (context ?? '').trim() !== '';
  for (const inst of model.instances) {
    if (inst.own.run !== undefined) continue;
    // The step's agent with its prompt, then each alternative's (its own prompt, else the step's).
    const uses: { name: string | undefined; prompt: string | undefined; path: KeyPath }[] = [
      { name: inst.agent, prompt: inst.own.prompt, path: ['steps', inst.group, 'prompt'] },
      ...(inst.own.alternatives ?? []).map((a, i) => ({
        name: a.agent ?? inst.agent,
        prompt: a.prompt ?? inst.own.prompt,
        path:
          a.prompt !== undefined ? ['steps', inst.group, 'alternatives', i, 'prompt'] : ['steps', inst.group, 'prompt'],
      })),
    ];
    for (const use of uses) {
      const name = use.name;
      if (name === undefined) continue;
      const agent = ownValue(model.table.agents, name);
      if (!agent) continue;
      const written = ownValue(model.checked.agents, name);
      const commandPath = (i: number): KeyPath =>
        !written
          ? fieldPath(inst.group, inst.own, 'agent')
          : model.checked.listCommands.has(name)
            ? ['agents', name, 'command', i]
            : ['agents', name, 'command'];
      if (!checked.has(name)) {
        checked.add(name);
        if (takesText(agent)) checkCommand(agent, commandPath, report);
      }
      const key = `${use.path.join('\0')}\0${name}`;
      if (takesText(agent) && use.prompt !== undefined && !prompts.has(key)) {
        prompts.add(key);
        checkPromptStart(agent, use.prompt, use.path, context, report, contextReported);
      }
      if (!written || written.input !== undefined || warned.has(name)) continue;
      if (!inputMatters(inst, name, hasContext && agent.context)) continue;
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

/** A text agent's command: each template spliced into longer text, and each value a bare argument. */
function checkCommand(agent: AgentDef, path: (i: number) => KeyPath, report: Report): void {
  agent.command.forEach((arg, i) => {
    for (const r of splicedTemplates(arg))
      report(path(i), splicedMessage(r), 'spliced-template', { within: { value: arg, start: r.start, end: r.end } });
  });
  for (const b of bareTemplates(agent)) {
    if (b.ref.path.length === 1 && b.ref.path[0] === 'prompt') continue; // the prompt's own start decides
    const arg = agent.command[b.index]!;
    report(path(b.index), bareMessage(b.ref, b.option), 'bare-template', {
      within: { value: arg, start: b.ref.start, end: b.ref.end },
    });
  }
}

/** A prompt going to a bare `${{ prompt }}`: what starts it (the context, where the agent is given it) must be plain text; `reported`: agents whose context error is out. */
function checkPromptStart(
  agent: AgentDef,
  prompt: string,
  path: KeyPath,
  context: string | undefined,
  report: Report,
  reported: Set<string>,
): void {
  if (!bareTemplates(agent).some((b) => b.ref.path.length === 1 && b.ref.path[0] === 'prompt')) return;
  const usesContext = parseTemplates(prompt).refs.some((r) => classifyRef(r.path)?.kind === 'context');
  const lead = promptWithContext(agent, prompt, context, usesContext);
  const inFront = lead !== prompt;
  const problem = promptStartProblem(lead, agent.name, inFront);
  if (!problem || (inFront && reported.has(agent.name))) return;
  if (inFront) reported.add(agent.name);
  const where: KeyPath = inFront ? ['context'] : path;
  const value = inFront ? context! : prompt;
  report(
    where,
    problem.message,
    'bare-prompt',
    problem.ref ? { within: { value, start: problem.ref.start, end: problem.ref.end } } : {},
  );
}

/** Whether a plan agent's unsaid `input` changes what it gets: a templated prompt, or the plan's context. */
function inputMatters(inst: Instance, name: string, context: boolean): boolean {
  const prompts = [
    inst.own.prompt,
    ...(inst.own.alternatives ?? []).filter((a) => (a.agent ?? inst.agent) === name).map((a) => a.prompt),
  ];
  return context || prompts.some((p) => p !== undefined && parseTemplates(p).refs.length > 0);
}
