// A step's log interleaves its stdout and stderr by arrival, as bytes. Two pipes are read
// independently, so a character cut between two writes on one stream can have the other stream's
// bytes land in its middle, and the log then shows U+FFFD where the step wrote valid UTF-8. Each
// stream holds back the incomplete character at the end of a chunk (at most 3 bytes) until the rest
// arrives, so whatever the order of arrival, the log is made of whole characters.

/** Where the incomplete UTF-8 sequence at the end of `b` starts (b.length when it ends whole). */
export function wholeCharsEnd(b: Uint8Array): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 4); i--) {
    const byte = b[i]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    if (byte < 0xc0) return b.length; // ASCII (or a stray continuation run): nothing to hold
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return b.length - i < need ? i : b.length;
  }
  return b.length;
}

/** One stream's bytes, cut at character boundaries: what `push` returns is whole characters. */
export class WholeChars {
  private held: Buffer | undefined;

  push(chunk: Buffer): Buffer {
    const all = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    const end = wholeCharsEnd(all);
    this.held = end < all.length ? all.subarray(end) : undefined;
    return end < all.length ? all.subarray(0, end) : all;
  }

  /** What is still held at the stream's end (an incomplete character the step never finished). */
  end(): Buffer | undefined {
    const rest = this.held;
    this.held = undefined;
    return rest;
  }
}
