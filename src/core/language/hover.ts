// Hover: a key's docs (the format's own tables), and on a step id (its key, a `needs` entry, a
// `${{ steps.<id>… }}`) what the step is, what it needs and how its last run went.
import { formatDuration } from '../format';
import type { KeyDocs } from '../plan/keyDocs';
import type { Position } from '../plan/types';
import { lineShape, parentPath } from './cursorContext';
import { keyDoc } from './planKeys';
import type { PlanSnapshot } from './planSnapshot';
import { resolveNeed } from './stepGraph';
import { stepRefAt } from './stepRefs';
import type { Hover, ServiceContext } from './types';

/** The hover at `pos`, if there is something to say. */
export function hover(snap: PlanSnapshot, pos: Position, docs: KeyDocs, ctx: ServiceContext = {}): Hover | undefined {
  const ref = stepRefAt(snap, pos);
  if (ref) {
    const contents =
      ref.kind === 'need' && snap.groupOf(ref.text) === undefined
        ? globText(snap, ref.text)
        : stepText(snap, ref.text, ctx);
    return contents === undefined ? undefined : { contents, range: ref.range };
  }
  if (ctx.schemaServed) return undefined;
  const l = snap.lines[pos.line];
  if (l === undefined) return undefined;
  const s = lineShape(l);
  if (s.key === undefined || pos.column < s.keyStart || pos.column > s.keyEnd) return undefined;
  const path = parentPath(snap.lines, pos.line, s.contentStart, s.dashes > 0);
  const doc = keyDoc(path, s.key, docs);
  if (doc === undefined) return undefined;
  return {
    contents: `**${s.key}**${doc === '' ? '' : ` — ${doc}`}`,
    range: { start: { line: pos.line, column: s.keyStart }, end: { line: pos.line, column: s.keyEnd } },
  };
}

const code = (s: string): string => `\`${s}\``;

function stepText(snap: PlanSnapshot, id: string, ctx: ServiceContext): string | undefined {
  const group = snap.groupOf(id);
  const step = group === undefined ? undefined : snap.stepByGroup(group);
  if (!step) return `unknown step ${code(id)}`;
  const f = step.facts;
  const what = f.kind === 'agent' ? `agent ${code(f.agent ?? snap.declared().defaultAgent ?? 'claude')}` : 'run';
  const lines = [`**${id}** · ${what}${id !== f.id ? ` · in matrix ${code(f.id)}` : ''}`];
  if (f.matrix && id === f.id)
    lines.push(`matrix: ${Object.keys(f.matrix).map(code).join(' × ')} → ${step.ids.length} steps`);
  lines.push(f.needs.length === 0 ? 'needs nothing' : `needs ${f.needs.map((n) => code(n.text)).join(', ')}`);
  const runs = (id === f.id ? step.ids : [id]).flatMap((i) => {
    const r = ctx.lastRun?.(i);
    return r
      ? [
          `${step.ids.length > 1 ? `${code(i)}: ` : ''}${r.status}${r.durationMs !== undefined ? ` in ${formatDuration(r.durationMs)}` : ''}`,
        ]
      : [];
  });
  if (runs.length > 0) lines.push(`last run: ${runs.slice(0, 6).join('; ')}${runs.length > 6 ? '; …' : ''}`);
  return lines.join('\n\n');
}

function globText(snap: PlanSnapshot, glob: string): string {
  const hits = resolveNeed(snap, glob);
  if (hits.length === 0) return `${code(glob)} matches no step`;
  return `${code(glob)} matches ${hits.length} step${hits.length === 1 ? '' : 's'}: ${hits.slice(0, 10).map(code).join(', ')}${hits.length > 10 ? ', …' : ''}`;
}
