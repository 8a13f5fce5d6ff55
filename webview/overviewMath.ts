// The overview's geometry: the whole graph shrunk into a small box, the view's window drawn on
// it, and a click on it turned back into the content point to centre. Pure, unit-tested.
import type { Transform } from './panZoom';

export interface OverviewScale {
  /** Content px → overview px, per axis (a very long, flat graph is stretched to stay visible). */
  readonly sx: number;
  readonly sy: number;
  readonly width: number;
  readonly height: number;
}

/** Fits content W×H into at most maxW×maxH; an axis that would be thinner than `minSide` is stretched to it. */
export function overviewScale(
  contentW: number,
  contentH: number,
  maxW: number,
  maxH: number,
  minSide = 36,
): OverviewScale {
  if (contentW <= 0 || contentH <= 0) return { sx: 1, sy: 1, width: 0, height: 0 };
  const s = Math.min(maxW / contentW, maxH / contentH);
  const width = Math.min(maxW, Math.max(minSide, contentW * s));
  const height = Math.min(maxH, Math.max(minSide, contentH * s));
  return { sx: width / contentW, sy: height / contentH, width, height };
}

/** The part of the content the view shows, in content px (clipped to the content). */
export function visibleRect(
  t: Transform,
  viewW: number,
  viewH: number,
  contentW: number,
  contentH: number,
): { x: number; y: number; width: number; height: number } {
  const x0 = Math.max(0, -t.x / t.scale);
  const y0 = Math.max(0, -t.y / t.scale);
  const x1 = Math.min(contentW, (viewW - t.x) / t.scale);
  const y1 = Math.min(contentH, (viewH - t.y) / t.scale);
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/** The content point under an overview point. */
export function contentPoint(s: OverviewScale, ox: number, oy: number): { x: number; y: number } {
  return { x: ox / s.sx, y: oy / s.sy };
}

/** Whether the graph needs an overview: it does not fit the view at the scale shown. */
export function needsOverview(
  contentW: number,
  contentH: number,
  viewW: number,
  viewH: number,
  scale: number,
): boolean {
  return contentW * scale > viewW + 1 || contentH * scale > viewH + 1;
}
