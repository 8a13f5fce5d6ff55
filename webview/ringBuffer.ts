// A bounded window of a log's lines, numbered as in the log file. New output goes on the back
// and pushes the oldest line out; an older page goes on the front and pushes the newest out,
// so memory stays fixed however long the log grows. No DOM: unit-tested in Node.

export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private head = 0; // slot of the first held item
  private count = 0;
  private first = 0; // absolute number of the first held item

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`RingBuffer: capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Absolute number of the first held item. */
  get start(): number {
    return this.first;
  }

  /** Absolute number just past the last held item (where the next `push` lands). */
  get end(): number {
    return this.first + this.count;
  }

  /** Empties the buffer; the next item pushed will be number `start`. */
  clear(start = 0): void {
    this.items.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.first = start;
  }

  /** Appends at the back, dropping the oldest items past capacity. Returns how many were dropped. */
  push(...values: readonly T[]): number {
    let dropped = 0;
    // Only the last `capacity` values can survive: skip the rest without writing them.
    const skip = Math.max(0, values.length - this.capacity);
    if (skip > 0) {
      dropped = this.count + skip;
      this.clear(this.end + skip);
    }
    for (let i = skip; i < values.length; i++) {
      if (this.count === this.capacity) {
        this.items[this.head] = undefined;
        this.head = (this.head + 1) % this.capacity;
        this.count--;
        this.first++;
        dropped++;
      }
      this.items[(this.head + this.count) % this.capacity] = values[i];
      this.count++;
    }
    return dropped;
  }

  /** Prepends older items (in order) before `start`, dropping the newest past capacity. Returns how many were dropped. */
  unshift(...values: readonly T[]): number {
    let dropped = 0;
    for (let i = values.length - 1; i >= 0; i--) {
      if (this.first === 0) throw new Error('RingBuffer.unshift: nothing comes before item 0');
      if (this.count === this.capacity) {
        this.items[(this.head + this.count - 1) % this.capacity] = undefined;
        this.count--;
        dropped++;
      }
      this.head = (this.head - 1 + this.capacity) % this.capacity;
      this.items[this.head] = values[i];
      this.count++;
      this.first--;
    }
    return dropped;
  }

  /** The item with absolute number `n`, or undefined when it is not held. */
  at(n: number): T | undefined {
    const i = n - this.first;
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return undefined;
    return this.items[(this.head + i) % this.capacity];
  }

  /** Held items with absolute numbers in `[from, to)`, clipped to what is held. */
  slice(from: number, to: number): T[] {
    const out: T[] = [];
    for (let n = Math.max(from, this.first); n < Math.min(to, this.end); n++) out.push(this.at(n) as T);
    return out;
  }
}
