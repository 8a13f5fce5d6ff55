// Pan (drag) and zoom (wheel, at the pointer) of the diagram by one CSS transform on its
// wrapper: moving the view never touches the SVG, so it never re-lays anything out. The math
// is pure and exported for tests; `PanZoom` wires it to the DOM.

export interface Transform {
  readonly x: number;
  readonly y: number;
  readonly scale: number;
}

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 4;

const clampScale = (s: number): number => Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));

/** Zooms by `factor` keeping the point (px, py) of the viewport fixed under the pointer. */
export function zoomAt(t: Transform, factor: number, px: number, py: number): Transform {
  const scale = clampScale(t.scale * factor);
  const k = scale / t.scale;
  return { scale, x: px - (px - t.x) * k, y: py - (py - t.y) * k };
}

/** The transform that shows the whole content centred in the viewport, never enlarged past 1:1. */
export function fitTransform(contentW: number, contentH: number, viewW: number, viewH: number, padding = 16): Transform {
  if (contentW <= 0 || contentH <= 0 || viewW <= 0 || viewH <= 0) return { x: 0, y: 0, scale: 1 };
  const scale = clampScale(Math.min(1, (viewW - 2 * padding) / contentW, (viewH - 2 * padding) / contentH));
  return { scale, x: (viewW - contentW * scale) / 2, y: (viewH - contentH * scale) / 2 };
}

/** The transform that puts the content point (cx, cy) at the centre of the viewport at the current scale. */
export function centreOn(t: Transform, cx: number, cy: number, viewW: number, viewH: number): Transform {
  return { scale: t.scale, x: viewW / 2 - cx * t.scale, y: viewH / 2 - cy * t.scale };
}

/** Wheel delta to a zoom factor: smooth for trackpads, a fixed step per mouse notch. */
export function wheelFactor(deltaY: number, deltaMode: number): number {
  const px = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.exp(-Math.max(-200, Math.min(200, px)) * 0.0015);
}

/** A press that moved less than this is a click (select a node), not a drag. */
export const DRAG_THRESHOLD_PX = 4;

export class PanZoom {
  private t: Transform = { x: 0, y: 0, scale: 1 };
  private drag: { id: number; x: number; y: number; t: Transform; moved: boolean } | undefined;
  /** True right after a drag ended, so the click it fires does not select a node. */
  suppressClick = false;

  constructor(private readonly viewport: HTMLElement, private readonly content: HTMLElement) {
    viewport.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = viewport.getBoundingClientRect();
      this.set(zoomAt(this.t, wheelFactor(e.deltaY, e.deltaMode), e.clientX - r.left, e.clientY - r.top));
    }, { passive: false });
    viewport.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      this.drag = { id: e.pointerId, x: e.clientX, y: e.clientY, t: this.t, moved: false };
      this.suppressClick = false;
    });
    viewport.addEventListener('pointermove', (e) => {
      const d = this.drag;
      if (!d || d.id !== e.pointerId) return;
      const dx = e.clientX - d.x;
      const dy = e.clientY - d.y;
      if (!d.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
      if (!d.moved) {
        d.moved = true;
        viewport.setPointerCapture(e.pointerId);
        viewport.classList.add('dragging');
      }
      this.set({ ...d.t, x: d.t.x + dx, y: d.t.y + dy });
    });
    const end = (e: PointerEvent): void => {
      if (!this.drag || this.drag.id !== e.pointerId) return;
      this.suppressClick = this.drag.moved;
      this.drag = undefined;
      viewport.classList.remove('dragging');
    };
    viewport.addEventListener('pointerup', end);
    viewport.addEventListener('pointercancel', end);
  }

  get transform(): Transform {
    return this.t;
  }

  set(t: Transform): void {
    this.t = t;
    this.content.style.transform = `translate(${t.x}px, ${t.y}px) scale(${t.scale})`;
  }

  /** Shows the whole diagram (`width`×`height` in content px). */
  fit(width: number, height: number): void {
    this.set(fitTransform(width, height, this.viewport.clientWidth, this.viewport.clientHeight));
  }

  zoom(factor: number): void {
    this.set(zoomAt(this.t, factor, this.viewport.clientWidth / 2, this.viewport.clientHeight / 2));
  }

  /** Scrolls the content point (cx, cy) to the middle of the view. */
  centre(cx: number, cy: number): void {
    this.set(centreOn(this.t, cx, cy, this.viewport.clientWidth, this.viewport.clientHeight));
  }
}
