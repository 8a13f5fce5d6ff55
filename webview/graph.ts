// The diagram: mermaid lays a small graph out once per structure (its bundle loaded the first time
// one needs it; Braid's ranked layout stands in meanwhile), a big one is drawn by the ranked layout
// alone. After that a status change only sets the node's `data-status` attribute, which
// media/graph.css styles, so it restyles in place without a re-layout. Renders run one at a time
// and only the newest requested text is drawn: a stale render that finishes late is dropped, and an
// edit burst costs at most one extra layout.
import type { Mermaid, MermaidConfig, RenderResult } from 'mermaid';
import {
  groupCounts,
  groupCountsText,
  nodeStatus,
  stepStatuses,
  type GraphGroup,
  type GraphMessage,
  type GraphNode,
  type StepStatus,
} from '../src/protocol/webview';
import { el } from './dom';
import { Overview, type OverviewNode } from './overview';
import { PanZoom } from './panZoom';
import { drawRanked, type GroupFrame, type NodeLabel } from './rankedDrawing';
import { loadMermaid } from './mermaidLoader';
import { mermaidEdges, rankedLayout, type Layout } from './rankedLayout';
import { statusIcon } from './statusIcons';
import { addHalo, labelFontPx, nodeIdOf, parseSvg, scrub, unpaint } from './svgNodes';

type ThemeKind = 'light' | 'dark' | 'hc-dark' | 'hc-light';

function themeKind(): ThemeKind {
  const c = document.body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'hc-light';
  if (c.contains('vscode-high-contrast')) return 'hc-dark';
  return c.contains('vscode-dark') ? 'dark' : 'light';
}

function initMermaid(mermaid: Mermaid, kind: ThemeKind): void {
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: 'strict',
    theme: kind === 'dark' || kind === 'hc-dark' ? 'dark' : 'default',
    fontFamily: getComputedStyle(document.body).fontFamily || undefined,
    // mermaid refuses past 500 edges and 50,000 characters by default; a 1,000-step plan needs more.
    maxEdges: 50_000,
    maxTextSize: 5_000_000,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the root `htmlLabels` changes more than labels: a rendering change to judge in the workbench, not in a lint pass.
    flowchart: { useMaxWidth: false, htmlLabels: true },
    // Our build's patch (scripts/mermaidPatches.mjs): render() hands back the <svg> it drew, not a string to parse again.
    braidLiveSvg: true,
  } as MermaidConfig);
}

/** Resolves once the page has painted a frame (or soon, when it is hidden and paints none). */
const nextFrame = (): Promise<void> =>
  new Promise<void>((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 50);
  });

/** render()'s result with the build's patch: the drawn <svg> itself. */
type LiveRenderResult = RenderResult & { readonly braidLiveSvg?: SVGSVGElement };

const STATUS_CLASSES: readonly string[] = stepStatuses;

export interface GraphViewOptions {
  /** A node was clicked or activated from the keyboard. */
  readonly onSelect: (stepId: string) => void;
  /** The canvas was clicked away from any node. */
  readonly onClear?: () => void;
  /** The diagram was drawn (after a structure change) or failed to draw. */
  readonly onRendered?: (ok: boolean) => void;
  /** A collapsed group's node was clicked (expand it) or an expanded group's frame (collapse it). */
  readonly onToggleGroup?: (group: string, expand: boolean) => void;
}

/** Laying out taking longer than this shows progress over the canvas. */
const PROGRESS_AFTER_MS = 300;

/**
 * From this many nodes the graph is drawn by Braid's own ranked layout (rankedLayout.ts), in
 * slices, instead of mermaid's: mermaid's layout holds the page for its whole run (0.5 s at 300
 * steps, ~25 s at 5,000 on the bench's machine) and draws its first node only at its end. Below
 * it mermaid's curves, clusters and lock links read best and its layout is quick (see
 * bench/graphOpen.ts); the ranked layout draws such a graph first only while mermaid's bundle loads.
 */
export const RANKED_FROM_NODES = 150;

