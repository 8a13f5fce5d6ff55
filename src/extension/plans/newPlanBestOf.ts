// *New Plan*, best of N: the drafts are made at once (draftRace), each valid one opens in its own
// editor column so they read side by side, and a quick pick (steps · critical path · parallelism ·
// agent, and a Show Graph button a row) keeps one: it becomes the plan file and opens with its
// graph; the other drafts are deleted. Dismissed, the drafts stay, with a button that deletes them.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { findDrafts, keepDraft, removeDrafts } from '../../core/planning/draftFiles';
import { draftRace, type RaceDraft } from '../../core/planning/draftRace';
import type { PlanningAgentSpec } from '../../core/planning/planningAgent';
import { formatUsd } from '../../core/format';

/** What it needs of the extension (New Plan's own deps). */
export interface BestOfDeps {
  readonly log: vscode.LogOutputChannel;
  readonly showGraph: (uri: vscode.Uri) => Promise<unknown>;
}

export interface BestOfDraftRequest {
  readonly workspace: string;
  readonly uri: vscode.Uri;
  readonly goal: string;
  readonly count: number;
  readonly agents: readonly PlanningAgentSpec[];
  /** The draft to keep without asking (arguments from code). */
  readonly keep?: number;
}

const shapeText = (d: RaceDraft): string =>
  d.shape
    ? `${d.shape.steps} step${d.shape.steps === 1 ? '' : 's'} · critical path ${d.shape.criticalPath} · parallel ≈ ${d.shape.parallelism.toFixed(1)}${d.result.costUsd !== undefined ? ` · ${formatUsd(d.result.costUsd)}` : ''}`
    : '';

