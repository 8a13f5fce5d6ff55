// Records keyed by the user's words (env names, matrix keys, agents, pools). A plain `{}` answers
// `constructor`, `toString` or `valueOf` from Object.prototype, so a plan naming one would read a
// function where it expects its own value; these helpers only ever see own keys.

/** A record without a prototype, holding `from`'s own entries. */
export function dict<T>(from?: Readonly<Record<string, T>>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (from) for (const k of Object.keys(from)) out[k] = from[k] as T;
  return out;
}

/** `r[key]` when it is r's own entry, else undefined. */
export function ownValue<T>(r: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined;
}

/** True when `key` is r's own entry. */
export const hasOwnKey = (r: object | undefined, key: string): boolean => r !== undefined && Object.hasOwn(r, key);