export class GraphView {
  readonly panZoom: PanZoom;
  private readonly content: HTMLElement;
  private readonly error: HTMLElement;
  private readonly progress: HTMLElement;
  private groups = new Map<string, GraphGroup>();
  private theme: ThemeKind = themeKind();
  /** mermaid, once its bundle is loaded (the first small graph loads it). */
  private mermaid: Mermaid | undefined;
  /** The theme mermaid was last initialised with (none before its bundle is loaded). */
  private mermaidTheme: ThemeKind | undefined;
  private renderedKey: string | undefined;
  private renderedTheme: ThemeKind | undefined;
  private wanted: { text: string; key: string } | undefined;
  private rendering = false;
  private generation = 0;
  private size = { width: 0, height: 0 };
  private steps = new Map<string, GraphNode>();
  /** Mermaid node id → the steps it draws (several for a collapsed matrix group). */
  private members = new Map<string, string[]>();
  private elements = new Map<string, SVGGElement>();
  private selected: string | undefined;
  private matches: ReadonlySet<string> = new Set();
  /** The ranked layout drawn, when the graph is big (else mermaid's), or a small one's stand-in. */
  private layout: (Layout & { readonly standIn?: boolean }) | undefined;
  private readonly overview: Overview;
  /** A ranked drawing still in progress: told where the view is, so it draws there next. */
  private drawing: { focus: (cx: number, cy: number) => void } | undefined;

