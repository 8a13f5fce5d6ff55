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

/**
 * Every concrete id `group` needs, directly or not, without its own; in file order, each with the
 * direct need it comes through (undefined for a direct need).
 */
export function transitiveNeeds(snap: PlanSnapshot, group: string): { id: string; via?: string }[] {
  const viaOf = new Map<string, string | undefined>();
  const seen = new Set<string>([group]);
  // Breadth first from the direct needs, so each id is reached through its nearest direct need.
  let frontier: { group: string; via?: string }[] = [{ group }];
  while (frontier.length > 0) {
    const next: { group: string; via?: string }[] = [];
    for (const f of frontier) {
      const step = snap.stepByGroup(f.group);
      if (!step) continue;
      for (const need of step.facts.needs) {
        for (const id of resolveNeed(snap, need.text)) {
          const g = snap.groupOf(id);
          if (g === group) continue;
          const via = f.group === group ? undefined : (f.via ?? f.group);
          if (!viaOf.has(id)) viaOf.set(id, via);
          if (g !== undefined && !seen.has(g)) {
            seen.add(g);
            next.push({ group: g, via: via ?? g });
          }
        }
      }
    }
    frontier = next;
  }
  return snap
    .allIds()
    .filter((id) => viaOf.has(id))
    .map((id) => {
      const via = viaOf.get(id);
      return via === undefined ? { id } : { id, via };
    });
}

/** Whether `entry` is a glob that starts with `group` and matches only its ids (a rename carries it along). */
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
    for (const d of back.get(queue.pop()!) ?? [])
      if (!out.has(d)) {
        out.add(d);
        queue.push(d);
      }
  }
  return out;
}
