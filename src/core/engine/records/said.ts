// What a person said to a running step (`braid say`), kept in its record beside its attempts.
import type { RunRecord } from './runRecord';

export interface SaidRecord {
  /** ISO-8601. */
  readonly at: string;
  /** The attempt it was said to. */
  readonly attempt: number;
  readonly message: string;
}

/** Appends `message` to step `id`'s `said` list in the record (the run saves it). */
export function recordSaid(record: RunRecord, id: string, message: string, at = new Date()): void {
  const step: (RunRecord['steps'][string] & { said?: SaidRecord[] }) | undefined = record.steps[id];
  if (!step) return;
  step.said = [...(step.said ?? []), { at: at.toISOString(), attempt: step.attempts.length, message }];
}
