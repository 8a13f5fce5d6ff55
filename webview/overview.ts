// The overview of a graph bigger than the view: every node as a dot in its status colour (failed,
// running and waiting ones stand out, the rest are faint), the view's window as a frame on it;
// pressing (or dragging) on it moves the view there. Shown only while the graph does not fit.
import type { StepStatus } from '../src/protocol/webview';
import { el } from './dom';
import { contentPoint, needsOverview, overviewScale, visibleRect, type OverviewScale } from './overviewMath';
import type { Transform } from './panZoom';

export interface OverviewNode {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly status: StepStatus;
}

const MAX_W = 220;
const MAX_H = 140;

// What stands out: the statuses that need the user, in the theme's colours.
const LOUD: Partial<Record<StepStatus, string>> = {
  failed: '--vscode-testing-iconFailed',
  conflict: '--vscode-charts-orange',
  running: '--vscode-charts-blue',
  review: '--vscode-charts-green',
  waiting: '--vscode-charts-yellow',
};

export class Overview {
  readonly root: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly frame: HTMLElement;
  private scale: OverviewScale = { sx: 1, sy: 1, width: 0, height: 0 };
  private size = { width: 0, height: 0 };
  private nodes: () => readonly OverviewNode[] = () => [];
  private pending = false;
  private pressed: number | undefined;

  constructor(private readonly move: (cx: number, cy: number) => void) {
    this.canvas = el('canvas', { class: 'graph-overview-nodes' });
    this.frame = el('div', { class: 'graph-overview-window' });
    this.root = el(
      'div',
      {
        class: 'graph-overview',
        role: 'navigation',
        'aria-label': 'Overview of the whole graph: press to move the view there',
        title: 'Overview: click to move the view',
        hidden: true,
      },
      this.canvas,
      this.frame,
    );
    const at = (e: PointerEvent): void => {
      const r = this.root.getBoundingClientRect();
      const p = contentPoint(this.scale, e.clientX - r.left, e.clientY - r.top);
      this.move(p.x, p.y);
    };
    // Its own gestures: the canvas beneath must neither pan nor take the click as "clear selection".
    this.root.addEventListener('pointerdown', (e) => {
      e.stopPropagation();
      if (e.button !== 0) return;
      this.pressed = e.pointerId;
      this.root.setPointerCapture(e.pointerId);
      at(e);
    });
    this.root.addEventListener('pointermove', (e) => {
      if (this.pressed === e.pointerId) at(e);
    });
    const end = (e: PointerEvent): void => {
      if (this.pressed === e.pointerId) this.pressed = undefined;
    };
    this.root.addEventListener('pointerup', end);
    this.root.addEventListener('pointercancel', end);
    this.root.addEventListener('click', (e) => e.stopPropagation());
    this.root.addEventListener('wheel', (e) => e.stopPropagation(), { passive: true });
  }

  /** A new graph: its size, and where its nodes are (read again at each redraw, for their statuses). */
  setGraph(width: number, height: number, nodes: () => readonly OverviewNode[]): void {
    this.size = { width, height };
    this.nodes = nodes;
    this.scale = overviewScale(width, height, MAX_W, MAX_H);
    this.root.style.width = `${this.scale.width}px`;
    this.root.style.height = `${this.scale.height}px`;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.scale.width * dpr);
    this.canvas.height = Math.round(this.scale.height * dpr);
    this.redraw();
  }

  /** The view moved or resized: the window follows; hidden while everything fits. */
  view(t: Transform, viewW: number, viewH: number): void {
    const { width, height } = this.size;
    this.root.hidden = width === 0 || !needsOverview(width, height, viewW, viewH, t.scale);
    if (this.root.hidden) return;
    const r = visibleRect(t, viewW, viewH, width, height);
    const s = this.scale;
    Object.assign(this.frame.style, {
      left: `${r.x * s.sx}px`,
      top: `${r.y * s.sy}px`,
      width: `${Math.max(3, r.width * s.sx)}px`,
      height: `${Math.max(3, r.height * s.sy)}px`,
    });
  }

  /** Statuses changed: repaint the dots at the next frame (once however many changed). */
  redraw(): void {
    if (this.pending) return;
    this.pending = true;
    const paint = (): void => {
      this.pending = false;
      this.paint();
    };
    requestAnimationFrame(paint);
  }

  private paint(): void {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    const dpr = window.devicePixelRatio || 1;
    const css = getComputedStyle(document.body);
    const colour = (v: string, fallback: string): string => css.getPropertyValue(v).trim() || fallback;
    const faint = colour('--vscode-descriptionForeground', '#888');
    const loud = new Map(Object.entries(LOUD).map(([k, v]) => [k, colour(v, '#e51400')]));
    const { sx, sy } = this.scale;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.scale.width, this.scale.height);
    const dot = (n: OverviewNode, min: number): void =>
      ctx.fillRect(n.x * sx, n.y * sy, Math.max(min, n.w * sx), Math.max(min, n.h * sy));
    // The quiet ones first and faint, then what needs attention on top, at least 3 px so it shows.
    ctx.globalAlpha = 0.45;
    ctx.fillStyle = faint;
    const nodes = this.nodes();
    for (const n of nodes) if (!loud.has(n.status)) dot(n, 1);
    ctx.globalAlpha = 1;
    for (const n of nodes) {
      const c = loud.get(n.status);
      if (c === undefined) continue;
      ctx.fillStyle = c;
      dot(n, 3);
    }
  }
}
