// "New Plan": start from a template, or have an agent draft a plan for a goal (planning mode).
// The draft is validated (problems fed back to the agent once) and opened with its graph for
// review; nothing runs until the user runs it. Best of 3 drafts three at once and keeps the one
// the user picks after reading them side by side (newPlanBestOf.ts).
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { findExecutable, installCommand } from '../../core/agents/which';
import { draftPlan, type DraftResult } from '../../core/planning/draftPlan';
import { PLANNING_PRESETS } from '../../core/planning/planningAgent';
import { MAX_DRAFTS, MIN_DRAFTS } from '../../core/planning/draftRace';
import type { NewPlanOptions } from '../common/commandIds';
import { bestOfDrafts } from './newPlanBestOf';
import { requireTrust } from '../common/trust';

/** Arguments from code (tests, other extensions); the palette asks for each instead. */
export const TEMPLATE = `# A Braid plan: steps run as soon as what they need is done, up to \`concurrency\` at once.
# Shell steps (\`run\`) work anywhere; agent steps (\`prompt\`) need that agent's CLI installed.
version: 1
name: NAME
concurrency: 3
steps:
  research:
    matrix:
      topic: [alpha, beta, gamma]
    run: echo "notes on \${{ matrix.topic }}"
  summary:
    needs: [research]
    run: echo "summarising"
  # review:
  #   needs: [summary]
  #   agent: claude
  #   prompt: Review the summary and list open questions.
  #   writes: [docs/review.md]
`;

export interface NewPlanDeps {
  readonly log: vscode.LogOutputChannel;
  readonly showGraph: (uri: vscode.Uri) => Promise<unknown>;
}

export async function newPlan(deps: NewPlanDeps, opts: NewPlanOptions = {}): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage('Braid: open a folder first; a plan lives in a workspace.');
    return undefined;
  }
  let goal = opts.goal;
  let drafts = opts.drafts ?? 1;
  let sameAgent = true;
  // Which planning CLIs are installed is known before anything is asked: with none, the user is
  // offered the template or an install command now, not after typing a goal and a name.
  const installed = PLANNING_PRESETS.filter((p) => findExecutable(p, process.env.PATH, folder.uri.fsPath));
  if (opts.name === undefined && goal === undefined) {
    const how = await vscode.window.showQuickPick(
      [
        {
          label: '$(sparkle) Draft with an agent…',
          description:
            installed.length > 0
              ? 'describe the goal; an agent writes the plan for you to review'
              : `needs ${PLANNING_PRESETS.join(', ')} (none is installed)`,
          draft: true,
        },
        { label: '$(new-file) Start from a template', description: 'shell steps you edit', draft: false },
      ],
      { title: 'Braid: New Plan' },
    );
    if (!how) return undefined;
    if (how.draft && installed.length === 0 && opts.agent === undefined) {
      if (!(await offerTemplate())) return undefined;
    } else if (how.draft) {
      goal = await vscode.window.showInputBox({
        title: 'Braid: New Plan — goal',
        prompt: 'What should the plan achieve? e.g. "Add dark mode: schema, API and settings page, with tests"',
        ignoreFocusOut: true,
      });
      if (!goal) return undefined;
      const count = await pickDrafts(installed);
      if (!count) return undefined;
      ({ drafts, sameAgent } = count);
    }
  } else if (goal !== undefined && installed.length === 0 && opts.agent === undefined && opts.agents === undefined) {
    if (!(await offerTemplate())) return undefined;
    goal = undefined;
  }
  const name =
    opts.name ??
    (await vscode.window.showInputBox({
      title: 'Braid: New Plan',
      prompt: 'Plan name (the file becomes NAME.braid.yaml)',
      value: 'plan',
      validateInput: (v) => (/^[\w.-]+$/.test(v) ? undefined : 'Letters, digits, dot, dash and underscore only'),
    }));
  if (!name || !/^[\w.-]+$/.test(name)) return undefined;
  const uri = vscode.Uri.joinPath(folder.uri, `${name}.braid.yaml`);
  if (existsSync(uri.fsPath)) {
    void vscode.window.showErrorMessage(`Braid: ${vscode.workspace.asRelativePath(uri)} already exists.`);
    return undefined;
  }

  if (goal === undefined) {
    await vscode.workspace.fs.writeFile(uri, Buffer.from(TEMPLATE.replace('NAME', name)));
    await vscode.window.showTextDocument(uri);
    return uri;
  }
  if (!requireTrust('run an agent to draft a plan')) return undefined;
  if (drafts !== 1 && (!Number.isInteger(drafts) || drafts < MIN_DRAFTS || drafts > MAX_DRAFTS)) {
    void vscode.window.showErrorMessage(
      `Braid: drafts must be 1, or ${MIN_DRAFTS}–${MAX_DRAFTS} to compare; got ${drafts}.`,
    );
    return undefined;
  }
  if (drafts > 1 && (opts.agents !== undefined || !sameAgent)) {
    const agents = opts.agents ?? installed;
    if (agents.length === 0) return undefined;
    return bestOfDrafts(deps, {
      workspace: folder.uri.fsPath,
      uri,
      goal,
      count: drafts,
      agents,
      ...(opts.keep !== undefined ? { keep: opts.keep } : {}),
    });
  }
  const agent = opts.agent ?? (await pickAgent(folder.uri.fsPath));
  if (!agent) return undefined;
  if (drafts > 1)
    return bestOfDrafts(deps, {
      workspace: folder.uri.fsPath,
      uri,
      goal,
      count: drafts,
      agents: [agent],
      ...(opts.keep !== undefined ? { keep: opts.keep } : {}),
    });
  const result = await draft(deps, folder.uri.fsPath, uri, goal, agent);
  if (!result) return undefined;
  if (existsSync(result.file)) await vscode.window.showTextDocument(vscode.Uri.file(result.file));
  if (result.ok) {
    await deps.showGraph(vscode.Uri.file(result.file));
    void vscode.window.showInformationMessage(
      `Braid: drafted ${vscode.workspace.asRelativePath(uri)} (${result.graph?.order.length ?? 0} steps). Review it, then Run Plan.`,
    );
    return uri;
  }
  const first = result.diagnostics[0];
  void vscode.window
    .showErrorMessage(
      `Braid: the agent's plan is not valid after ${result.attempts} tr${result.attempts === 1 ? 'y' : 'ies'}${first ? `: ${first.message}` : ''}.`,
      'Show Log',
    )
    .then((pick) => pick && deps.log.show());
  return existsSync(result.file) ? vscode.Uri.file(result.file) : undefined;
}

