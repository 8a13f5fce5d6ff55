// The `${{ … }}` template language: parsing, classification, and the two ways a template is
// expanded. Argv elements and prompts get values; shell source only ever gets `${NAME}`
// references to environment variables, so no value can become shell syntax.

/** One `${{ … }}` occurrence; start/end are offsets of the whole `${{ … }}` in the text. */
export interface TemplateRef {
  readonly expr: string;
  readonly path: readonly string[];
  readonly start: number;
  readonly end: number;
}

export interface TemplateError {
  readonly start: number;
  readonly end: number;
  readonly message: string;
}

export type RefKind =
  | 'context'
  | 'prompt'
  | 'matrix'
  | 'env'
  | 'step-output'
  | 'step-status'
  | 'plan-name'
  | 'run-id'
  | 'attempt-reason'
  | 'attempt-output'
  | 'alternative-index';

const OPEN = '${{';
const CLOSE = '}}';
// Step ids, matrix keys and env names; a step segment may also carry a matrix value's dots
// (`steps.build-1.5.output`), which classifyRef rejoins.
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Every template in `text`, plus the syntax errors (unterminated, empty, malformed). */
export function parseTemplates(text: string): { refs: TemplateRef[]; errors: TemplateError[] } {
  const refs: TemplateRef[] = [];
  const errors: TemplateError[] = [];
  let from = 0;
  // Both searches resume where they last stopped: with thousands of `${{` and no `}}` (or one far
  // away), searching afresh from each opener would read the text once per opener.
  let close = -2;
  let reopen = -2;
  for (;;) {
    const start = reopen >= from ? reopen : text.indexOf(OPEN, from);
    if (start < 0) break;
    if (close !== -1 && close < start + OPEN.length) close = text.indexOf(CLOSE, start + OPEN.length);
    reopen = text.indexOf(OPEN, start + OPEN.length);
    if (close < 0 || (reopen >= 0 && reopen < close)) {
      // Resume at the next `${{` so one missing `}}` does not hide the templates after it.
      const end = reopen >= 0 ? reopen : text.length;
      errors.push({ start, end, message: 'unterminated template: "${{" without a closing "}}"' });
      if (reopen < 0) break;
      from = reopen;
      continue;
    }
    const end = close + CLOSE.length;
    const expr = text.slice(start + OPEN.length, close).trim();
    const path = expr.split('.');
    if (expr === '') errors.push({ start, end, message: 'empty template expression "${{ }}"' });
    else if (!path.every((p) => SEGMENT.test(p))) {
      errors.push({
        start,
        end,
        message: `malformed template expression "${expr}": expected dotted names such as steps.<id>.output`,
      });
    } else refs.push({ expr, path, start, end });
    from = end;
  }
  return { refs, errors };
}

/** What a reference names, or undefined when it is not one of the documented shapes. */
export function classifyRef(path: readonly string[]): { kind: RefKind; key?: string } | undefined {
  const [head, second] = path;
  if (path.length === 1 && head === 'context') return { kind: 'context' };
  if (path.length === 1 && head === 'prompt') return { kind: 'prompt' };
  if (path.length === 2 && head === 'matrix' && second !== undefined) return { kind: 'matrix', key: second };
  if (path.length === 2 && head === 'env' && second !== undefined) return { kind: 'env', key: second };
  if (path.length === 2 && head === 'plan' && second === 'name') return { kind: 'plan-name' };
  if (path.length === 2 && head === 'run' && second === 'id') return { kind: 'run-id' };
  if (path.length === 3 && head === 'attempt' && second === 'previous') {
    if (path[2] === 'reason') return { kind: 'attempt-reason' };
    if (path[2] === 'output') return { kind: 'attempt-output' };
  }
  if (path.length === 2 && head === 'alternative' && second === 'index') return { kind: 'alternative-index' };
  if (path.length >= 3 && head === 'steps') {
    const last = path[path.length - 1];
    const id = path.slice(1, -1).join('.');
    if (id === '') return undefined;
    if (last === 'output') return { kind: 'step-output', key: id };
    if (last === 'status') return { kind: 'step-status', key: id };
  }
  return undefined;
}

