// Text that goes into a GitHub Actions workflow. GitHub evaluates `${{ … }}` in almost every
// string value (names, env, matrix values, action inputs), so plan text is escaped to evaluate
// to itself; shell scripts get no plan text at all (it reaches them as environment variables).

const OPEN = '${{';
const ESCAPED_OPEN = "${{ '${{' }}";

/** `text` as a workflow string value that GitHub evaluates to `text` itself. */
export function ghLiteral(text: string): string {
  return text.includes(OPEN) ? text.split(OPEN).join(ESCAPED_OPEN) : text;
}

/** `text` where GitHub allows no expression at all (the workflow's name): `${{` loses its meaning as `$ {{`. */
export function ghPlain(text: string): string {
  return text.split(OPEN).join('$ {{');
}

/** A `${{ expr }}` over GitHub's own contexts (`matrix.k`, `runner.temp`, `secrets.X`). */
export function ghExpr(expr: string): string {
  return `${OPEN} ${expr} }}`;
}

/** One line of a YAML comment: no line breaks, no control characters. */
export function commentLine(text: string): string {
  return text.replace(/[\r\n\t\u0000-\u001f\u007f]+/g, ' ');
}

/** A name for files and branches: the plan file's base name, `[A-Za-z0-9._-]` only. */
export function planSlug(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? 'plan';
  const stem = base.replace(/\.braid\.(ya?ml|json)$/i, '').replace(/\.(ya?ml|json)$/i, '');
  const slug = stem.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|[.-]+$/g, '');
  return slug === '' ? 'plan' : slug;
}

/** Artifact of a step (its output, status and change); step ids are already `[A-Za-z0-9_-]`. */
export const artifactName = (stepId: string): string => `braid-${stepId}`;

/** A download-artifact `pattern` naming exactly these artifacts (minimatch braces). */
export function artifactPattern(names: readonly string[]): string {
  if (names.length === 1) return names[0]!;
  return `braid-{${names.map((n) => n.slice('braid-'.length)).join(',')}}`;
}
