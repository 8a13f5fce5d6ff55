// ANSI escape handling for log lines: SGR colours and styles become segments the log pane draws
// as spans (classes for the 16 theme colours, so they follow the terminal palette of the VS Code
// theme); every other escape and control character is dropped, so output can neither move a
// cursor nor smuggle markup. Each line is parsed on its own (lines are rendered virtualized, in
// any order). No DOM: unit-tested in Node.

export interface AnsiStyle {
  /** 0–15: a theme palette colour; a string: an exact `rgb(…)` from 256-colour or true-colour codes. */
  readonly fg?: number | string;
  readonly bg?: number | string;
  readonly bold?: boolean;
  readonly dim?: boolean;
  readonly italic?: boolean;
  readonly underline?: boolean;
  readonly inverse?: boolean;
}

export interface AnsiSegment {
  readonly text: string;
  readonly style: AnsiStyle;
}

// CSI (ESC [ params final), OSC (ESC ] … BEL or ST), charset designations, other two-byte escapes, C1 CSI.
const ESCAPE =
  /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[()*+\-./][ -~]?|\x1b[ -~]?|\x9b[0-?]*[ -/]*[@-~]/g;
// C0 and C1 controls other than tab, which the pane shows as spacing.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** What a terminal would leave on screen of a line rewritten with carriage returns (progress bars). */
export function afterCarriageReturn(line: string): string {
  const trimmed = line.endsWith('\r') ? line.replace(/\r+$/, '') : line;
  const cr = trimmed.lastIndexOf('\r');
  return cr < 0 ? trimmed : trimmed.slice(cr + 1);
}

/** The line's text with every escape sequence and control character removed. */
export function stripAnsi(line: string): string {
  return afterCarriageReturn(line).replace(ESCAPE, '').replace(CONTROL, '');
}

/** The line split into styled runs of plain text (adjacent runs of one style merged). */
export function parseAnsi(line: string): AnsiSegment[] {
  const src = afterCarriageReturn(line);
  const out: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  const emit = (raw: string): void => {
    const text = raw.replace(CONTROL, '');
    if (text === '') return;
    const prev = out[out.length - 1];
    if (prev && sameStyle(prev.style, style)) out[out.length - 1] = { text: prev.text + text, style };
    else out.push({ text, style });
  };
  let last = 0;
  for (const m of src.matchAll(ESCAPE)) {
    emit(src.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] === 'm' && m[0].startsWith('\x1b[')) style = applySgr(style, m[1] ?? '');
  }
  emit(src.slice(last));
  return out;
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  return (
    a.fg === b.fg &&
    a.bg === b.bg &&
    !a.bold === !b.bold &&
    !a.dim === !b.dim &&
    !a.italic === !b.italic &&
    !a.underline === !b.underline &&
    !a.inverse === !b.inverse
  );
}

/** Applies one SGR parameter list (`1;31`, `38;5;208`, `` = reset) to a style. */
export function applySgr(style: AnsiStyle, params: string): AnsiStyle {
  // Private-mode or malformed parameters (`?25`, `<…`) are not SGR: ignore the whole sequence.
  if (!/^[\d;:]*$/.test(params)) return style;
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let s: { -readonly [K in keyof AnsiStyle]: AnsiStyle[K] } = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i] ?? 0;
    if (c === 0) s = {};
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) {
      delete s.bold;
      delete s.dim;
    } else if (c === 23) delete s.italic;
    else if (c === 24) delete s.underline;
    else if (c === 27) delete s.inverse;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) delete s.fg;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 49) delete s.bg;
    else if (c === 38 || c === 48) {
      const [color, used] = extendedColor(codes, i + 1);
      if (color !== undefined) {
        if (c === 38) s.fg = color;
        else s.bg = color;
      }
      i += used;
    }
  }
  return s;
}

// `5;n` (256 colours) or `2;r;g;b` (true colour) after a 38/48; returns the colour and the codes used.
function extendedColor(codes: readonly number[], at: number): [number | string | undefined, number] {
  const mode = codes[at];
  if (mode === 5) {
    const n = codes[at + 1];
    return [n !== undefined && Number.isInteger(n) && n >= 0 && n <= 255 ? color256(n) : undefined, 2];
  }
  if (mode === 2) {
    const rgb = codes.slice(at + 1, at + 4);
    const ok = rgb.length === 3 && rgb.every((v) => Number.isInteger(v) && v >= 0 && v <= 255);
    return [ok ? `rgb(${rgb.join(',')})` : undefined, 4];
  }
  return [undefined, codes.length]; // unknown form: the rest of the list is its arguments
}

/** A 256-colour index: the 16 palette colours stay theme colours, the rest become exact rgb. */
export function color256(n: number): number | string {
  if (n < 16) return n;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v},${v},${v})`;
  }
  const i = n - 16;
  const level = (k: number): number => (k === 0 ? 0 : 55 + k * 40);
  return `rgb(${level(Math.floor(i / 36))},${level(Math.floor(i / 6) % 6)},${level(i % 6)})`;
}

/** The CSS classes of a style (`ansi-fg-1`, `ansi-bold`…); exact colours are set as properties by the caller. */
export function styleClasses(style: AnsiStyle): string[] {
  const cls: string[] = [];
  const fg = style.inverse ? style.bg : style.fg;
  const bg = style.inverse ? style.fg : style.bg;
  if (typeof fg === 'number') cls.push(`ansi-fg-${fg}`);
  if (typeof bg === 'number') cls.push(`ansi-bg-${bg}`);
  // Inverse without an explicit colour swaps the pane's own foreground and background.
  if (style.inverse && fg === undefined) cls.push('ansi-inverse-fg');
  if (style.inverse && bg === undefined) cls.push('ansi-inverse-bg');
  if (style.bold) cls.push('ansi-bold');
  if (style.dim) cls.push('ansi-dim');
  if (style.italic) cls.push('ansi-italic');
  if (style.underline) cls.push('ansi-underline');
  return cls;
}

/** The exact (non-palette) colours of a style, after inverse, for `style.color`/`backgroundColor`. */
export function exactColors(style: AnsiStyle): { color?: string; background?: string } {
  const [fg, bg] = style.inverse ? [style.bg, style.fg] : [style.fg, style.bg];
  const out: { color?: string; background?: string } = {};
  if (typeof fg === 'string') out.color = fg;
  if (typeof bg === 'string') out.background = bg;
  return out;
}
