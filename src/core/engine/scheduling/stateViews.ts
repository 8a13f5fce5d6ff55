// Live, read-only views of one field of the scheduler's step states, handed to every attempt.
// Copying every step's status and output at each start made a run O(n²); a view costs nothing
// to hand out and cannot be written through. It is safe to read live: what a step reads (its
// needs' and their ancestors' outputs and statuses) is terminal before it starts, and a terminal
// state never changes again.

/** A ReadonlyMap of `pick(state)` for every state where it is defined. */
export class FieldView<S, V> implements ReadonlyMap<string, V> {
  constructor(
    private readonly states: ReadonlyMap<string, S>,
    private readonly pick: (state: S) => V | undefined,
  ) {}

  get(key: string): V | undefined {
    const s = this.states.get(key);
    return s === undefined ? undefined : this.pick(s);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const s of this.states.values()) if (this.pick(s) !== undefined) n++;
    return n;
  }

  *entries(): MapIterator<[string, V]> {
    for (const [k, s] of this.states) {
      const v = this.pick(s);
      if (v !== undefined) yield [k, v];
    }
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
