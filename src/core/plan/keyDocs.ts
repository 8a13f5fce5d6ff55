// Hover text for plan keys, taken from the format's own tables (docs/plan-format.md: "Top level"
// and "A step"), so editors say what the docs say and a key added without a row is caught by a
// test. Only the build reads the docs (scripts/writeSchema.ts); nothing at run time does.

export interface KeyDocs {
  readonly plan: ReadonlyMap<string, string>;
  readonly step: ReadonlyMap<string, string>;
}

/** The `| \`key\` | type | meaning |` rows under the two headings; `copy`, `symlink` rows name both. */
export function keyDocsFrom(markdown: string): KeyDocs {
  return { plan: tableAfter(markdown, '## Top level'), step: tableAfter(markdown, '## A step') };
}

function tableAfter(markdown: string, heading: string): Map<string, string> {
  const out = new Map<string, string>();
  const start = markdown.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`plan-format.md has no "${heading}" section`);
  const lines = markdown
    .slice(start + 1)
    .split('\n')
    .slice(1);
  const end = lines.findIndex((l) => l.startsWith('## '));
  for (const line of end < 0 ? lines : lines.slice(0, end)) {
    const cells = line.split(' | ');
    if (!line.startsWith('| `') || cells.length < 3) continue;
    const keys = [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const meaning = cells
      .slice(2)
      .join(' | ')
      .replace(/\s*\|\s*$/, '')
      .trim();
    const type = cells[1]!.trim();
    for (const k of keys) out.set(k, `${meaning} (${type.replace(/`/g, '')})`);
  }
  return out;
}

/** Sets each plan and step property's `description` in the editors' JSON schema (in place). */
export function describeSchema(schema: Record<string, unknown>, docs: KeyDocs): Record<string, unknown> {
  const props = (o: unknown): Record<string, Record<string, unknown>> | undefined =>
    (o as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties;
  const apply = (p: Record<string, Record<string, unknown>> | undefined, table: ReadonlyMap<string, string>) => {
    for (const [k, v] of Object.entries(p ?? {})) {
      const d = table.get(k);
      if (d) v.description = d;
    }
  };
  const top = props(schema);
  apply(top, docs.plan);
  apply(props(top?.steps?.additionalProperties), docs.step);
  apply(props(top?.defaults), docs.step);
  return schema;
}
