// Completion inside `${{ … }}`: the names a template may use at that place (templates.ts decides
// the shapes): `context`, this step's `matrix.<key>`, `env.<NAME>`, `steps.<id>.output|status`
// for the steps it needs directly or not, `plan.name`, `run.id`, `alternative.index` where a
// step races alternatives, and in a prompt `attempt.previous.reason|output`.
import type { Range } from '../plan/types';
import type { PlanSnapshot } from './planSnapshot';
import { transitiveNeeds } from './stepGraph';
import type { CompletionItem, ServiceContext } from './types';

interface Root {
  readonly label: string;
  readonly detail: string;
  readonly more: boolean;
}

/** Items for the expression typed so far (`steps.bu`), in the field at `path`. */
export function templateCompletion(
  snap: PlanSnapshot,
  path: readonly string[],
  expr: string,
  range: Range,
  ctx: ServiceContext,
): CompletionItem[] {
  const segs = expr.split('.');
  const group = path[0] === 'steps' ? path[1] : undefined;
  const step = group === undefined ? undefined : snap.stepByGroup(group);
  const item = (label: string, detail: string, more = false, documentation?: string): CompletionItem => ({
    label,
    kind: 'template',
    detail,
    range,
    ...(more ? { insertText: `${label}.`, retrigger: true } : {}),
    ...(documentation !== undefined ? { documentation } : {}),
  });
  const [head] = segs;
  if (segs.length === 1) {
    const roots: Root[] = [
      { label: 'context', detail: "the plan's shared context", more: false },
      { label: 'env', detail: 'an environment variable', more: true },
      { label: 'plan', detail: 'plan.name', more: true },
      { label: 'run', detail: 'run.id', more: true },
    ];
    if (step?.facts.matrix || group === undefined)
      roots.push({ label: 'matrix', detail: "this step's matrix values", more: true });
    if (group === undefined || (step && step.facts.needs.length > 0))
      roots.push({ label: 'steps', detail: "a needed step's output or status", more: true });
    if (group === undefined || step?.facts.keys.some((k) => k === 'best-of' || k === 'alternatives')) {
      roots.push({ label: 'alternative', detail: 'alternative.index (1…N)', more: true });
    }
    if (path[0] === 'agents')
      roots.push({ label: 'prompt', detail: "the step's prompt (agent commands)", more: false });
    if (path[0] === 'steps' && path[2] === 'prompt')
      roots.push({ label: 'attempt', detail: "attempt.previous: why a retry's previous attempt failed", more: true });
    return roots.map((r) => item(r.label, r.detail, r.more));
  }
  if (segs.length === 2) {
    switch (head) {
      case 'matrix':
        return Object.entries(step?.facts.matrix ?? {}).map(([k, vs]) => item(k, vs.join(', ')));
      case 'env': {
        const names = new Set([...snap.declared().env, ...(step?.facts.env ?? [])]);
        return [...names].map((n) => item(n, 'environment'));
      }
      case 'steps': {
        const ids =
          group === undefined ? snap.allIds().map((id) => ({ id, via: undefined })) : transitiveNeeds(snap, group);
        return ids.map(({ id, via }, i) => {
          const run = ctx.lastRun?.(id);
          const how = group === undefined ? undefined : via === undefined ? 'a direct need' : `through ${via}`;
          const detail = [how, run ? `last run: ${run.status}` : undefined].filter(Boolean).join(' · ');
          return { ...item(id, detail, true), sortText: String(i).padStart(6, '0') };
        });
      }
      case 'plan':
        return [item('name', snap.declared().planName ?? "the plan's name")];
      case 'run':
        return [item('id', "this run's id")];
      case 'alternative':
        return [item('index', "this alternative's number, 1…N")];
      case 'attempt':
        return [item('previous', 'the attempt before this one (empty on a first attempt)', true)];
      default:
        return [];
    }
  }
  if (head === 'attempt' && segs.length === 3 && segs[1] === 'previous') {
    return [
      item('reason', 'why it failed (check failed …, timed out …)'),
      item('output', "the end of its check's output, else of its own"),
    ];
  }
  if (head === 'steps' && segs.length === 3) {
    return [
      item('output', "the step's output (its `output` file or the end of its stdout)"),
      item('status', 'succeeded, failed, skipped…'),
    ];
  }
  return [];
}