/** Substitutes every ref with lookup's value, verbatim, in one pass (values are never re-expanded). */
export function renderTemplate(text: string, lookup: (ref: TemplateRef) => string): string {
  const { refs } = parseTemplates(text);
  let out = '';
  let at = 0;
  for (const ref of refs) {
    out += text.slice(at, ref.start) + lookup(ref);
    at = ref.end;
  }
  return out + text.slice(at);
}

const envPart = (s: string): string => s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/** The environment variable a reference becomes in shell source (names documented in plan-format.md). */
export function envNameFor(path: readonly string[]): string {
  const c = classifyRef(path);
  switch (c?.kind) {
    case 'context':
      return 'BRAID_CONTEXT';
    case 'prompt':
      return 'BRAID_PROMPT';
    case 'matrix':
      return `BRAID_MATRIX_${envPart(c.key ?? '')}`;
    // A name the shell cannot spell (`env.my-var`) is passed under a name it can.
    case 'env':
      return SHELL_NAME.test(c.key ?? '') ? (c.key ?? '') : `BRAID_ENV_${envPart(c.key ?? '')}`;
    case 'step-output':
      return `BRAID_STEPS_${envPart(c.key ?? '')}_OUTPUT`;
    case 'step-status':
      return `BRAID_STEPS_${envPart(c.key ?? '')}_STATUS`;
    case 'plan-name':
      return 'BRAID_PLAN_NAME';
    case 'run-id':
      return 'BRAID_RUN_ID';
    case 'attempt-reason':
      return 'BRAID_ATTEMPT_PREVIOUS_REASON';
    case 'attempt-output':
      return 'BRAID_ATTEMPT_PREVIOUS_OUTPUT';
    case 'alternative-index':
      return 'BRAID_ALTERNATIVE';
    case undefined:
      return `BRAID_${envPart(path.join('_'))}`;
  }
}

/**
 * Rewrites shell source so each ref becomes `${NAME}`; `vars` lists what the runner must set
 * (NAME = lookup(ref)), once per distinct expression. `${{ env.X }}` becomes `${X}` and is not
 * in `vars`: the step's environment already holds X. Two expressions whose documented names
 * collide (`steps.a-b.output`, `steps.a_b.output`) get distinct names (`…_2`), never one value.
 */
export function shellTemplate(text: string): { script: string; vars: { name: string; ref: TemplateRef }[] } {
  const vars: { name: string; ref: TemplateRef }[] = [];
  const byExpr = new Map<string, string>();
  const taken = new Set<string>();
  const nameOf = (ref: TemplateRef): string => {
    const key = ref.path.join('.');
    const known = byExpr.get(key);
    if (known !== undefined) return known;
    const c = classifyRef(ref.path);
    const base = envNameFor(ref.path);
    const inherited = c?.kind === 'env' && base === c.key;
    let name = base;
    for (let n = 2; taken.has(name) && !inherited; n++) name = `${base}_${n}`;
    byExpr.set(key, name);
    taken.add(name);
    if (!inherited) vars.push({ name, ref });
    return name;
  };
  const script = renderTemplate(text, (ref) => `\${${nameOf(ref)}}`);
  return { script, vars };
}

/**
 * Refs where a shell would not expand `${X}`: inside single quotes (also `$'…'`), or in the body
 * of a heredoc with a quoted delimiter. Tracks double quotes, backslashes, `$(…)`, backticks and
 * comments well enough that a `'` inside "…" or a comment opens nothing.
 */
export function singleQuotedRefs(shell: string): TemplateRef[] {
  // Most commands hold no template: no need to read their quoting (a 10,000-step plan's worth).
  if (!shell.includes('${{')) return [];
  const literal = literalRegions(shell);
  return parseTemplates(shell).refs.filter((r) => literal.some(([s, e]) => r.start >= s && r.start < e));
}

type Frame = { readonly mode: 'cmd'; readonly close: ')' | '`' | ''; depth: number } | { readonly mode: 'dq' };

const WORD_BREAK = /[\s;&|()<>]/;

