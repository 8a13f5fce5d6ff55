// Key docs at run time: the build writes the format's tables into the editors' JSON schema
// (scripts/writeSchema.ts, keyDocs.ts), so the extension reads them back from there rather than
// shipping plan-format.md.
import type { KeyDocs } from '../plan/keyDocs';

type Props = Record<string, { description?: unknown } | undefined>;

const descriptions = (props: unknown): Map<string, string> => {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries((props ?? {}) as Props))
    if (typeof v?.description === 'string') out.set(k, v.description);
  return out;
};

/** The plan and step key docs held in the plan JSON schema's `description`s. */
export function keyDocsFromSchema(schema: unknown): KeyDocs {
  const top = (
    schema as { properties?: Record<string, { additionalProperties?: { properties?: unknown } }> } | undefined
  )?.properties;
  return { plan: descriptions(top), step: descriptions(top?.steps?.additionalProperties?.properties) };
}
