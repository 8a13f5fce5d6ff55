// Checks of a best-of step (`best-of`, `alternatives`, `pick`): every alternative runs in a
// worktree of its own, so the step must be a worktree step in a git workspace; `pick: check`
// scores by the `check` command, so it needs one; an alternative names a known agent whose CLI
// can take its model and the step's other asks.
import { stepAgentProblems } from '../agents/stepAgent';
import { ownValue } from './dict';
import { hint } from './didYouMean';
import { isBestOf, type ExpandOptions, type Instance, type PlanModel } from './expand';
import { fieldPath, type Report } from './reporter';

/** Reports the best-of problems of one step (once for a matrix step). */
export function checkBestOf(model: PlanModel, inst: Instance, opts: ExpandOptions, report: Report): void {
  const own = inst.own;
  const at = (key: string): (string | number)[] => ['steps', inst.group, key];
  if (!isBestOf(own)) {
    if (own.pick !== undefined)
      report(at('pick'), '`pick` chooses among alternatives: add `best-of: N` or `alternatives`', 'best-of', {
        key: true,
      });
    return;
  }
  const key = own.alternatives !== undefined ? 'alternatives' : 'best-of';
  if (own['best-of'] !== undefined && own.alternatives !== undefined) {
    report(
      at('best-of'),
      'use `best-of: N` (N copies of the step) or `alternatives` (each named), not both; remove `best-of`',
      'best-of',
      { key: true },
    );
  }
  if (!opts.isGit) {
    report(
      at(key),
      `\`${key}\` runs each alternative in a git worktree of its own: open the plan in a git repository, or remove \`${key}\``,
      'best-of',
      { key: true },
    );
  } else if (inst.isolation === 'shared') {
    report(
      fieldPath(inst.group, own, 'isolation'),
      `\`${key}\` needs \`isolation: worktree\` (each alternative works in its own tree); use \`worktree\` here`,
      'best-of',
      { suggestion: 'worktree' },
    );
  }
  if (own.pick === 'check' && inst.merged.check === undefined) {
    report(
      at('pick'),
      '`pick: check` scores each alternative by the line `score: N` its `check` prints (or the number it writes to $BRAID_SCORE_FILE): add `check`, or use `pick: first`',
      'best-of',
      { key: true },
    );
  }
  (own.alternatives ?? []).forEach((alt, i) => {
    if (alt.agent !== undefined && !model.table.known.has(alt.agent)) {
      const h = hint(alt.agent, [...model.table.known]);
      report(
        ['steps', inst.group, 'alternatives', i, 'agent'],
        `unknown agent \`${alt.agent}\`${h.text}`,
        'unknown-agent',
        h.fix,
      );
    }
    if (inst.kind === 'run' && (alt.agent !== undefined || alt.prompt !== undefined || alt.model !== undefined)) {
      report(
        ['steps', inst.group, 'alternatives', i],
        'an alternative of a `run` step may only set `env` (agent, model and prompt are for `prompt` steps)',
        'best-of',
      );
    } else if (inst.kind === 'prompt') {
      checkAlternativeAsks(model, inst, i, report);
    }
  });
}

/**
 * An alternative's agent gets its own `model` (else the step's) and the step's `max-turns`,
 * `permission` and `tools`, as flags (agents/stepAgent.ts): each must be one its CLI takes. What
 * the step's own agent cannot take is reported at the step already.
 */
function checkAlternativeAsks(model: PlanModel, inst: Instance, i: number, report: Report): void {
  const alt = inst.own.alternatives?.[i];
  const name = alt?.agent ?? inst.agent;
  const agent = name === undefined ? undefined : ownValue(model.table.agents, name);
  if (!alt || !agent || (alt.agent === undefined && alt.model === undefined)) return;
  const m = inst.merged;
  const ownModel = inst.alternativeModels?.[i];
  const mdl = ownModel ?? inst.model;
  const problems = stepAgentProblems(agent, {
    ...(mdl !== undefined ? { model: mdl } : {}),
    ...(m['max-turns'] !== undefined ? { maxTurns: m['max-turns'] } : {}),
    ...(m.permission !== undefined ? { permission: m.permission } : {}),
    ...(m.tools !== undefined ? { tools: m.tools } : {}),
  });
  const at = ['steps', inst.group, 'alternatives', i];
  for (const p of problems) {
    if (p.key === 'model' && ownModel !== undefined) report([...at, 'model'], p.message, 'agent-flag');
    // The same agent as the step's: its problems with the step's asks are reported there.
    else if (alt.agent !== undefined) report([...at, 'agent'], `the step's \`${p.key}\`: ${p.message}`, 'agent-flag');
  }
}
