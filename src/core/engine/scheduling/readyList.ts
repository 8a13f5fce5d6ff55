// The ready steps, best first: the longest remaining critical path, then plan order. Also the
// steps made ready since the last dispatch pass, so a pass can mark just those `waiting`.

export class ReadyList {
  /** Every step's place in the total order (0 is the best), fixed for the run. */
  private readonly place = new Map<string, number>();
  private readonly byPlace: string[];
  // Places, stored worst first: taking the best (what nearly every start does) pops the end, and
  // the binary search compares small integers instead of looking ranks up.
  private readonly places: number[] = [];
  private readonly added: string[] = [];

  /** `order`: plan order (the tie-break); `rank`: remaining critical path (higher first). */
  constructor(order: readonly string[], rank: ReadonlyMap<string, number>) {
    // Array.prototype.sort is stable: equal ranks keep plan order.
    this.byPlace = [...order].sort((a, b) => rank.get(b)! - rank.get(a)!);
    this.byPlace.forEach((id, i) => this.place.set(id, i));
  }

  get length(): number {
    return this.places.length;
  }

  /** The i-th best ready step. */
  at(i: number): string | undefined {
    const p = this.places[this.places.length - 1 - i];
    return p === undefined ? undefined : this.byPlace[p];
  }

  insert(id: string): void {
    const p = this.place.get(id)!;
    const xs = this.places;
    // The first position holding a better (smaller) place: `p` goes just before it.
    let lo = 0,
      hi = xs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]! < p) hi = mid;
      else lo = mid + 1;
    }
    if (lo === xs.length) xs.push(p);
    else xs.splice(lo, 0, p);
    this.added.push(id);
  }

  /** Removes the i-th best. */
  removeAt(i: number): void {
    const at = this.places.length - 1 - i;
    if (at === this.places.length - 1) this.places.pop();
    else this.places.splice(at, 1);
  }

  remove(id: string): void {
    const i = this.places.lastIndexOf(this.place.get(id)!);
    if (i >= 0) this.places.splice(i, 1);
  }

  /** Calls `fn` with each step inserted since the last call (ones it inserts wait for the next call). */
  takeFresh(fn: (id: string) => void): void {
    const xs = this.added;
    if (xs.length === 0) return;
    const n = xs.length;
    for (let i = 0; i < n; i++) fn(xs[i]!);
    xs.splice(0, n);
  }
}
