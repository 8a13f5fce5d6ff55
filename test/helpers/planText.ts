// Plan texts in tests written as they read, not as arrays of quoted lines: `plan` is a tag whose
// text starts on the line after the backtick and whose indent is the closing backtick's, which
// every line loses (a line with less is a mistake in the test, so it throws). The result ends with a
// newline, as a plan file does. Values interpolated (`${JSON.stringify(dir)}`) go in untouched.

export function plan(strings: TemplateStringsArray, ...values: unknown[]): string {
  const first = strings[0]!;
  const last = strings[strings.length - 1]!;
  const closing = /\n([ ]*)$/.exec(last);
  if (!first.startsWith('\n') || !closing)
    throw new Error('plan`…`: start the text on the line after the backtick and close it on a line of its own');
  const indent = closing[1]!;
  const undent = (piece: string, at: number): string =>
    piece.replace(/\n([^\n]*)/g, (_, line: string) => {
      if (line.startsWith(indent)) return `\n${line.slice(indent.length)}`;
      if (line.trim() === '') return '\n';
      throw new Error(
        `plan\`…\`: a line of piece ${at} is indented less than the closing backtick: ${JSON.stringify(line)}`,
      );
    });
  let text = '';
  strings.forEach((piece, i) => {
    text += undent(piece, i);
    if (i < values.length) text += String(values[i]);
  });
  return text.slice(1);
}
