// The plan language service in a real editor, with no YAML extension installed: completion,
// hover, definition, references, rename, Outline symbols and quick fixes on a YAML plan, each
// asked through VS Code's own `vscode.execute…Provider` commands, as the editor asks.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { braidApi, waitFor, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

const PLAN = plan`
  version: 1
  name: Language
  steps:
    build:
      matrix:
        os: [linux, mac]
      run: make
    test:
      needs: build
      run: echo "\${{ steps.build-linux.output }}"
    review:
      needs: [test]
      prompt: Review \${{ steps. }}
      agent: claude
    fix:
      needs: [tst]
      run: echo '\${{ steps.test.output }}'
      isolaton: shared
  `;

const labelOf = (i: vscode.CompletionItem): string => (typeof i.label === 'string' ? i.label : i.label.label);
// A hover may hold the old MarkedString ({ language, value }) as well as a MarkdownString: read either.
const hoverText = (hs: vscode.Hover[]): string =>
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  hs.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
const startOf = (l: vscode.Location | vscode.LocationLink): [number, number] => {
  const r = 'targetRange' in l ? (l.targetSelectionRange ?? l.targetRange) : l.range;
  return [r.start.line, r.start.character];
};

describe('the plan language service', function () {
  this.timeout(60_000);
  let uri: vscode.Uri;

  before(async () => {
    await braidApi();
    assert.equal(
      vscode.extensions.getExtension('redhat.vscode-yaml'),
      undefined,
      'the test host has no YAML extension',
    );
    uri = await writePlan('language', PLAN);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  });

  it('completes keys with their docs, enum values, and inside ${{ steps. the steps this one needs', async () => {
    const complete = async (line: number, character: number, trigger?: string) =>
      (
        await vscode.commands.executeCommand<vscode.CompletionList>(
          'vscode.executeCompletionItemProvider',
          uri,
          new vscode.Position(line, character),
          trigger,
        )
      ).items;
    const inTemplate = await complete(12, '    prompt: Review ${{ steps.'.length, '.');
    const ids = inTemplate.filter((i) => i.kind === vscode.CompletionItemKind.Variable).map(labelOf);
    assert.deepEqual(ids, ['build-linux', 'build-mac', 'test'], 'review needs test needs build');
    const keys = await complete(17, 4);
    const iso = keys.find((i) => labelOf(i) === 'isolation');
    assert.ok(iso, keys.map(labelOf).join(', '));
    assert.match((iso.documentation as vscode.MarkdownString).value, /git worktree/);
    const agents = (await complete(13, '    agent: '.length)).map(labelOf);
    for (const a of ['claude', 'codex', 'gemini']) assert.ok(agents.includes(a), agents.join(', '));
  });

  it('hovers a key with its docs and a step id with its needs', async () => {
    const key = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      uri,
      new vscode.Position(4, 6),
    );
    assert.match(hoverText(key), /\*\*matrix\*\* — fan-out/);
    const step = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      uri,
      new vscode.Position(11, 13),
    );
    assert.match(hoverText(step), /\*\*test\*\* · run/);
    assert.match(hoverText(step), /needs `build`/);
  });

  it("hovers a step with its last run's status and duration, read from the runs model", async () => {
    const ran = await writePlan(
      'language-ran',
      plan`
        version: 1
        name: Ran
        steps:
          hello:
            run: echo hi
        `,
    );
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(ran));
    const summary = await vscode.commands.executeCommand<{ status: string }>('braid.runPlan', ran);
    assert.equal(summary.status, 'succeeded');
    const text = await waitFor('a hover with the last run', async () => {
      const t = hoverText(
        await vscode.commands.executeCommand<vscode.Hover[]>(
          'vscode.executeHoverProvider',
          ran,
          new vscode.Position(3, 4),
        ),
      );
      return /last run/.test(t) ? t : undefined;
    });
    assert.match(text, /last run: succeeded in \d/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  });

  it("goes to a step from a template's concrete id and finds every mention of it", async () => {
    const defs = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>(
      'vscode.executeDefinitionProvider',
      uri,
      new vscode.Position(9, 30),
    );
    assert.deepEqual(defs.map(startOf), [[3, 2]]);
    const refs = await vscode.commands.executeCommand<vscode.Location[]>(
      'vscode.executeReferenceProvider',
      uri,
      new vscode.Position(3, 3),
    );
    assert.deepEqual(
      refs.map(startOf).sort(),
      [
        [3, 2],
        [8, 11],
        [9, 25],
      ].sort(),
    );
  });

  it('renames a matrix step and its concrete ids as one edit', async () => {
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
      'vscode.executeDocumentRenameProvider',
      uri,
      new vscode.Position(8, 12),
      'compile',
    );
    const edits = edit.get(uri);
    assert.deepEqual(
      edits.map((e) => [e.range.start.line, e.newText]).sort(),
      [
        [3, 'compile'],
        [8, 'compile'],
        [9, 'compile-linux'],
      ].sort(),
    );
  });

  it('lists the steps in the Outline with their kind and agent', async () => {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>(
      'vscode.executeDocumentSymbolProvider',
      uri,
    );
    assert.deepEqual(
      symbols.map((s) => [s.name, s.detail]),
      [
        ['build', 'run · matrix ×2'],
        ['test', 'run'],
        ['review', 'agent claude'],
        ['fix', 'run'],
      ],
    );
  });

  it('offers quick fixes for did-you-mean problems and a template in single quotes, and applying one fixes it', async () => {
    await waitFor("the plan's problems", () => vscode.languages.getDiagnostics(uri).length >= 3);
    const actions = async (line: number) =>
      vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        new vscode.Range(line, 0, line, 40),
        vscode.CodeActionKind.QuickFix.value,
      );
    assert.deepEqual(
      (await actions(15)).map((a) => a.title),
      ['Change to `test`'],
    );
    assert.deepEqual(
      (await actions(16)).map((a) => a.title),
      ['Take ${{ steps.test.output }} out of the single quotes'],
    );
    const key = await actions(17);
    assert.deepEqual(
      key.map((a) => a.title),
      ['Change to `isolation`'],
    );
    assert.ok(await vscode.workspace.applyEdit(key[0]!.edit!));
    await waitFor(
      'the unknown key gone',
      () => !vscode.languages.getDiagnostics(uri).some((d) => d.code === 'unknown-key'),
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
