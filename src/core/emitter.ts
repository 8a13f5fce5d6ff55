// One small event emitter for the core and its faces (events, lock releases, engine messages, the
// runs model), so none keeps its own listener set. Listeners are called in the order they
// subscribed, over a copy: one may subscribe, unsubscribe or fire again while it is called.
import { toDisposable, type Disposable } from './disposable';

export type Listener<T> = (value: T) => void;

export class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();

  /** `onError`: a listener that throws is reported here and the others still run; without it, the throw propagates. */
  constructor(private readonly onError?: (error: unknown) => void) {}

  /** Subscribes `listener`; disposing the result unsubscribes it. */
  readonly on = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  fire(value: T): void {
    if (this.listeners.size === 0) return;
    for (const l of [...this.listeners]) {
      if (!this.onError) {
        l(value);
        continue;
      }
      try {
        l(value);
      } catch (e) {
        this.onError(e);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Drops every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
