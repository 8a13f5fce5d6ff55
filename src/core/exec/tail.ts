// The last N bytes of a stream, kept as the chunks that arrived (no copy per chunk), decoded
// once at the end: a step's default output is the tail of its stdout.

export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit === 0 || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Drop whole chunks that lie entirely before the window; the cut inside the first is made in text().
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The kept bytes as UTF-8, starting at a character boundary (a character cut by the window is dropped). */
  text(): string {
    if (this.size === 0) return '';
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - this.limit);
    // Skip UTF-8 continuation bytes (10xxxxxx) so the text does not open with U+FFFD.
    const stop = Math.min(all.length, start + 3);
    while (start > 0 && start < stop && (all[start]! & 0xc0) === 0x80) start++;
    return all.toString('utf8', start);
  }
}
