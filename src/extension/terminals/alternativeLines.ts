// A best-of step's alternatives race in one step, so its terminal gets all of their output: each
// line is marked with the alternative that printed it ("[2] "), dimmed, so the racers can be told
// apart. Lines are marked where they start; a chunk that ends mid-line leaves the rest of that line
// to the alternative's next chunk. Pure, tested in plain mocha.

export class AlternativeLines {
  /** Alternatives whose last chunk ended mid-line: their next chunk continues that line. */
  private readonly midLine = new Set<number>();

  /** `text` of alternative `n` with each line it starts marked. */
  mark(n: number, text: string): string {
    if (text === '') return text;
    const label = `\x1b[2m[${n}]\x1b[0m `;
    const lines = text.split('\n');
    const out = lines.map((line, i) => {
      const continues = i === 0 && this.midLine.has(n);
      const last = i === lines.length - 1;
      // The empty piece after a final newline starts no line yet.
      return continues || (last && line === '') ? line : label + line;
    });
    if (text.endsWith('\n')) this.midLine.delete(n);
    else this.midLine.add(n);
    return out.join('\n');
  }
}
