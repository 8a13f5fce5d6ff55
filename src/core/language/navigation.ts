// Go to Definition, Find All References and Rename for step ids. A matrix step is one key but
// several ids (`build` → `build-linux`, `build-mac`): every one of them leads to the key, and a
// rename rewrites the key, the group's and each concrete id's mentions, and globs that only ever
// matched this step, as one edit set.
import { STEP_ID } from '../plan/schema';
import type { Position, Range } from '../plan/types';
import type { PlanSnapshot } from './planSnapshot';
import { globWithin } from './stepGraph';
import { allStepRefs, inner, stepRefAt, type StepRef } from './stepRefs';
import type { Location, TextEdit } from './types';

/** The step key that the id under the cursor names. */
export function definition(snap: PlanSnapshot, pos: Position): Location | undefined {
  const ref = stepRefAt(snap, pos);
  const group = ref ? snap.groupOf(ref.text) : undefined;
  const step = group === undefined ? undefined : snap.stepByGroup(group);
  return step ? { range: snap.range(step.piece, inner(step.piece, step.facts.keySpan)) } : undefined;
}

/** How a reference names `group`: as the group itself, as one of its concrete ids, as a glob only it matches, or not. */
function naming(snap: PlanSnapshot, ref: StepRef, group: string): 'group' | 'id' | 'glob' | undefined {
  if (ref.text === group) return 'group';
  if (snap.groupOf(ref.text) === group) return 'id';
  if (ref.kind === 'need' && globWithin(snap, ref.text, group)) return 'glob';
  return undefined;
}

/** Every mention of the step under the cursor (its key first when `includeDeclaration`). */
export function references(snap: PlanSnapshot, pos: Position, includeDeclaration = true): Location[] {
  const ref = stepRefAt(snap, pos);
  const group = ref ? snap.groupOf(ref.text) : undefined;
  if (group === undefined) return [];
  // A glob is not a mention: it names whatever matches it.
  const named = (r: StepRef): boolean => {
    const how = naming(snap, r, group);
    return how === 'group' || how === 'id';
  };
  return allStepRefs(snap)
    .filter((r) => (includeDeclaration || r.kind !== 'key') && named(r))
    .map((r) => ({ range: r.range }));
}

/** The id under the cursor that a rename would change, or why there is none. */
export function prepareRename(snap: PlanSnapshot, pos: Position): { range: Range; text: string } | { error: string } {
  const ref = stepRefAt(snap, pos);
  if (!ref) return { error: 'not a step id' };
  if (snap.groupOf(ref.text) === undefined)
    return {
      error: ref.kind === 'need' ? 'a glob or an unknown step: rename the step itself' : `unknown step \`${ref.text}\``,
    };
  return { range: ref.range, text: ref.text };
}

/** The edits that rename the step under the cursor to `newName` (a group name), or why not. */
export function rename(snap: PlanSnapshot, pos: Position, newName: string): { edits: TextEdit[] } | { error: string } {
  const ref = stepRefAt(snap, pos);
  const group = ref ? snap.groupOf(ref.text) : undefined;
  if (!ref || group === undefined) return { error: 'not a step id' };
  // Renaming from a concrete id (`build-linux`) names the new id; the group keeps the same suffix.
  const suffix = ref.text === group ? '' : ref.text.slice(group.length);
  const to = suffix !== '' && newName.endsWith(suffix) ? newName.slice(0, newName.length - suffix.length) : newName;
  if (!STEP_ID.test(to))
    return {
      error: `\`${to}\` is not a step id: it starts with a letter and holds letters, digits, _ and - (at most 64)`,
    };
  if (to !== group && snap.stepByGroup(to)) return { error: `a step \`${to}\` already exists` };
  const edits: TextEdit[] = [];
  for (const r of allStepRefs(snap)) {
    const how = naming(snap, r, group);
    if (how === undefined) continue;
    edits.push({ range: r.range, newText: to + r.text.slice(group.length) });
  }
  return { edits };
}
