// The plan's step graph as far as the text says it: what a `needs` entry matches (a step, a
// matrix group, a glob) and which steps a step needs directly or not, as expand.ts resolves them.
import picomatch from 'picomatch';
import { STEP_ID } from '../plan/schema';
import type { PlanSnapshot } from './planSnapshot';

const isGlob = (entry: string): boolean => !STEP_ID.test(entry) && picomatch.scan(entry).isGlob;

/** The concrete ids a `needs` entry brings in (none when it names nothing). */
export function resolveNeed(snap: PlanSnapshot, entry: string): string[] {
  const group = snap.stepByGroup(entry);
  if (group) return [...group.ids];
  if (snap.groupOf(entry) !== undefined) return [entry];
  if (!isGlob(entry)) return [];
  const isMatch = picomatch(entry);
  return snap.allIds().filter((id) => isMatch(id));
}

/** Every concrete id `group` needs, directly or not, without its own; in file order. */
export function transitiveNeeds(snap: PlanSnapshot, group: string): string[] {
  const seen = new Set<string>([group]);
  const ids = new Set<string>();
  const queue = [group];
  while (queue.length > 0) {
    const step = snap.stepByGroup(queue.pop()!);
    if (!step) continue;
    for (const need of step.facts.needs) {
      for (const id of resolveNeed(snap, need.text)) {
        const g = snap.groupOf(id);
        if (g === group) continue;
        ids.add(id);
        if (g !== undefined && !seen.has(g)) { seen.add(g); queue.push(g); }
      }
    }
  }
  return snap.allIds().filter((id) => ids.has(id));
}

/** The groups a `needs` entry could be renamed with: a glob counts only when every match is in `group`. */
export function globWithin(snap: PlanSnapshot, entry: string, group: string): boolean {
  if (!isGlob(entry) || !entry.startsWith(group)) return false;
  const hits = resolveNeed(snap, entry);
  return hits.length > 0 && hits.every((id) => snap.groupOf(id) === group);
}

const reverse = new WeakMap<PlanSnapshot, Map<string, Set<string>>>();

/** Every group that needs `group`, directly or not (adding one of them to its needs makes a cycle). */
export function dependents(snap: PlanSnapshot, group: string): Set<string> {
  let back = reverse.get(snap);
  if (!back) {
    back = new Map();
    for (const s of snap.steps) {
      for (const n of s.facts.needs) {
        for (const id of resolveNeed(snap, n.text)) {
          const g = snap.groupOf(id);
          if (g === undefined) continue;
          let set = back.get(g);
          if (!set) back.set(g, (set = new Set()));
          set.add(s.facts.id);
        }
      }
    }
    reverse.set(snap, back);
  }
  const out = new Set<string>();
  const queue = [group];
  while (queue.length > 0) {
    for (const d of back.get(queue.pop()!) ?? []) if (!out.has(d)) { out.add(d); queue.push(d); }
  }
  return out;
}
