// One at a time per key within this process: each call runs after the previous one for its key
// has settled (whether it succeeded or not), and keys are forgotten once idle.

export class KeyedChain {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier call for `key`; resolves or rejects as `fn` does. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
