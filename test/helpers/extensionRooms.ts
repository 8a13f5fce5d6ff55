// The rooms of src/extension (architecture.md), checked over the import graph: every file sits in
// a feature's folder, each feature has one registerX that only extension.ts (the wiring) calls,
// and what the CLI borrows from the extension (the engine client) runs without VS Code.
import type { ImportEdge } from './importGraph';

const EXT = 'src/extension/';
const WIRING = 'src/extension/extension.ts';
/** Shared by the rooms (command ids, settings, pickers, status text, trust): no feature of its own. */
const SHARED_ROOMS = new Set(['common']);

const roomOf = (file: string): string | undefined =>
  file.startsWith(EXT) ? file.slice(EXT.length).split('/').slice(0, -1)[0] : undefined;
const isRegister = (file: string): boolean => roomOf(file) !== undefined && /\/register[A-Z]\w*\.ts$/.test(file);

/** Rule breaks in the extension's rooms, one sentence each. */
export function roomViolations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  const files = new Set(edges.flatMap((e) => [e.from, ...(e.internal ? [e.to] : [])]));
  const rooms = new Map<string, string[]>();
  for (const f of [...files].sort()) {
    if (!f.startsWith(EXT)) continue;
    const room = roomOf(f);
    if (room === undefined && f !== WIRING) found.push(`${f} sits outside a room (src/extension/<feature>/)`);
    if (room !== undefined && isRegister(f)) rooms.set(room, [...(rooms.get(room) ?? []), f]);
    else if (room !== undefined && !rooms.has(room)) rooms.set(room, []);
  }
  for (const [room, registers] of rooms) {
    if (SHARED_ROOMS.has(room)) continue;
    if (registers.length === 0) found.push(`src/extension/${room}/ has no registerX (one a room)`);
    else if (registers.length > 1)
      found.push(`src/extension/${room}/ has ${registers.length} registerX: ${registers.join(', ')}`);
  }
  for (const e of edges) {
    if (!e.internal) continue;
    if (e.to === WIRING) found.push(`${e.from} imports ${e.to} (nothing imports the wiring)`);
    if (isRegister(e.to) && e.from !== WIRING)
      found.push(`${e.from} imports ${e.to} (a room's registerX is called by extension.ts alone)`);
  }
  // What the CLI bundles from the extension, transitively, must run in plain Node.
  const byFile = new Map<string, ImportEdge[]>();
  for (const e of edges) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
  const seen = new Set<string>();
  const stack = edges
    .filter((e) => e.from.startsWith('src/cli/') && e.internal && e.to.startsWith(EXT))
    .map((e) => e.to);
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const e of byFile.get(file) ?? []) {
      if (e.to === 'vscode') found.push(`${e.from} imports vscode (bundled into the CLI: runs without VS Code)`);
      else if (e.internal) stack.push(e.to);
    }
  }
  return found;
}
