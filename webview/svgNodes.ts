// What the graph does to mermaid's drawing once it is made: reads its node ids and label size,
// drops its inline colours, adds the selection halo, and removes anything executable.

/** mermaid's SVG as a string (a build without the live-SVG patch), parsed in an inert document. */
export function parseSvg(text: string): SVGSVGElement {
  const svg = new DOMParser().parseFromString(text, 'text/html').querySelector('svg');
  if (!svg) throw new Error('mermaid produced no SVG');
  return document.adoptNode(svg);
}

/** The font size of the drawn node labels (mermaid's `fontSize`, 16 by default). */
export function labelFontPx(content: HTMLElement): number {
  const label = content.querySelector('g.node .nodeLabel, g.node .label');
  const px = label ? Number.parseFloat(getComputedStyle(label).fontSize) : Number.NaN;
  return Number.isFinite(px) && px > 0 ? px : 16;
}

// mermaid writes classDef colours as inline `!important` styles, which no stylesheet can beat:
// drop the colour properties (layout ones stay) so data-status and the theme decide.
const PAINT = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'color'] as const;
export function unpaint(g: SVGGElement): void {
  for (const e of [g, ...Array.from(g.querySelectorAll<HTMLElement | SVGElement>('[style]'))]) {
    for (const p of PAINT) e.style.removeProperty(p);
  }
}

// The selection outline: a copy of the node's box a little larger, behind it, shown by CSS when
// selected, so selecting never hides the node's own status outline.
export function addHalo(g: SVGGElement): void {
  const box = g.querySelector(':scope > rect');
  if (!(box instanceof SVGRectElement)) return;
  const pad = 4;
  const halo = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  halo.setAttribute('class', 'braid-halo');
  for (const [k, d] of [
    ['x', -pad],
    ['y', -pad],
    ['width', 2 * pad],
    ['height', 2 * pad],
  ] as const) {
    halo.setAttribute(k, String(Number(box.getAttribute(k) ?? 0) + d));
  }
  halo.setAttribute('rx', '4');
  g.insertBefore(halo, g.firstChild);
}

// Our node id (`n3`) from mermaid's element id `<renderId>-flowchart-n3-<counter>` (or `data-id`, where kept).
export function nodeIdOf(g: Element): string | undefined {
  const data = g.getAttribute('data-id');
  if (data !== null && /^n\d+$/.test(data)) return data;
  return /-flowchart-(n\d+)-\d+$/.exec(g.id)?.[1];
}

// Defence in depth under the CSP: nothing executable survives, whatever mermaid let through.
// Event-handler attributes (in any case) and links are found by one XPath query, not by reading
// every attribute of the drawing's ~20,000 elements (a 1,000-step graph) in script.
const RISKY_ATTRIBUTES = ".//@*[starts-with(translate(name(), 'ON', 'on'), 'on') or local-name() = 'href']";
export function scrub(root: Element): void {
  for (const bad of Array.from(root.querySelectorAll('script, iframe, object, embed'))) bad.remove();
  const found = root.ownerDocument.evaluate(RISKY_ATTRIBUTES, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  for (let i = 0; i < found.snapshotLength; i++) {
    const a = found.snapshotItem(i);
    if (!(a instanceof Attr)) continue;
    const name = a.name.toLowerCase();
    if (
      name.startsWith('on') ||
      ((name === 'href' || name.endsWith(':href')) && a.value.trim().toLowerCase().startsWith('javascript:'))
    )
      a.ownerElement?.removeAttributeNode(a);
  }
}