async function race(deps: BestOfDeps, r: BestOfDraftRequest): Promise<readonly RaceDraft[] | undefined> {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Braid: drafting ${r.count} plans at once`,
      cancellable: true,
    },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      deps.log.info(`drafting ${r.count} plans for ${r.uri.fsPath}: ${r.goal}`);
      const done = new Set<number>();
      const result = await draftRace({
        goal: r.goal,
        workspace: r.workspace,
        file: r.uri.fsPath,
        count: r.count,
        agents: r.agents,
        signal: abort.signal,
        onProgress: (n, p) => {
          if (p.kind === 'output') deps.log.info(`[draft ${n}] ${p.line.text}`);
          else if (p.kind === 'attempt')
            progress.report({
              message: `draft ${n}: ${p.attempt === 1 ? 'asking' : 'fixing the problems with'} ${p.agent}…`,
            });
          else if (p.kind === 'validated' && p.errors === 0) {
            done.add(n);
            progress.report({ message: `${done.size} of ${r.count} valid (draft ${n} done)` });
          }
        },
      });
      if (result.problem) {
        void vscode.window.showErrorMessage(`Braid: ${result.problem.message}`);
        return undefined;
      }
      for (const d of result.drafts) for (const line of d.result.log) deps.log.info(`[draft ${d.index}] ${line}`);
      return token.isCancellationRequested ? undefined : result.drafts;
    },
  );
}

const GRAPH_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('type-hierarchy'),
  tooltip: 'Show Graph',
};

/** The quick pick that keeps one: a row a valid draft (agent, steps, critical path, parallelism), each with a Show Graph button. */
function pickDraft(deps: BestOfDeps, valid: readonly RaceDraft[], title: string): Promise<RaceDraft | undefined> {
  type Item = vscode.QuickPickItem & { readonly draft: RaceDraft };
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = title;
  qp.placeholder = 'The drafts are open side by side; the one picked becomes the plan, the others are deleted';
  qp.ignoreFocusOut = true;
  qp.items = valid.map((d) => ({
    label: `Draft ${d.index} · ${d.agent}`,
    description: shapeText(d),
    detail: vscode.workspace.asRelativePath(d.result.file),
    buttons: [GRAPH_BUTTON],
    draft: d,
  }));
  return new Promise((resolve) => {
    let picked: RaceDraft | undefined;
    qp.onDidTriggerItemButton((e) => {
      void deps.showGraph(vscode.Uri.file(e.item.draft.result.file));
    });
    qp.onDidAccept(() => {
      picked = qp.selectedItems[0]?.draft ?? qp.activeItems[0]?.draft;
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(picked);
    });
    qp.show();
  });
}

/** Closes the editor tabs showing any of `files`, and their graphs (titled `Graph: NAME` by graphPanel.ts). */
async function closeTabs(files: readonly string[]): Promise<void> {
  const graphTitles = new Set(files.map((f) => `Graph: ${basename(f)}`));
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter(
      (t) =>
        (t.input instanceof vscode.TabInputText && files.includes(t.input.uri.fsPath)) ||
        (t.input instanceof vscode.TabInputWebview && graphTitles.has(t.label)),
    );
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

/** Drafts, compares and keeps one; the kept plan's uri, or undefined when none was kept. */
export async function bestOfDrafts(deps: BestOfDeps, r: BestOfDraftRequest): Promise<vscode.Uri | undefined> {
  const stale = await findDrafts(r.uri.fsPath);
  if (stale.length > 0) {
    void vscode.window.showErrorMessage(
      `Braid: drafts of an earlier New Plan are beside it (${stale.map((d) => vscode.workspace.asRelativePath(d.file)).join(', ')}); keep one (braid plan --keep N) or delete them first.`,
    );
    return undefined;
  }
  const drafts = await race(deps, r);
  if (!drafts) return undefined;
  const valid = drafts.filter((d) => d.result.ok);
  const invalid = drafts.filter((d) => !d.result.ok);
  const rel = (f: string): string => vscode.workspace.asRelativePath(f);
  if (valid.length === 0) {
    const first = invalid[0]?.result.diagnostics[0];
    void vscode.window
      .showErrorMessage(
        `Braid: none of the ${r.count} drafts is valid${first ? ` (draft ${invalid[0]!.index}: ${first.message})` : ''}.`,
        'Show Log',
      )
      .then((pick) => pick && deps.log.show());
    return undefined;
  }
  // Side by side: one column a valid draft, in draft order.
  for (const [i, d] of valid.entries()) {
    await vscode.window.showTextDocument(vscode.Uri.file(d.result.file), {
      // ViewColumn.One to .Nine are 1 to 9.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
      viewColumn: Math.min(i + 1, 9) as vscode.ViewColumn,
      preview: false,
      preserveFocus: i > 0,
    });
  }
  let keep = r.keep !== undefined ? valid.find((d) => d.index === r.keep) : undefined;
  if (r.keep !== undefined && !keep) {
    void vscode.window.showErrorMessage(
      `Braid: draft ${r.keep} is not valid (valid: ${valid.map((d) => d.index).join(', ')}).`,
    );
    return undefined;
  }
  if (!keep) {
    const dropped = invalid.length === 0 ? '' : ` (${invalid.map((d) => `draft ${d.index} not valid`).join(', ')})`;
    keep = await pickDraft(deps, valid, `Braid: keep which draft as ${rel(r.uri.fsPath)}?${dropped}`);
  }
  const files = drafts.map((d) => d.result.file);
  if (!keep) {
    const del = 'Delete Drafts';
    void vscode.window
      .showInformationMessage(
        `Braid: no draft kept; the drafts stay beside ${rel(r.uri.fsPath)} (keep one later with: braid plan --keep N --out ${rel(r.uri.fsPath)}).`,
        del,
      )
      .then(async (pick) => {
        if (pick === del) {
          await closeTabs(files);
          await removeDrafts(r.uri.fsPath);
        }
      });
    return undefined;
  }
  await closeTabs(files);
  const kept = await keepDraft(r.uri.fsPath, keep.result.file);
  await vscode.window.showTextDocument(r.uri, { viewColumn: vscode.ViewColumn.One });
  await deps.showGraph(r.uri);
  void vscode.window.showInformationMessage(
    `Braid: kept draft ${keep.index} (${keep.agent}, ${shapeText(keep)}) as ${rel(kept.file)}${kept.others.length ? `; deleted ${kept.others.length} other draft${kept.others.length === 1 ? '' : 's'}` : ''}. Review it, then Run Plan.`,
  );
  return r.uri;
}
