// One typed event bus for every view, and output batching so a chatty step cannot flood them.
import type { Disposable } from '../disposable';
import type { EngineEvent, OutputStream } from './types';

export type Listener = (event: EngineEvent) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();

  on(listener: Listener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  }

  emit(event: EngineEvent): void {
    for (const l of this.listeners) l(event);
  }
}

/** Coalesces output chunks per step and stream, delivering at most one event every `intervalMs`. */
export class OutputBatcher {
  private readonly pending = new Map<string, { id: string; stream: OutputStream; text: string }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deliver: (id: string, stream: OutputStream, text: string) => void, private readonly intervalMs = 33) {}

  push(id: string, stream: OutputStream, text: string): void {
    const key = `${stream}\0${id}`;
    const entry = this.pending.get(key);
    if (entry) entry.text += text;
    else this.pending.set(key, { id, stream, text });
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Delivers everything buffered now (call before a step's terminal event). */
  flush(id?: string): void {
    for (const [key, e] of this.pending) {
      if (id !== undefined && e.id !== id) continue;
      this.pending.delete(key);
      this.deliver(e.id, e.stream, e.text);
    }
    if (this.pending.size === 0 && this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    else if (id === undefined && this.timer) { clearTimeout(this.timer); this.timer = undefined; }
  }

  dispose(): void { this.flush(); }
}

/** Marks keys as changed and delivers each at most once every `intervalMs` (the receiver reads the latest state). */
export class ChangeBatcher {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deliver: (key: string) => void, private readonly intervalMs = 33) {}

  mark(key: string): void {
    this.dirty.add(key);
    if (this.intervalMs <= 0) { this.flush(key); return; }
    this.timer ??= setTimeout(() => { this.timer = undefined; this.flush(); }, this.intervalMs);
  }

  /** Delivers `key` (or every key) now, if it changed since its last delivery. */
  flush(key?: string): void {
    const keys = key === undefined ? [...this.dirty] : this.dirty.has(key) ? [key] : [];
    for (const k of keys) { this.dirty.delete(k); this.deliver(k); }
    if (this.dirty.size === 0 && this.timer) { clearTimeout(this.timer); this.timer = undefined; }
  }

  dispose(): void { this.flush(); }
}
