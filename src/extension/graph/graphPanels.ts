// The graph panels: one a plan, reopened after a reload from the state its page kept (or the plan
// last shown). Apart from graphPanel.ts, which is one panel's host and knows no other panel.
import * as vscode from 'vscode';
import { webviewStateSchema, type WebviewState } from '../../protocol/webview';
import type { RunRef } from '../common/commandIds';
import { GraphPanel, type GraphPanelDeps } from './graphPanel';
import { pickPlan } from '../plans/plans';

export const GRAPH_VIEW_TYPE = 'braid.graph';
const LAST_PLAN = 'braid.graph.lastPlan';

export class GraphPanels implements vscode.Disposable {
  private readonly panels = new Map<string, GraphPanel>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly d: GraphPanelDeps) {
    this.subs.push(
      vscode.window.registerWebviewPanelSerializer(GRAPH_VIEW_TYPE, {
        // The page's own state names the run it showed; a plan with no run yet is remembered here.
        deserializeWebviewPanel: async (panel, raw: unknown) => {
          const parsed = webviewStateSchema.safeParse(raw ?? {});
          const state: WebviewState = parsed.success ? parsed.data : {};
          const planFile =
            (state.runId ? this.d.runs.get(state.runId)?.planFile : undefined) ??
            this.d.context.workspaceState.get<string>(LAST_PLAN);
          if (!planFile) {
            panel.dispose();
            return;
          }
          this.adopt(panel, vscode.Uri.file(planFile), state);
        },
      }),
    );
  }

  /** Opens (or reveals) the panel of a plan, or of a run's plan. */
  async show(target?: vscode.Uri | RunRef): Promise<GraphPanel | undefined> {
    let plan: vscode.Uri | undefined;
    let runId: string | undefined;
    if (target && 'runId' in target) {
      const run = this.d.runs.get(target.runId);
      if (!run) return undefined;
      plan = vscode.Uri.file(run.planFile);
      runId = run.id;
    } else {
      plan = await pickPlan(this.d.plans, target);
    }
    if (!plan) return undefined;
    const existing = this.panels.get(plan.fsPath);
    if (existing) {
      existing.reveal(runId);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      GRAPH_VIEW_TYPE,
      `Graph: ${plan.path.split('/').pop()}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      this.options(),
    );
    return this.adopt(panel, plan, runId ? { runId } : {});
  }

  /** The open panel of a plan (tests). */
  panelOf(planFile: string): GraphPanel | undefined {
    return this.panels.get(planFile);
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [
        vscode.Uri.joinPath(this.d.context.extensionUri, 'out', 'webview'),
        vscode.Uri.joinPath(this.d.context.extensionUri, 'media'),
      ],
    };
  }

  private adopt(panel: vscode.WebviewPanel, plan: vscode.Uri, state: WebviewState): GraphPanel {
    panel.webview.options = this.options();
    void this.d.context.workspaceState.update(LAST_PLAN, plan.fsPath);
    const gp = new GraphPanel(panel, plan, state, this.d, () => this.panels.delete(plan.fsPath));
    this.panels.set(plan.fsPath, gp);
    return gp;
  }

  dispose(): void {
    for (const p of this.panels.values()) p.dispose();
    for (const s of this.subs) s.dispose();
  }
}
