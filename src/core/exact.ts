// A zod schema's output as Braid's types read it. zod writes an optional field `?: T | undefined`;
// parsed JSON never holds an `undefined` (JSON has none), and exactOptionalPropertyTypes holds
// the rest of the code to "present with a value, or absent".

/** `T` with each optional field present-with-a-value or absent, deeply (readonly where `T` is). */
export type Exact<T> = T extends (infer U)[]
  ? Exact<U>[]
  : T extends readonly (infer U)[]
    ? readonly Exact<U>[]
    : T extends object
      ? { [K in keyof T]: Exact<Exclude<T[K], undefined>> }
      : T;

/** What a schema parsed from JSON is, read as `Exact`: true by construction, since JSON has no undefined. */
export const exact = <T>(parsed: T): Exact<T> => parsed as Exact<T>;