  constructor(
    private readonly viewport: HTMLElement,
    private readonly opts: GraphViewOptions,
  ) {
    this.content = el('div', { class: 'graph-content', id: 'graph' });
    this.error = el('div', { class: 'graph-error', role: 'alert', hidden: true });
    this.progress = el('div', { class: 'graph-progress', role: 'status', hidden: true });
    viewport.append(this.content, this.error, this.progress);
    this.panZoom = new PanZoom(viewport, this.content);
    this.overview = new Overview((cx, cy) => this.panZoom.centre(cx, cy));
    viewport.append(this.overview.root);
    this.panZoom.onChange = (t) => {
      this.overview.view(t, viewport.clientWidth, viewport.clientHeight);
      this.drawing?.focus((viewport.clientWidth / 2 - t.x) / t.scale, (viewport.clientHeight / 2 - t.y) / t.scale);
    };
    viewport.addEventListener('click', (e) => {
      if (this.panZoom.suppressClick) return;
      const group = this.groupAt(e.target);
      if (group !== undefined) {
        this.opts.onToggleGroup?.(group.group, group.collapsed);
        return;
      }
      const id = this.stepAt(e.target);
      if (id !== undefined) this.opts.onSelect(id);
      else this.opts.onClear?.();
    });
    this.content.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      const group = this.groupAt(e.target);
      if (group !== undefined) {
        e.preventDefault();
        this.opts.onToggleGroup?.(group.group, group.collapsed);
        return;
      }
      const id = this.stepAt(e.target);
      if (id === undefined) return;
      e.preventDefault();
      this.opts.onSelect(id);
    });
    // A theme switch changes mermaid's own colours (edges, clusters): lay out again.
    new MutationObserver(() => {
      const kind = themeKind();
      if (kind === this.theme) return;
      this.theme = kind;
      if (this.wanted) void this.pump();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  /** Steps of the last graph message, in its order. */
  get nodes(): readonly GraphNode[] {
    return [...this.steps.values()];
  }

  node(stepId: string): GraphNode | undefined {
    return this.steps.get(stepId);
  }

  /** Takes a graph message: lays out again only if its structure key changed; otherwise restyles. */
  show(msg: GraphMessage): void {
    this.steps = new Map(msg.nodes.map((n) => [n.stepId, n]));
    this.groups = new Map((msg.groups ?? []).map((g) => [g.group, g]));
    this.members = new Map();
    for (const n of msg.nodes) this.members.set(n.nodeId, [...(this.members.get(n.nodeId) ?? []), n.stepId]);
    this.wanted = { text: msg.mermaid, key: msg.structureKey };
    if (msg.structureKey === this.renderedKey && this.theme === this.renderedTheme) {
      this.decorate();
      return;
    }
    void this.pump();
  }

  /** Restyles the node drawing `stepId` in place. Returns false for a step not in the graph. */
  setStatus(stepId: string, status: StepStatus, time?: string, won?: boolean): boolean {
    const n = this.steps.get(stepId);
    if (!n) return false;
    this.steps.set(stepId, {
      ...n,
      status,
      ...(time !== undefined ? { time } : {}),
      ...(won !== undefined ? { won } : {}),
    });
    const g = this.elements.get(n.nodeId);
    if (g) this.styleNode(g, n.nodeId);
    if (n.status !== status) this.overview.redraw();
    return true;
  }

  select(stepId: string | undefined): void {
    this.selected = stepId;
    for (const [nodeId, g] of this.elements) this.markSelected(nodeId, g);
  }

  private markSelected(nodeId: string, g: SVGGElement): void {
    const on = this.selected !== undefined && (this.members.get(nodeId) ?? []).includes(this.selected);
    if (on) g.setAttribute('data-selected', 'true');
    else g.removeAttribute('data-selected');
    g.setAttribute('aria-pressed', String(on));
  }

  /** Marks search matches (and clears the rest); nodes drawn later are marked as they come. */
  highlight(stepIds: ReadonlySet<string>): void {
    this.matches = stepIds;
    for (const [nodeId, g] of this.elements) this.markMatch(nodeId, g);
  }

  private markMatch(nodeId: string, g: SVGGElement): void {
    if ((this.members.get(nodeId) ?? []).some((s) => this.matches.has(s))) g.setAttribute('data-match', 'true');
    else g.removeAttribute('data-match');
  }

  /** Scrolls the step's node to the middle of the view and gives it keyboard focus (if it is drawn yet). */
  reveal(stepId: string): void {
    const n = this.steps.get(stepId);
    // A ranked graph knows every node's place before it is drawn: follow it even then.
    const p = n && this.layout?.byId.get(n.nodeId);
    if (p) {
      const { nodeWidth: w, nodeHeight: h } = this.layout!.options;
      this.panZoom.centre(p.x + w / 2, p.y + h / 2);
      this.elements.get(n.nodeId)?.focus({ preventScroll: true });
      return;
    }
    const g = n && this.elements.get(n.nodeId);
    if (!g) return;
    const r = g.getBoundingClientRect();
    const c = this.content.getBoundingClientRect();
    const k = this.panZoom.transform.scale;
    this.panZoom.centre((r.left + r.width / 2 - c.left) / k, (r.top + r.height / 2 - c.top) / k);
    g.focus({ preventScroll: true });
  }

  /** The whole diagram, however small (the toolbar's Fit). */
  fit(): void {
    this.panZoom.fit();
  }

  /** The group a click toggles: a collapsed group's node, or an expanded group's frame (not its instances). */
  private groupAt(target: EventTarget | null): GraphGroup | undefined {
    if (!(target instanceof Element)) return undefined;
    const node = target.closest('g.node[data-group]');
    if (node) return this.groups.get(node.getAttribute('data-group') ?? '');
    if (target.closest('g.node')) return undefined;
    const cluster = target.closest('g.cluster[data-group]');
    return cluster ? this.groups.get(cluster.getAttribute('data-group') ?? '') : undefined;
  }

  private stepAt(target: EventTarget | null): string | undefined {
    const g = target instanceof Element ? target.closest('[data-step-id]') : null;
    return g?.getAttribute('data-step-id') ?? undefined;
  }

  // One render at a time; whatever was asked for meanwhile is drawn next (only the newest).
  private async pump(): Promise<void> {
    if (this.rendering) return;
    this.rendering = true;
    try {
      while (this.wanted && (this.wanted.key !== this.renderedKey || this.theme !== this.renderedTheme)) {
        const { text, key } = this.wanted;
        const theme = this.theme;
        const ok = await this.render(text);
        // Recorded even on failure, so the same broken text is not retried in a loop.
        this.renderedKey = key;
        this.renderedTheme = theme;
        if (this.wanted.key === key && this.theme === theme) this.opts.onRendered?.(ok);
      }
    } finally {
      this.rendering = false;
    }
  }

  private async render(text: string): Promise<boolean> {
    const id = `braid-graph-${++this.generation}`;
    const key = this.wanted?.key;
    document.body.setAttribute('data-graph-state', 'rendering');
    // mermaid blocks the page while it lays out, so no timer could show progress then: it is put
    // up now, invisible, and a compositor animation fades it in after PROGRESS_AFTER_MS (the
    // page gets one frame to paint it before the layout starts).
    const steps = this.steps.size;
    this.progress.replaceChildren(
      el('span', { class: 'spinner', 'aria-hidden': 'true' }),
      `Laying out ${steps} ${steps === 1 ? 'step' : 'steps'}…`,
    );
    this.progress.style.animationDelay = `${PROGRESS_AFTER_MS}ms`;
    this.progress.hidden = false;
    await nextFrame();
    const started = performance.now();
    // A small graph before mermaid's bundle is loaded: the ranked layout draws it at once, as a
    // stand-in; mermaid's bundle is then loaded and its drawing replaces it (render() below).
    const standIn = this.members.size < RANKED_FROM_NODES && !this.mermaid;
    if (this.members.size >= RANKED_FROM_NODES || standIn) {
      try {
        if (!standIn) return await this.renderRanked(text);
        const drawn = await this.renderRanked(text, false);
        // The stand-in on screen for a frame before mermaid's parse holds the page.
        await nextFrame();
        return drawn && this.wanted?.key === key ? await this.renderMermaid(id, text, started) : drawn;
      } catch (e) {
        return this.failed(e);
      } finally {
        this.progress.hidden = true;
        document.body.setAttribute('data-layout-ms', String(Math.round(performance.now() - started)));
      }
    }
    return this.renderMermaid(id, text, started);
  }

  /** mermaid's drawing of a small graph, in place of whatever is drawn. */
  private async renderMermaid(id: string, text: string, started: number): Promise<boolean> {
    try {
      // mermaid's bundle is parsed only now, for the first graph that needs it (mermaidLoader.ts).
      const mermaid = (this.mermaid ??= await loadMermaid());
      if (this.mermaidTheme !== this.theme) initMermaid(mermaid, (this.mermaidTheme = this.theme));
      // No separate mermaid.parse first: render parses anyway and throws the same errors, and a
      // second parse cost ~0.4 s of a 1,000-step graph's 7 s.
      const result = (await mermaid.render(id, text)) as LiveRenderResult;
      // Without the patch (BRAID_MERMAID_LIVE=0, for the bench's comparison) the string is parsed.
      this.install(result.braidLiveSvg ?? parseSvg(result.svg));
      this.error.hidden = true;
      this.error.textContent = '';
      document.body.setAttribute('data-graph-state', 'rendered');
      return true;
    } catch (e) {
      return this.failed(e);
    } finally {
      // mermaid leaves its scratch container behind when rendering throws.
      document.getElementById(`d${id}`)?.remove();
      this.progress.hidden = true;
      document.body.setAttribute('data-layout-ms', String(Math.round(performance.now() - started)));
    }
  }

  private failed(e: unknown): false {
    // Shown inline; the last good diagram stays beneath the message.
    this.error.textContent = `The graph could not be drawn: ${e instanceof Error ? e.message : String(e)}`;
    this.error.hidden = false;
    document.body.setAttribute('data-graph-state', 'error');
    return false;
  }

  /**
   * A big graph: Braid's ranked layout, drawn a slice at a time nearest the first view first, with
   * the count drawn as progress. The view is set before any node is drawn, on what matters.
   */
  private async renderRanked(text: string, final = true): Promise<boolean> {
    const key = this.wanted?.key;
    const layout = rankedLayout([...this.members.keys()], mermaidEdges(text));
    // The layout (tens of ms at 10,000 steps, more on a busy machine) and the first slice with the
    // overview in tasks of their own, so neither adds to the other's hold on the page (#35: ≤ 200 ms).
    if (this.members.size >= RANKED_FROM_NODES) await new Promise((resolve) => setTimeout(resolve, 0));
    if (this.wanted?.key !== key) return false;
    const first = this.size.width === 0 || this.layout?.standIn === true;
    this.layout = final ? layout : { ...layout, standIn: true };
    this.size = { width: layout.width, height: layout.height };
    this.elements = new Map();
    this.clusters = new Map();
    this.panZoom.setContentSize(layout.width, layout.height);
    this.panZoom.minReadableScale = READABLE_LABEL_PX / RANKED_LABEL_PX;
    if (first) this.openOnWhatMatters();
    const t = this.panZoom.transform;
    const cx = (this.viewport.clientWidth / 2 - t.x) / t.scale;
    const cy = (this.viewport.clientHeight / 2 - t.y) / t.scale;
    const { nodeWidth: w, nodeHeight: h } = layout.options;
    this.overview.setGraph(layout.width, layout.height, () =>
      layout.nodes.map((p) => ({ x: p.x, y: p.y, w, h, status: this.statusOf(p.id) })),
    );
    this.overview.view(t, this.viewport.clientWidth, this.viewport.clientHeight);
    const total = this.members.size;
    const { root, done, focus } = drawRanked(
      layout,
      cx,
      cy,
      {
        label: (nodeId) => this.labelOf(nodeId),
        drawn: (nodeId, g) => {
          this.elements.set(nodeId, g);
          addHalo(g);
          this.decorateNode(nodeId, g);
        },
        progress: (n) =>
          this.progress.replaceChildren(
            el('span', { class: 'spinner', 'aria-hidden': 'true' }),
            `Drawing ${n.toLocaleString()} of ${total.toLocaleString()} steps…`,
          ),
        stale: () => this.wanted?.key !== key,
      },
      this.groupFrames(layout),
    );
    this.content.replaceChildren(root);
    for (const c of Array.from(root.querySelectorAll<SVGGElement>('g.cluster')))
      this.clusters.set(c.getAttribute('data-id') ?? '', c);
    this.decorate();
    this.error.hidden = true;
    this.error.textContent = '';
    this.drawing = { focus };
    try {
      await done;
    } finally {
      this.drawing = undefined;
    }
    if (final) document.body.setAttribute('data-graph-state', 'rendered');
    return true;
  }

  /** A frame around each expanded group's nodes in the ranked layout, with room for its name above them. */
  private groupFrames(layout: Layout): GroupFrame[] {
    const { nodeWidth: w, nodeHeight: h } = layout.options;
    const frames: GroupFrame[] = [];
    for (const group of this.groups.values()) {
      if (group.collapsed || group.clusterId === undefined) continue;
      const placed = this.nodes
        .filter((n) => n.group === group.group && n.stepId !== group.group)
        .map((n) => layout.byId.get(n.nodeId))
        .filter((p) => p !== undefined);
      if (placed.length === 0) continue;
      const x = Math.min(...placed.map((p) => p.x)) - 6;
      const y = Math.min(...placed.map((p) => p.y)) - 20;
      const width = Math.max(...placed.map((p) => p.x + w)) + 6 - x;
      const height = Math.max(...placed.map((p) => p.y + h)) + 6 - y;
      frames.push({ clusterId: group.clusterId, label: group.group, x, y, width, height });
    }
    return frames;
  }

  /** The status a node shows (a collapsed group's: what most needs attention). */
  private statusOf(nodeId: string): StepStatus {
    return nodeStatus((this.members.get(nodeId) ?? []).map((id) => this.steps.get(id)?.status ?? 'pending'));
  }

  /** What a ranked node says: as toMermaid labels it (a collapsed group by its name, with its counts). */
  private labelOf(nodeId: string): NodeLabel {
    const first = this.steps.get(this.members.get(nodeId)?.[0] ?? '');
    if (!first) return { title: nodeId };
    const group = first.group !== undefined ? this.groups.get(first.group) : undefined;
    if (group?.collapsed === true)
      return { title: group.alternatives === true ? first.name : group.group, counts: true };
    return { title: first.name, ...(first.agent !== undefined ? { sub: first.agent } : {}) };
  }

  /**
   * The first view opens on what matters: the first failed step, else the first running, waiting
   * or in-review one, centred at a readable scale; with none, the readable view of the start.
   */
  private openOnWhatMatters(): void {
    this.panZoom.showReadable();
    const order: readonly StepStatus[] = ['failed', 'conflict', 'running', 'review', 'waiting'];
    for (const status of order) {
      const n = this.nodes.find((s) => s.status === status && s.alternative === undefined);
      if (!n) continue;
      const at = this.centreOf(n.nodeId);
      if (at) this.panZoom.centre(at.x, at.y);
      return;
    }
  }

  /** A node's centre in content px: from the ranked layout, or from mermaid's drawing. */
  private centreOf(nodeId: string): { x: number; y: number } | undefined {
    const p = this.layout?.byId.get(nodeId);
    if (p && this.layout)
      return { x: p.x + this.layout.options.nodeWidth / 2, y: p.y + this.layout.options.nodeHeight / 2 };
    const g = this.elements.get(nodeId);
    if (!g) return undefined;
    const r = g.getBoundingClientRect();
    const c = this.content.getBoundingClientRect();
    const k = this.panZoom.transform.scale;
    return { x: (r.left + r.width / 2 - c.left) / k, y: (r.top + r.height / 2 - c.top) / k };
  }

  private install(svg: SVGSVGElement): void {
    // mermaid's own drawing (securityLevel strict: each label went through DOMPurify); our data
    // never goes through a parser: labels are entity-encoded by toMermaid.
    scrub(svg);
    const vb = svg.viewBox.baseVal;
    const width = vb && vb.width > 0 ? vb.width : Number(svg.getAttribute('width')) || 0;
    const height = vb && vb.height > 0 ? vb.height : Number(svg.getAttribute('height')) || 0;
    svg.removeAttribute('style');
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height));
    // Replacing the stand-in drawing is still the first view: open it on what matters too.
    const first = this.size.width === 0 || this.layout?.standIn === true;
    this.size = { width, height };
    this.layout = undefined;
    this.content.replaceChildren(svg);
    this.elements = new Map();
    for (const g of Array.from(this.content.querySelectorAll<SVGGElement>('g.node'))) {
      const nodeId = nodeIdOf(g);
      if (nodeId === undefined || !this.members.has(nodeId)) continue;
      this.elements.set(nodeId, g);
      unpaint(g);
      addHalo(g);
    }
    this.clusters = new Map();
    for (const c of Array.from(this.content.querySelectorAll<SVGGElement>('g.cluster'))) {
      const id = c.getAttribute('data-id') ?? /(?:^|-)(g\d+)$/.exec(c.id)?.[1] ?? c.id;
      this.clusters.set(id, c);
    }
    this.decorate();
    this.panZoom.setContentSize(width, height);
    this.panZoom.minReadableScale = READABLE_LABEL_PX / labelFontPx(this.content);
    if (first) this.openOnWhatMatters();
    // mermaid's nodes, where it put them (a translate to their centre), for the overview.
    const placed: { x: number; y: number; w: number; h: number; nodeId: string }[] = [];
    const c = this.content.getBoundingClientRect();
    const k = this.panZoom.transform.scale;
    for (const [nodeId, g] of this.elements) {
      const r = g.getBoundingClientRect();
      placed.push({ x: (r.left - c.left) / k, y: (r.top - c.top) / k, w: r.width / k, h: r.height / k, nodeId });
    }
    this.overview.setGraph(width, height, (): OverviewNode[] =>
      placed.map((p) => ({ ...p, status: this.statusOf(p.nodeId) })),
    );
    this.overview.view(this.panZoom.transform, this.viewport.clientWidth, this.viewport.clientHeight);
  }

  // Everything a node carries for keyboard, screen readers and tests; cheap, so it runs on every graph message.
  private clusters = new Map<string, SVGGElement>();

  private decorate(): void {
    for (const group of this.groups.values()) {
      const c = group.clusterId !== undefined ? this.clusters.get(group.clusterId) : undefined;
      if (!c) continue;
      c.setAttribute('data-group', group.group);
      c.setAttribute('tabindex', '0');
      c.setAttribute('role', 'button');
      c.setAttribute('aria-label', `${group.group}: collapse into one node`);
      c.setAttribute('aria-expanded', 'true');
    }
    for (const [nodeId, g] of this.elements) this.decorateNode(nodeId, g);
  }

  private decorateNode(nodeId: string, g: SVGGElement): void {
    const ids = this.members.get(nodeId) ?? [];
    g.setAttribute('data-step-id', ids[0] ?? '');
    const group = this.steps.get(ids[0] ?? '')?.group;
    if (group !== undefined && this.groups.get(group)?.collapsed === true) {
      g.setAttribute('data-group', group);
      g.setAttribute('data-step-count', String(ids.length));
      g.setAttribute('aria-expanded', 'false');
    } else {
      g.removeAttribute('data-group');
      g.removeAttribute('aria-expanded');
    }
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    this.styleNode(g, nodeId);
    this.markSelected(nodeId, g);
    this.markMatch(nodeId, g);
  }

  private styleNode(g: SVGGElement, nodeId: string): void {
    const all = (this.members.get(nodeId) ?? []).map((id) => this.steps.get(id)).filter((n) => n !== undefined);
    // A collapsed best-of step's node draws the step and its alternatives: its status is the
    // step's, its counts the alternatives', and the winner is named beside them.
    const alts = all.filter((n) => n.alternative !== undefined);
    const own = all.filter((n) => n.alternative === undefined);
    const ns = own.length > 0 ? own : all;
    const status = nodeStatus(ns.map((n) => n.status));
    // The time fills its place laid out under the name (empty before the step ran); an alternative's says it won.
    const timeSlot = g.querySelector('.braid-time');
    const time = ns.length === 1 ? (ns[0]!.won === true ? '★ won' : (ns[0]!.time ?? '')) : '';
    if (timeSlot && timeSlot.textContent !== time) timeSlot.textContent = time;
    // A collapsed group's counts fill their reserved place in the same way.
    const countsSlot = g.querySelector('.braid-counts');
    const winner = alts.find((n) => n.won === true)?.alternative;
    const counts = countsSlot
      ? `${winner !== undefined ? `★ ${winner} won · ` : ''}${groupCountsText(groupCounts((alts.length > 0 ? alts : ns).map((n) => n.status)))}`
      : '';
    if (countsSlot && countsSlot.textContent !== counts) countsSlot.textContent = counts;
    if (g.getAttribute('data-status') === status) return;
    g.setAttribute('data-status', status);
    // The status icon fills its fixed place before the name: a change never re-lays the graph out.
    const iconSlot = g.querySelector('.braid-status');
    const icon = statusIcon(status);
    if (iconSlot) iconSlot.replaceChildren(...(icon ? [icon] : []));
    // mermaid's classDefs (hex colours, from `class` lines) would fight the theme: data-status styles the node.
    g.classList.remove(...STATUS_CLASSES);
    const first = ns[0];
    const grouped = g.hasAttribute('data-group');
    const size = alts.length > 0 ? `${alts.length} alternatives` : `${ns.length} ${ns.length === 1 ? 'step' : 'steps'}`;
    const name = grouped
      ? `${alts.length > 0 ? (first?.name ?? '') : (first?.group ?? first?.name ?? '')} (${size}: ${counts}; press to expand)`
      : (first?.name ?? '');
    g.setAttribute(
      'aria-label',
      `${name}${first?.agent !== undefined && !grouped ? `, ${first.agent}` : ''}: ${status}`,
    );
  }
}

/** The smallest label a user can read comfortably, in CSS px at the view's scale. */
export const READABLE_LABEL_PX = 11.5;
/** The ranked drawing's label size (media/graph.css), in content px. */
const RANKED_LABEL_PX = 14;
