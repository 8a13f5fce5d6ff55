// Completion by position: the keys the schema allows in the mapping being typed (with their docs),
// the values a field takes (enums, agents, pools), step ids and globs in `needs`, and template
// names inside `${{ }}`. Read from the text around the cursor, so half-typed YAML still answers.
import { PRESETS } from '../agents/presets';
import type { KeyDocs } from '../plan/keyDocs';
import type { Position } from '../plan/types';
import { cursorContext, isSignificant, lineShape, type CursorContext } from './cursorContext';
import { fixedValues, keyDoc, keysFor, scopeOf, typeOf } from './planKeys';
import type { PlanSnapshot } from './planSnapshot';
import { dependents, resolveNeed } from './stepGraph';
import { templateCompletion } from './templateCompletion';
import type { CompletionItem, ServiceContext } from './types';

/** Completion items at `pos`; `trigger` is the character that asked, if one did. */
export function complete(
  snap: PlanSnapshot,
  pos: Position,
  docs: KeyDocs,
  ctx: ServiceContext = {},
  trigger?: string,
): CompletionItem[] {
  const c = cursorContext(snap.lines, pos.line, pos.column);
  switch (c.kind) {
    case 'template':
      return templateCompletion(snap, c.path, c.expr, c.range, ctx);
    case 'key': {
      if (ctx.schemaServed || trigger === ' ' || trigger === '.' || !scopeOf(c.path)) return [];
      const present = siblingKeys(snap.lines, c.line, c.indent);
      // `run` and `prompt` exclude each other.
      if (present.has('run')) present.add('prompt');
      if (present.has('prompt')) present.add('run');
      return keysFor(c.path)
        .filter((k) => !present.has(k))
        .map((k) => {
          const doc = keyDoc(c.path, k, docs);
          const type = typeOf(doc);
          return {
            label: k,
            kind: 'key',
            insertText: `${k}: `,
            range: c.range,
            ...(type ? { detail: type } : {}),
            ...(doc ? { documentation: doc } : {}),
          };
        });
    }
    case 'value': {
      // Asked by typing the colon itself: the value needs its space.
      const spaced = (snap.lines[pos.line] ?? '').slice(0, pos.column).endsWith(':');
      const items = valueItems(snap, c, ctx);
      return spaced ? items.map((i) => ({ ...i, insertText: ` ${i.insertText ?? i.label}` })) : items;
    }
    case 'none':
      return [];
  }
}

function valueItems(
  snap: PlanSnapshot,
  c: Extract<CursorContext, { kind: 'value' }>,
  ctx: ServiceContext,
): CompletionItem[] {
  const key = c.path[c.path.length - 1] ?? '';
  const parent = c.path.slice(0, -1);
  const scope = scopeOf(parent);
  if (!scope) return [];
  if (key === 'needs' && scope === 'step') return needsItems(snap, parent[1] ?? '', c.prefix, c.range);
  if (key === 'agent' && scope !== 'agent') return agentItems(snap, ctx, c.range);
  if (key === 'pool') return poolItems(snap, c.range);
  if (ctx.schemaServed || c.inList) return [];
  return fixedValues(parent, key).map((v) => ({ label: v, kind: 'value', range: c.range }));
}

/** The keys already written in the mapping a line belongs to (same indentation, no shallower line between). */
function siblingKeys(lines: readonly string[], line: number, indent: number): Set<string> {
  const out = new Set<string>();
  const scan = (from: number, step: 1 | -1) => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const l = lines[i]!;
      if (!isSignificant(l)) continue;
      const s = lineShape(l);
      if (s.indent < indent) return;
      if (s.indent === indent && s.key !== undefined && s.dashes === 0) out.add(s.key);
    }
  };
  scan(line - 1, -1);
  scan(line + 1, 1);
  return out;
}

function needsItems(
  snap: PlanSnapshot,
  group: string,
  prefix: string,
  range: CompletionItem['range'],
): CompletionItem[] {
  const own = new Set(snap.stepByGroup(group)?.ids ?? [group]);
  own.add(group);
  // A step that needs this one, directly or not, would close a cycle.
  for (const d of dependents(snap, group))
    for (const id of snap.stepByGroup(d)?.ids ?? [d]) {
      own.add(id);
      own.add(d);
    }
  const listed = new Set(snap.stepByGroup(group)?.facts.needs.map((n) => n.text) ?? []);
  const covered = new Set([...listed].flatMap((e) => resolveNeed(snap, e)));
  const items: CompletionItem[] = [];
  for (const s of snap.steps) {
    if (own.has(s.facts.id) || listed.has(s.facts.id)) continue;
    const detail = s.facts.matrix
      ? `matrix: ${s.ids.length} steps`
      : s.facts.kind === 'agent'
        ? `agent ${s.facts.agent ?? snap.declared().defaultAgent ?? 'claude'}`
        : 'run';
    items.push({ label: s.facts.id, kind: 'step', detail, range, sortText: `0${s.facts.id}` });
    if (!s.facts.matrix) continue;
    for (const id of s.ids)
      if (!covered.has(id))
        items.push({ label: id, kind: 'step', detail: `in matrix ${s.facts.id}`, range, sortText: `1${id}` });
  }
  const globs = new Set<string>();
  for (const s of snap.steps) if (s.facts.matrix && !own.has(s.facts.id)) globs.add(`${s.facts.id}-*`);
  if (prefix !== '' && !prefix.includes('*')) globs.add(`${prefix}*`);
  for (const g of globs) {
    const hits = resolveNeed(snap, g).filter((id) => !own.has(id));
    // A glob is worth offering when it names more than one step it could need.
    if (hits.length < 2 || listed.has(g) || hits.every((id) => covered.has(id))) continue;
    const shown = hits.slice(0, 5).join(', ') + (hits.length > 5 ? ', …' : '');
    items.push({ label: g, kind: 'glob', detail: `matches ${hits.length}: ${shown}`, range, sortText: `2${g}` });
  }
  return items;
}

function agentItems(snap: PlanSnapshot, ctx: ServiceContext, range: CompletionItem['range']): CompletionItem[] {
  const mine = snap.declared().agents;
  const names = new Map<string, string>();
  for (const n of Object.keys(PRESETS)) names.set(n, `preset: ${PRESETS[n]!.command[0] ?? n}`);
  for (const n of ctx.agents ?? []) names.set(n, 'from settings');
  for (const n of mine) names.set(n, "this plan's `agents:`");
  return [...names].map(([label, detail]) => ({ label, kind: 'agent', detail, range }));
}

function poolItems(snap: PlanSnapshot, range: CompletionItem['range']): CompletionItem[] {
  const names = new Map<string, string>();
  for (const a of Object.values(PRESETS)) if (a.pool) names.set(a.pool, `the ${a.name} preset's pool`);
  for (const p of snap.declared().pools) names.set(p, "this plan's `pools:`");
  return [...names].map(([label, detail]) => ({ label, kind: 'pool', detail, range }));
}
