// Template references, as a job on a runner gets their values: in shell variables, read from
// the needs' artifacts (outputs, statuses) or set in the job's env (matrix values, context),
// never spliced into script text. Plan text around the references reaches the script through
// env vars too, so every script Braid writes is made of its own words and variable names.
import { classifyRef, envNameFor, parseTemplates, shellTemplate, type TemplateRef } from '../templates';
import { artifactName, ghLiteral } from './ghText';

export type Part = { readonly literal: string } | { readonly ref: TemplateRef };

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `text` split into literal runs and template references, in order. */
export function templateParts(text: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (const ref of parseTemplates(text).refs) {
    // What no template names (`${{ github.token }}` in an env value) stays text, as GitHub must read it.
    if (classifyRef(ref.path) === undefined) continue;
    if (ref.start > at) parts.push({ literal: text.slice(at, ref.start) });
    parts.push({ ref });
    at = ref.end;
  }
  if (at < text.length) parts.push({ literal: text.slice(at) });
  return parts;
}

export const hasTemplates = (text: string): boolean =>
  parseTemplates(text).refs.some((r) => classifyRef(r.path) !== undefined);

/** The job-wide variables its templates read, and the lines that load them. */
export class RefVars {
  private readonly byExpr = new Map<string, string>();
  private readonly taken = new Set<string>();
  /** Shell lines (in the run step) that load outputs and statuses from the needs' artifacts. */
  readonly loads: string[] = [];
  /** The steps whose artifacts the loads read. */
  readonly steps = new Set<string>();

  /** @param promptVar the variable that holds the rendered prompt (agent commands' `${{ prompt }}`). */
  constructor(private readonly promptVar = 'braid_prompt') {}

  /** The shell variable holding `ref`'s value once the loads have run. */
  varFor(ref: TemplateRef): string {
    const key = ref.path.join('.');
    const known = this.byExpr.get(key);
    if (known !== undefined) return known;
    const c = classifyRef(ref.path);
    let name: string;
    switch (c?.kind) {
      case 'prompt':
        name = this.promptVar;
        break;
      case 'env':
        name = SHELL_NAME.test(c.key!) ? c.key! : envNameFor(ref.path);
        break;
      case 'step-output':
      case 'step-status': {
        name = envNameFor(ref.path);
        for (let n = 2; this.taken.has(name); n++) name = `${envNameFor(ref.path)}_${n}`;
        this.steps.add(c.key!);
        const file = c.kind === 'step-output' ? 'output' : 'status';
        const fallback = c.kind === 'step-output' ? "''" : 'skipped';
        this.loads.push(`braid_value ${name} "$braid_in/${artifactName(c.key!)}/${file}" ${fallback}`);
        break;
      }
      // context, matrix values, plan name and run id are in the job's env under these names.
      default:
        name = envNameFor(ref.path);
    }
    this.byExpr.set(key, name);
    this.taken.add(name);
    return name;
  }
}

/**
 * A plan string (a prompt, an env value, an argv element) as one shell word: its literal runs
 * go into `env` as `PREFIX_0…` (or `PREFIX` when it has no template), its references are the
 * job's variables. Returns the word, double-quoted: `"${PREFIX_0}${BRAID_STEPS_A_OUTPUT}"`.
 */
export function shellWord(
  text: string,
  prefix: string,
  vars: RefVars,
  env: Record<string, string>,
  leading: readonly Part[] = [],
): string {
  const parts: Part[] = [];
  for (const p of [...leading, ...templateParts(text)]) {
    const last = parts[parts.length - 1];
    if ('literal' in p && last !== undefined && 'literal' in last)
      parts[parts.length - 1] = { literal: last.literal + p.literal };
    else parts.push(p);
  }
  if (parts.length === 0) return "''";
  if (parts.length === 1 && 'literal' in parts[0]!) {
    env[prefix] = ghLiteral(parts[0].literal);
    return `"\${${prefix}}"`;
  }
  let word = '';
  let n = 0;
  for (const p of parts) {
    if ('literal' in p) {
      const name = `${prefix}_${n++}`;
      env[name] = ghLiteral(p.literal);
      word += `\${${name}}`;
    } else word += `\${${vars.varFor(p.ref)}}`;
  }
  return `"${word}"`;
}

/** Shell source (run, check, set-up, a code agent's argument) as its env value, with the lines that name its variables as the job loaded them. */
export function shellSource(text: string, vars: RefVars, setup: string[]): string {
  const { script, vars: used } = shellTemplate(text);
  exportUnder(used, vars, setup);
  return ghLiteral(script);
}

/** `export NAME="${loaded}"` for each reference whose name differs from the variable the job loaded it into. */
export function exportUnder(used: readonly { name: string; ref: TemplateRef }[], vars: RefVars, setup: string[]): void {
  for (const v of used) {
    const source = vars.varFor(v.ref);
    if (source !== v.name) setup.push(`export ${v.name}="\${${source}}"`);
  }
}
