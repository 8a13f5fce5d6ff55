// The project's import graph, read with TypeScript's own pre-processor (every import, export-from
// and dynamic import, type-only ones included), and the layering rules of architecture.md checked
// over it. Kept apart from the test so a test can feed it a made-up tree and see it fail.
import { builtinModules } from 'node:module';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  readonly from: string;
  /** A project file (relative to the root, `/`-separated) or a bare package name. */
  readonly to: string;
  readonly internal: boolean;
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isBuiltin = (spec: string): boolean => BUILTINS.has(spec) || spec.startsWith('node:');

function sourceFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(root, path);
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path.split('\\').join('/')] : [];
  });
}

function resolveRelative(root: string, from: string, spec: string): string | undefined {
  const base = resolve(root, dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split('\\').join('/');
  }
  return undefined;
}

/** Every import of every source file under `dirs` (relative to `root`). */
export function importEdges(root: string, dirs: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of dirs.flatMap((d) => sourceFiles(root, d))) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (spec.startsWith('.')) {
        const target = resolveRelative(root, file, spec);
        if (target === undefined) throw new Error(`${file}: cannot resolve import '${spec}'`);
        edges.push({ from: file, to: target, internal: true });
      } else {
        edges.push({ from: file, to: spec, internal: false });
      }
    }
  }
  return edges;
}

const under = (file: string, dir: string): boolean => file.startsWith(`${dir}/`);

/** Layering violations, one sentence each: `file imports target (rule)`. */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  const say = (e: ImportEdge, rule: string): void => {
    found.push(`${e.from} imports ${e.to} (${rule})`);
  };
  for (const e of edges) {
    if (under(e.from, 'src/core')) {
      if (e.to === 'vscode') say(e, 'src/core never imports vscode');
      else if (e.internal && !under(e.to, 'src/core')) say(e, 'src/core imports nothing above it');
    }
    if (under(e.from, 'webview')) {
      if (e.internal && !under(e.to, 'webview') && !under(e.to, 'src/protocol'))
        say(e, 'webview/ talks only through src/protocol');
      if (e.to === 'vscode' || isBuiltin(e.to)) say(e, 'webview/ runs in a browser');
    }
    if (under(e.from, 'src/protocol')) {
      if (e.to === 'vscode') say(e, 'src/protocol never imports vscode');
      if (isBuiltin(e.to)) say(e, 'src/protocol is bundled into the webview: no Node built-ins');
      if (e.internal && !under(e.to, 'src/protocol') && !under(e.to, 'src/core'))
        say(e, 'src/protocol imports only itself and src/core');
    }
  }
  // What the webview bundles, transitively, must run in a browser.
  const byFile = new Map<string, ImportEdge[]>();
  for (const e of edges) byFile.set(e.from, [...(byFile.get(e.from) ?? []), e]);
  const seen = new Set<string>();
  const stack = edges.filter((e) => under(e.from, 'webview') && e.internal).map((e) => e.to);
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file) || under(file, 'webview')) continue;
    seen.add(file);
    for (const e of byFile.get(file) ?? []) {
      if (e.to === 'vscode' || isBuiltin(e.to)) say(e, 'bundled into the webview: runs in a browser');
      else if (e.internal) stack.push(e.to);
    }
  }
  return found;
}

/** Every import cycle among project files, each as its chain `a → b → … → a`, each cycle once. */
export function importCycles(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) if (e.internal) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components; a component of two or more files (or a self-import) is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(chainThrough(component, next));
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** One concrete loop through a component, for the message: a path from its first file back to it. */
function chainThrough(component: readonly string[], next: ReadonlyMap<string, readonly string[]>): string {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const chain = [v];
        while (chain[0] !== start) chain.unshift(from.get(chain[0]!)!);
        return [...chain, start].join(' → ');
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(' → ');
}

/** The room of `file` in `folder`: the child folder it lies in, or the file itself when it lies loose in `folder`. */
function roomOf(file: string, folder: string): string {
  const rest = file.slice(folder.length + 1);
  const slash = rest.indexOf('/');
  return slash < 0 ? file : `${folder}/${rest.slice(0, slash)}`;
}

/**
 * The import graph drawn at every scale under `top`: for each import between two files, an arrow
 * between the two rooms (child folders, or loose files) of the deepest folder that holds both.
 * A cycle among these is a loop at folder level even when no file imports itself round one.
 */
export function folderEdges(edges: readonly ImportEdge[], top: string): ImportEdge[] {
  const seen = new Set<string>();
  const out: ImportEdge[] = [];
  for (const e of edges) {
    if (!e.internal || !under(e.from, top) || !under(e.to, top)) continue;
    const a = e.from.split('/');
    const b = e.to.split('/');
    let common = 0;
    while (common < a.length - 1 && common < b.length - 1 && a[common] === b[common]) common += 1;
    const folder = a.slice(0, common).join('/');
    const from = roomOf(e.from, folder);
    const to = roomOf(e.to, folder);
    if (from === to || seen.has(`${from}\0${to}`)) continue;
    seen.add(`${from}\0${to}`);
    out.push({ from, to, internal: true });
  }
  return out;
}

/**
 * Imports between the rooms of `folder` that point up its order: `tiers` lists every room, ground
 * first; a room imports only rooms of its own tier or one below. A room the order does not name
 * is reported too, so a new folder is placed on purpose.
 */
export function orderViolations(
  edges: readonly ImportEdge[],
  folder: string,
  tiers: readonly (readonly string[])[],
): string[] {
  const rank = new Map<string, number>();
  tiers.forEach((tier, i) => {
    for (const name of tier) rank.set(`${folder}/${name}`, i);
  });
  const found = new Set<string>();
  for (const e of edges) {
    if (!e.internal || !under(e.from, folder)) continue;
    const from = roomOf(e.from, folder);
    for (const room of [from, ...(under(e.to, folder) ? [roomOf(e.to, folder)] : [])]) {
      if (!rank.has(room)) found.add(`${room} is in no tier of ${folder}'s order`);
    }
    if (!under(e.to, folder)) continue;
    const to = roomOf(e.to, folder);
    const [rf, rt] = [rank.get(from), rank.get(to)];
    if (rf !== undefined && rt !== undefined && rt > rf) {
      found.add(`${e.from} imports ${e.to} (an arrow back up: ${from} is below ${to} in ${folder}'s order)`);
    }
  }
  return [...found];
}