/**
 * No planning CLI is installed: the template instead, or the first preset's install command on
 * the clipboard. True when the user takes the template.
 */
async function offerTemplate(): Promise<boolean> {
  const first = PLANNING_PRESETS[0]!;
  const install = installCommand(first);
  const copy = 'Copy Install Command';
  const pick = await vscode.window.showWarningMessage(
    `Braid: drafting a plan needs an agent CLI (${PLANNING_PRESETS.join(', ')}); none is installed.${install ? ` Install ${first} with: ${install}` : ''}`,
    'Start from Template',
    ...(install ? [copy] : []),
  );
  if (pick === copy && install) {
    await vscode.env.clipboard.writeText(install);
    void vscode.window.showInformationMessage(`Braid: copied "${install}": run it in a terminal, then New Plan again.`);
  }
  return pick === 'Start from Template';
}

const BEST_OF = 3;

/** One draft, or the best of three by one agent or by the installed agents in turn. */
async function pickDrafts(installed: readonly string[]): Promise<{ drafts: number; sameAgent: boolean } | undefined> {
  const items = [
    { label: '$(file) One draft', description: 'one agent drafts the plan', drafts: 1, sameAgent: true },
    {
      label: `$(split-horizontal) Best of ${BEST_OF} — compare side by side`,
      description: 'one agent drafts three plans at once; keep one',
      drafts: BEST_OF,
      sameAgent: true,
    },
    ...(installed.length > 1
      ? [
          {
            label: `$(organization) Best of ${BEST_OF} — ${installed.slice(0, BEST_OF).join(' vs ')}`,
            description: 'each installed agent drafts in turn; keep one',
            drafts: BEST_OF,
            sameAgent: false,
          },
        ]
      : []),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'Braid: New Plan — how many drafts?' });
  return pick ? { drafts: pick.drafts, sameAgent: pick.sameAgent } : undefined;
}

/** The installed planning agents; the only one is taken without asking. */
async function pickAgent(cwd: string): Promise<string | undefined> {
  const installed = PLANNING_PRESETS.filter((p) => findExecutable(p, process.env.PATH, cwd));
  if (installed.length === 0) {
    void vscode.window.showErrorMessage(
      `Braid: drafting a plan needs an agent CLI (${PLANNING_PRESETS.join(', ')}); none is on PATH.`,
    );
    return undefined;
  }
  if (installed.length === 1) return installed[0];
  return vscode.window.showQuickPick(installed, { title: 'Braid: which agent drafts the plan?' });
}

async function draft(
  deps: NewPlanDeps,
  workspace: string,
  uri: vscode.Uri,
  goal: string,
  agent: string | readonly string[],
): Promise<DraftResult | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Braid: drafting a plan', cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      deps.log.info(`drafting ${uri.fsPath} for: ${goal}`);
      const result = await draftPlan({
        goal,
        workspace,
        file: uri.fsPath,
        agent,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.kind === 'attempt')
            progress.report({ message: `${p.attempt === 1 ? 'asking' : 'fixing the problems with'} ${p.agent}…` });
          else if (p.kind === 'output') deps.log.info(p.line.text);
          else if (p.kind === 'waiting')
            progress.report({ message: `waiting for the agent (${Math.round(p.elapsedMs / 1000)}s)` });
          else progress.report({ message: `attempt ${p.attempt}: ${p.errors} error(s), ${p.warnings} warning(s)` });
        },
      });
      for (const line of result.log) deps.log.info(line);
      return token.isCancellationRequested ? undefined : result;
    },
  );
}
