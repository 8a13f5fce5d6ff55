// What a structured agent prints on stderr that is noise in a readable log: codex's "Reading
// additional input from stdin...", gemini's 256-colour warning and `[STARTUP]` timings, the
// stack traces (and the error object dumped after one) that gemini prints with an API error.
// Filtered lines are not lost: the caller keeps them in the raw stream.

const NOISE: readonly RegExp[] = [
  /^Reading additional input from stdin\.\.\.$/,
  /^Warning: 256-color support not detected/,
  /^\[STARTUP\]/,
  /^YOLO mode is enabled\./,
  /^WARNING: proceeding, even though we could not create PATH aliases/,
];
const STACK_FRAME = /^\s+at\s+\S/;

export interface FilteredLines {
  /** Lines for the readable log (each ending in a newline). */
  readonly kept: string;
  /** Lines filtered out, without their newlines. */
  readonly dropped: string[];
}

/** Splits stderr chunks into lines and sorts them into readable and noise. */
export class StderrFilter {
  private partial = '';
  // In a stack trace, or the object dump after one (until a line at column 0 other than `}`).
  private inTrace = false;

  push(chunk: string): FilteredLines {
    const text = this.partial + chunk;
    const nl = text.lastIndexOf('\n');
    if (nl === -1) {
      this.partial = text;
      return { kept: '', dropped: [] };
    }
    this.partial = text.slice(nl + 1);
    return this.lines(text.slice(0, nl).split('\n'));
  }

  end(): FilteredLines {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? { kept: '', dropped: [] } : this.lines([rest]);
  }

  private lines(lines: string[]): FilteredLines {
    let kept = '';
    const dropped: string[] = [];
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (this.noise(line)) dropped.push(line);
      else kept += `${line}\n`;
    }
    return { kept, dropped };
  }

  private noise(line: string): boolean {
    if (STACK_FRAME.test(line)) {
      this.inTrace = true;
      return true;
    }
    if (this.inTrace) {
      if (line === '' || /^\s/.test(line) || /^[}\])]/.test(line)) return true;
      this.inTrace = false;
    }
    return NOISE.some((p) => p.test(line));
  }
}
