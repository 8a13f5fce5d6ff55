// What one parsed piece of a plan says that the other pieces need: the steps it defines (id,
// needs, matrix, agent), the names it declares (agents, pools, env) and every place it names a
// step. Read from the syntax tree, so a half-typed piece still yields what is well-formed in it.
// Offsets are the piece's own; the snapshot moves them to the document.
import { isMap, isPair, isScalar, isSeq, visit, type Document, type Node as YamlNode } from 'yaml';

export type Span = readonly [number, number];

export interface NeedEntry {
  readonly text: string;
  readonly span: Span;
}

export interface StepFacts {
  readonly id: string;
  readonly keySpan: Span;
  /** From the key to the end of its value. */
  readonly span: Span;
  readonly needs: readonly NeedEntry[];
  readonly matrix?: Readonly<Record<string, readonly string[]>>;
  readonly agent?: string;
  readonly kind: 'run' | 'agent';
  /** Keys written in the step (`best-of`, `alternatives` unlock `${{ alternative.index }}`). */
  readonly keys: readonly string[];
  readonly env: readonly string[];
}

/** `steps.<id>` inside a template: the id's span. */
export interface TemplateStepRef {
  readonly id: string;
  readonly span: Span;
}

export interface ChunkFacts {
  readonly steps: readonly StepFacts[];
  readonly agents: readonly string[];
  readonly pools: readonly string[];
  readonly env: readonly string[];
  readonly defaultsEnv: readonly string[];
  readonly defaultAgent?: string;
  readonly planName?: string;
  readonly templateRefs: readonly TemplateStepRef[];
}

const str = (n: unknown): string | undefined =>
  isScalar(n) && n.value !== null && n.value !== undefined && typeof n.value !== 'object' ? String(n.value) : undefined;
const span = (n: unknown): Span | undefined => {
  const r = (n as YamlNode | null | undefined)?.range;
  return r ? [r[0], r[1]] : undefined;
};
const keysOf = (n: unknown): string[] =>
  isMap(n) ? n.items.map((p) => str(p.key)).filter((k): k is string => k !== undefined) : [];
const valueOf = (n: unknown, key: string): unknown =>
  isMap(n) ? n.items.find((p) => str(p.key) === key)?.value : undefined;

// Ids may hold a matrix value's dots; `output`/`status` end the reference.
const STEP_REF = /\$\{\{\s*steps\.([A-Za-z0-9_][A-Za-z0-9_.-]*?)\.(?:output|status)\s*\}\}/g;

/** The facts of a piece whose root is `{ <step id>: … }` (`stepPiece`) or part of the plan's top level. */
export function chunkFacts(doc: Document.Parsed, text: string, stepPiece: boolean): ChunkFacts {
  const root = doc.contents;
  const stepsMap = stepPiece ? root : valueOf(root, 'steps');
  const defaults = valueOf(root, 'defaults');
  const planName = stepPiece ? undefined : str(valueOf(root, 'name'));
  const defaultAgent = stepPiece ? undefined : str(valueOf(defaults, 'agent'));
  return {
    steps: isMap(stepsMap) ? stepsMap.items.flatMap((p) => stepFacts(p.key, p.value)) : [],
    agents: stepPiece ? [] : keysOf(valueOf(root, 'agents')),
    pools: stepPiece ? [] : keysOf(valueOf(root, 'pools')),
    env: stepPiece ? [] : keysOf(valueOf(root, 'env')),
    defaultsEnv: stepPiece ? [] : keysOf(valueOf(defaults, 'env')),
    ...(defaultAgent !== undefined ? { defaultAgent } : {}),
    ...(planName !== undefined ? { planName } : {}),
    templateRefs: templateRefs(doc, text),
  };
}

function stepFacts(key: unknown, value: unknown): StepFacts[] {
  const id = str(key);
  const keySpan = span(key);
  if (id === undefined || !keySpan) return [];
  const end = span(value)?.[1] ?? keySpan[1];
  const needsNode = valueOf(value, 'needs');
  const items = isSeq(needsNode) ? needsNode.items : needsNode === undefined || needsNode === null ? [] : [needsNode];
  const needs = items.flatMap((n) => {
    const text = str(n);
    const s = span(n);
    return text !== undefined && s ? [{ text, span: s }] : [];
  });
  const matrixNode = valueOf(value, 'matrix');
  let matrix: Record<string, string[]> | undefined;
  if (isMap(matrixNode)) {
    matrix = {};
    for (const p of matrixNode.items) {
      const k = str(p.key);
      if (k !== undefined)
        matrix[k] = isSeq(p.value) ? p.value.items.map(str).filter((v): v is string => v !== undefined) : [];
    }
  }
  const keys = keysOf(value);
  const agent = str(valueOf(value, 'agent'));
  return [
    {
      id,
      keySpan,
      span: [keySpan[0], Math.max(end, keySpan[1])],
      needs,
      keys,
      kind: keys.includes('prompt') ? 'agent' : 'run',
      env: keysOf(valueOf(value, 'env')),
      ...(matrix ? { matrix } : {}),
      ...(agent !== undefined ? { agent } : {}),
    },
  ];
}

function templateRefs(doc: Document.Parsed, text: string): TemplateStepRef[] {
  const out: TemplateStepRef[] = [];
  visit(doc, {
    Scalar(_, node, path) {
      // Keys never hold templates that run; only values are read.
      const parent = path[path.length - 1];
      if (isPair(parent) && parent.key === node) return;
      const r = node.range;
      if (!r || typeof node.value !== 'string' || !node.value.includes('${{')) return;
      const source = text.slice(r[0], r[1]);
      for (const m of source.matchAll(STEP_REF)) {
        const start = r[0] + (m.index ?? 0) + m[0].indexOf('steps.') + 'steps.'.length;
        out.push({ id: m[1]!, span: [start, start + m[1]!.length] });
      }
    },
  });
  return out;
}
