// The one way the page makes elements: attributes set one by one and text only through
// textContent, so no data ever passes through an HTML parser.

export type Attrs = Readonly<Record<string, string | number | boolean | undefined>>;

/** An element with attributes (`false`/`undefined` omitted, `true` as an empty attribute) and text or child nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: (Node | string)[]): void {
  parent.replaceChildren(...children);
}
