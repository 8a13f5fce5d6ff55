// JSON-lines framing for the engine socket: chunks in, whole lines out. Both ends use it.

/** Cuts a stream of text into lines; a peer that sends an endless line is cut off, not buffered. */
export class LineSplitter {
  private buffer = '';

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
    private readonly maxLineChars = 16 * 1024 * 1024,
  ) {}

  /** Feeds decoded text (use `setEncoding('utf8')` so a character split across chunks stays whole). */
  push(text: string): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = this.buffer + text.slice(start, nl);
      this.buffer = '';
      start = nl + 1;
      if (line.trim() !== '') this.onLine(line);
    }
    this.buffer += text.slice(start);
    if (this.buffer.length > this.maxLineChars) {
      this.buffer = '';
      this.onOverflow();
    }
  }
}
