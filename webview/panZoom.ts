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
export function fitTransform(
  contentW: number,
  contentH: number,
  viewW: number,
  viewH: number,
  padding = 16,
): Transform {
  if (contentW <= 0 || contentH <= 0 || viewW <= 0 || viewH <= 0) return { x: 0, y: 0, scale: 1 };
  const scale = clampScale(Math.min(1, (viewW - 2 * padding) / contentW, (viewH - 2 * padding) / contentH));
  return { scale, x: (viewW - contentW * scale) / 2, y: (viewH - contentH * scale) / 2 };
}

/**
 * The first view of a diagram: the whole of it when that is readable (`minScale`: the scale at
 * which its labels are still big enough to read), else its full width if that is readable, else
 * `minScale`; what does not fit is reached by scrolling, from the top left. Never enlarged past 1:1.
 */
export function readableTransform(
  contentW: number,
  contentH: number,
  viewW: number,
  viewH: number,
  minScale: number,
  padding = 16,
): Transform {
  if (contentW <= 0 || contentH <= 0 || viewW <= 0 || viewH <= 0) return { x: 0, y: 0, scale: 1 };
  const floor = Math.min(1, Math.max(MIN_SCALE, minScale));
  const fitW = (viewW - 2 * padding) / contentW;
  const fitH = (viewH - 2 * padding) / contentH;
  const whole = Math.min(1, fitW, fitH);
  const scale = whole >= floor ? whole : Math.max(floor, Math.min(1, fitW));
  const w = contentW * scale;
  const h = contentH * scale;
  return {
    scale,
    x: w <= viewW - 2 * padding ? (viewW - w) / 2 : padding,
    y: h <= viewH - 2 * padding ? (viewH - h) / 2 : padding,
  };
}

/** Keeps content on screen: it may not be dragged or scrolled further than its edges allow. */
export function clampPan(
  t: Transform,
  contentW: number,
  contentH: number,
  viewW: number,
  viewH: number,
  padding = 16,
): Transform {
  const axis = (pos: number, size: number, view: number): number => {
    const scaled = size * t.scale;
    if (scaled <= view - 2 * padding) return Math.min(Math.max(pos, padding), view - padding - scaled);
    return Math.min(padding, Math.max(pos, view - padding - scaled));
  };
  if (contentW <= 0 || contentH <= 0) return t;
  return { scale: t.scale, x: axis(t.x, contentW, viewW), y: axis(t.y, contentH, viewH) };
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

/** How the view follows a resize: keep the readable first view, keep the whole diagram, or leave it to the user. */
type ViewMode = 'readable' | 'whole' | 'manual';

export class PanZoom {
  private t: Transform = { x: 0, y: 0, scale: 1 };
  private mode: ViewMode = 'readable';
  private size = { width: 0, height: 0 };
  /** The scale below which labels are too small to read (set from the drawn diagram's font). */
  minReadableScale = 0.7;
  private drag: { id: number; x: number; y: number; t: Transform; moved: boolean } | undefined;
  /** True right after a drag ended, so the click it fires does not select a node. */
  suppressClick = false;
  /** Called after every move of the view (the overview's window follows it). */
  onChange: ((t: Transform) => void) | undefined;

  constructor(
    private readonly viewport: HTMLElement,
    private readonly content: HTMLElement,
  ) {
    // The wheel scrolls, as in an editor; with Ctrl or Cmd (and a trackpad pinch, which sends
    // Ctrl) it zooms at the pointer.
    viewport.addEventListener(
      'wheel',
      (e) => {
        e.preventDefault();
        this.mode = 'manual';
        if (e.ctrlKey || e.metaKey) {
          const r = viewport.getBoundingClientRect();
          this.set(zoomAt(this.t, wheelFactor(e.deltaY, e.deltaMode), e.clientX - r.left, e.clientY - r.top));
          return;
        }
        const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? viewport.clientHeight : 1;
        const dx = (e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX) * unit;
        const dy = (e.shiftKey && e.deltaX === 0 ? 0 : e.deltaY) * unit;
        this.set(this.clamped({ ...this.t, x: this.t.x - dx, y: this.t.y - dy }));
      },
      { passive: false },
    );
    new ResizeObserver(() => this.follow()).observe(viewport);
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
        this.mode = 'manual';
        viewport.setPointerCapture(e.pointerId);
        viewport.classList.add('dragging');
      }
      this.set(this.clamped({ ...d.t, x: d.t.x + dx, y: d.t.y + dy }));
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
    this.onChange?.(t);
  }

  /** The diagram's size in content px, as drawn. */
  setContentSize(width: number, height: number): void {
    this.size = { width, height };
  }

  /** The first view: readable labels, the width fitted where that keeps them readable (see readableTransform). */
  showReadable(): void {
    this.mode = 'readable';
    this.follow();
  }

  /** Shows the whole diagram, however small (the Fit button). */
  fit(): void {
    this.mode = 'whole';
    this.follow();
  }

  zoom(factor: number): void {
    this.mode = 'manual';
    this.set(zoomAt(this.t, factor, this.viewport.clientWidth / 2, this.viewport.clientHeight / 2));
  }

  // After a resize (or a new diagram) the view keeps doing what it was asked to: a user who
  // moved it keeps their view.
  private follow(): void {
    const { width, height } = this.size;
    const vw = this.viewport.clientWidth;
    const vh = this.viewport.clientHeight;
    if (this.mode === 'readable') this.set(readableTransform(width, height, vw, vh, this.minReadableScale));
    else if (this.mode === 'whole') this.set(fitTransform(width, height, vw, vh));
  }

  private clamped(t: Transform): Transform {
    return clampPan(t, this.size.width, this.size.height, this.viewport.clientWidth, this.viewport.clientHeight);
  }

  /** Scrolls the content point (cx, cy) to the middle of the view. */
  centre(cx: number, cy: number): void {
    this.mode = 'manual';
    // Kept inside the content's edges: a node near the end shows with the end, not beside empty space.
    this.set(this.clamped(centreOn(this.t, cx, cy, this.viewport.clientWidth, this.viewport.clientHeight)));
  }
}
