// Random access by line to a log file that grows: the graph panel pages through a step's log
// (50 MiB and more) without reading it all each time. The byte offset of every line start is
// indexed once, then only what was appended since is scanned; a page reads just its bytes.
import { open, stat } from 'node:fs/promises';

const CHUNK = 1 << 20;

export class LogLines {
  /** Byte offset of each line's start; a last line without its newline yet counts as a line. */
  private starts: number[] = [];
  private scanned = 0;
  /** The last byte indexed was a newline: the next byte starts a line. */
  private endedWithNewline = false;

  constructor(readonly file: string) {}

  /** Scans what was appended since the last call; resolves to the number of lines (0 for no file). */
  async refresh(): Promise<number> {
    let size: number;
    try {
      size = (await stat(this.file)).size;
    } catch {
      // No file (yet, or removed): zero lines, and a fresh scan when it appears.
      this.starts = [];
      this.scanned = 0;
      this.endedWithNewline = false;
      return 0;
    }
    // Smaller than what was indexed: the file was replaced (a new attempt's log), index it anew.
    if (size < this.scanned) {
      this.starts = [];
      this.scanned = 0;
      this.endedWithNewline = false;
    }
    if (size > this.scanned) await this.scan(size);
    return this.count();
  }

  /** The number of lines as of the last refresh. */
  count(): number {
    return this.starts.length;
  }

  /** Lines [start, end) as of the last refresh, without their line endings. */
  async read(start: number, end: number): Promise<string[]> {
    const from = Math.max(0, start),
      to = Math.min(end, this.starts.length);
    if (from >= to) return [];
    const a = this.starts[from]!;
    const b = to < this.starts.length ? this.starts[to]! : this.scanned;
    const buf = Buffer.alloc(b - a);
    const fh = await open(this.file, 'r');
    try {
      await fh.read(buf, 0, buf.length, a);
    } finally {
      await fh.close();
    }
    const lines = buf.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  }

  private async scan(size: number): Promise<void> {
    const fh = await open(this.file, 'r');
    try {
      const buf = Buffer.alloc(Math.min(CHUNK, size - this.scanned));
      // A line starts at 0 and after every newline; the start after a final newline is added
      // only once bytes follow it.
      let pendingStart = this.scanned === 0 ? 0 : this.endedWithNewline ? this.scanned : -1;
      while (this.scanned < size) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - this.scanned), this.scanned);
        if (bytesRead === 0) break;
        for (let i = 0; i < bytesRead;) {
          if (pendingStart >= 0) {
            this.starts.push(pendingStart);
            pendingStart = -1;
          }
          const nl = buf.indexOf(10, i);
          if (nl < 0 || nl >= bytesRead) break;
          pendingStart = this.scanned + nl + 1;
          i = nl + 1;
        }
        this.scanned += bytesRead;
      }
      this.endedWithNewline = pendingStart >= 0;
    } finally {
      await fh.close();
    }
  }
}
