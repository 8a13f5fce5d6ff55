// Time as a dependency, so the scheduler runs on a simulated clock in tests and benchmarks.

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// setTimeout takes a signed 32-bit delay: past it (24.8 days) Node fires at once, with a warning.
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      // A long delay (a retry-delay of weeks, doubled) waits in pieces the timer can hold.
      const wait = (left: number) => {
        timer = setTimeout(
          () => {
            if (left > MAX_TIMER_MS) return wait(left - MAX_TIMER_MS);
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.min(left, MAX_TIMER_MS),
        );
      };
      wait(ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface Timer {
  at: number;
  seq: number;
  resolve(): void;
  canceled: boolean;
}

/**
 * A discrete-event clock: time only moves when every promise chain has settled, jumping to the
 * next timer. Drive it with `runUntil(promise)`.
 */
export class SimClock implements Clock {
  private t = 0;
  private seq = 0;
  private readonly heap: Timer[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve, canceled: false };
      signal?.addEventListener(
        'abort',
        () => {
          timer.canceled = true;
          reject(signal.reason);
        },
        { once: true },
      );
      this.push(timer);
    });
  }

  /** Advances time until `done` settles; returns its value. */
  async runUntil<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    const watched = done.finally(() => {
      settled = true;
    });
    while (!settled) {
      await new Promise<void>((r) => setImmediate(r));
      if (settled) break;
      const next = this.pop();
      if (!next) {
        await new Promise<void>((r) => setImmediate(r));
        if (!settled && this.heap.length === 0) throw new Error('SimClock: deadlock, nothing scheduled and not done');
        continue;
      }
      this.t = next.at;
      next.resolve();
      // Release every timer due at the same instant together, as a real clock would.
      while (this.heap.length > 0 && this.heap[0]!.at === this.t) this.pop()?.resolve();
    }
    return watched;
  }

  private push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[p]!, h[i]!)) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    while (h.length > 0) {
      const top = h[0]!;
      const last = h.pop()!;
      if (h.length > 0) {
        h[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1,
            r = l + 1;
          let m = i;
          if (l < h.length && less(h[l]!, h[m]!)) m = l;
          if (r < h.length && less(h[r]!, h[m]!)) m = r;
          if (m === i) break;
          [h[m], h[i]] = [h[i]!, h[m]!];
          i = m;
        }
      }
      if (!top.canceled) return top;
    }
    return undefined;
  }
}

const less = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
