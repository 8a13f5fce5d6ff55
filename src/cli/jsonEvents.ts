// `--json` events on stdout without unbounded memory: a reader that does not keep up (or does not
// read at all) makes stdout's buffer grow, and past `limitBytes` `output` events are dropped and
// counted (`skippedLines` on the step's next output event, or on an empty one before its end).
// Every other event is always written; the log files keep all the output.
import type { EngineEvent } from '../core/engine/types';

type Out = Pick<NodeJS.WritableStream, 'write'> & { readonly writableLength: number };

const DEFAULT_LIMIT = 4 * 1024 * 1024;

export class JsonEventWriter {
  /** Lines dropped per step (and the stream of the last dropped event), not yet reported. */
  private readonly dropped = new Map<string, { stream: 'stdout' | 'stderr'; lines: number }>();
  /** Output events dropped so far. */
  droppedEvents = 0;

  constructor(
    private readonly out: Out,
    private readonly limitBytes = DEFAULT_LIMIT,
  ) {}

  write(e: EngineEvent): void {
    if (e.type === 'output') {
      const d = this.dropped.get(e.id);
      if (this.out.writableLength > this.limitBytes) {
        this.droppedEvents++;
        this.dropped.set(e.id, {
          stream: e.stream,
          lines: (d?.lines ?? 0) + lineCount(e.text) + (e.skippedLines ?? 0),
        });
        return;
      }
      if (d) {
        this.dropped.delete(e.id);
        return this.line({ ...e, skippedLines: (e.skippedLines ?? 0) + d.lines });
      }
    } else if (e.type === 'step' && e.status !== 'running') {
      const d = this.dropped.get(e.id);
      if (d) {
        this.dropped.delete(e.id);
        this.line({
          type: 'output',
          id: e.id,
          stream: d.stream,
          text: '',
          skippedLines: d.lines,
          time: e.time,
          run: e.run,
        });
      }
    }
    this.line(e);
  }

  private line(e: EngineEvent): void {
    this.out.write(JSON.stringify(e) + '\n');
  }
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}