/** [start, end) ranges of `shell` where no parameter expansion happens. */
function literalRegions(shell: string): [number, number][] {
  const regions: [number, number][] = [];
  const stack: Frame[] = [{ mode: 'cmd', close: '', depth: 0 }];
  const heredocs: { delim: string; quoted: boolean; strip: boolean }[] = [];
  let i = 0;
  const skipQuoted = (from: number, escapes: boolean): number => {
    let j = from;
    while (j < shell.length && shell[j] !== "'") j += escapes && shell[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, shell.length);
  };
  while (i < shell.length) {
    const frame = stack[stack.length - 1] ?? { mode: 'cmd', close: '', depth: 0 };
    const ch = shell[i];
    const next = shell[i + 1];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (frame.mode === 'dq') {
      if (ch === '"') stack.pop();
      else if (ch === '`') stack.push({ mode: 'cmd', close: '`', depth: 0 });
      else if (ch === '$' && next === '(') {
        stack.push({ mode: 'cmd', close: ')', depth: 0 });
        i++;
      }
      i++;
      continue;
    }
    if (ch === "'") {
      const end = skipQuoted(i + 1, false);
      regions.push([i, end]);
      i = end;
      continue;
    }
    if (ch === '$' && next === "'") {
      const end = skipQuoted(i + 2, true);
      regions.push([i, end]);
      i = end;
      continue;
    }
    if (ch === '"') {
      stack.push({ mode: 'dq' });
      i++;
      continue;
    }
    if (ch === '`') {
      if (frame.close === '`') stack.pop();
      else stack.push({ mode: 'cmd', close: '`', depth: 0 });
      i++;
      continue;
    }
    if (ch === '$' && next === '(') {
      stack.push({ mode: 'cmd', close: ')', depth: 0 });
      i += 2;
      continue;
    }
    if (ch === '(' && frame.close === ')') frame.depth++;
    else if (ch === ')' && frame.close === ')') {
      if (frame.depth > 0) frame.depth--;
      else stack.pop();
    } else if (ch === '#' && (i === 0 || WORD_BREAK.test(shell[i - 1] ?? ' '))) {
      const nl = shell.indexOf('\n', i);
      i = nl < 0 ? shell.length : nl;
      continue;
    } else if (ch === '<' && next === '<' && shell[i + 2] !== '<') {
      i = readHeredocWord(shell, i + 2, heredocs);
      continue;
    } else if (ch === '\n' && heredocs.length > 0) {
      i = skipHeredocBodies(shell, i + 1, heredocs.splice(0), regions);
      continue;
    }
    i++;
  }
  return regions;
}

function readHeredocWord(
  shell: string,
  from: number,
  out: { delim: string; quoted: boolean; strip: boolean }[],
): number {
  let i = from;
  const strip = shell[i] === '-';
  if (strip) i++;
  while (shell[i] === ' ' || shell[i] === '\t') i++;
  let delim = '';
  let quoted = false;
  while (i < shell.length && !WORD_BREAK.test(shell[i] ?? ' ')) {
    const ch = shell[i] ?? '';
    if (ch === "'" || ch === '"') {
      quoted = true;
      const end = shell.indexOf(ch, i + 1);
      const stop = end < 0 ? shell.length : end;
      delim += shell.slice(i + 1, stop);
      i = stop + 1;
    } else if (ch === '\\') {
      quoted = true;
      delim += shell[i + 1] ?? '';
      i += 2;
    } else {
      delim += ch;
      i++;
    }
  }
  if (delim !== '') out.push({ delim, quoted, strip });
  return i;
}

function skipHeredocBodies(
  shell: string,
  from: number,
  docs: { delim: string; quoted: boolean; strip: boolean }[],
  regions: [number, number][],
): number {
  let i = from;
  for (const doc of docs) {
    const bodyStart = i;
    while (i < shell.length) {
      const nl = shell.indexOf('\n', i);
      const lineEnd = nl < 0 ? shell.length : nl;
      const line = shell.slice(i, lineEnd);
      const next = nl < 0 ? shell.length : nl + 1;
      if ((doc.strip ? line.replace(/^\t+/, '') : line) === doc.delim) {
        if (doc.quoted) regions.push([bodyStart, i]);
        i = next;
        break;
      }
      i = next;
      if (i >= shell.length && doc.quoted) regions.push([bodyStart, shell.length]);
    }
  }
  return i;
}
