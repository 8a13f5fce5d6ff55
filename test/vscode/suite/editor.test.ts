// What a plan file shows in the editor: code lenses that follow edits, Problems at the exact
// line of each mistake, completion and hover from the plan schema, and the task provider's tasks.
import { strict as assert } from 'node:assert';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { braidApi, waitFor, workspaceRoot, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

async function lenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
}

const titles = (ls: vscode.CodeLens[]): string[] => ls.map((l) => l.command?.title ?? '');

describe('plan files in the editor', function () {
  this.timeout(60_000);

  it('code lenses: the plan gets Run plan · Show graph · Validate, each step Run step · Run from here', async () => {
    await braidApi();
    const uri = await writePlan(
      'lenses',
      plan`
        version: 1
        name: Lenses
        steps:
          one:
            run: echo 1
          two:
            needs: [one]
            run: echo 2
        `,
    );
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const ls = await lenses(uri);
    assert.deepEqual(
      titles(ls).filter((t) => !t.startsWith('$(play)') && t !== 'Run from here'),
      ['$(run-all) Run plan', '$(type-hierarchy) Show graph', '$(check) Validate'],
    );
    const stepLenses = ls.filter((l) => l.command?.command === 'braid.runStep');
    assert.deepEqual(
      stepLenses.map((l) => l.range.start.line),
      [3, 5],
      'above each step key',
    );
    assert.equal(ls.filter((l) => l.command?.command === 'braid.runFrom').length, 2);
  });

  it('code lenses: a plan past MAX_STEP_LENSES steps gets its lenses above the plan only, saying why', async () => {
    await braidApi();
    const steps = Array.from({ length: 1001 }, (_, i) => `  s${i}:\n    run: "true"`).join('\n');
    const uri = await writePlan('many-lenses', `version: 1\nname: Many\nsteps:\n${steps}\n`);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const ls = await lenses(uri);
    assert.deepEqual(
      ls.map((l) => l.range.start.line),
      [0, 0, 0, 0],
    );
    assert.equal(titles(ls)[3], '1,001 steps: step lenses off past 1,000');
  });

  it('code lenses follow an edit as the user types', async () => {
    const uri = await writePlan(
      'typing',
      plan`
        version: 1
        name: Typing
        steps:
          one:
            run: echo 1
        `,
    );
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    assert.equal((await lenses(uri)).filter((l) => l.command?.command === 'braid.runStep').length, 1);
    await editor.edit((e) =>
      // The plan ends with a newline: its last line is the empty one after it.
      e.insert(new vscode.Position(editor.document.lineCount - 1, 0), '  two:\n    run: echo 2\n'),
    );
    const after = await lenses(uri);
    assert.deepEqual(
      after.filter((l) => l.command?.command === 'braid.runStep').map((l) => l.range.start.line),
      [3, 5],
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('after a run, each step lens shows its last status and duration, with Retry and Log on failure', async () => {
    const uri = await writePlan(
      'lastrun',
      plan`
        version: 1
        name: Last run
        steps:
          good:
            run: echo ok
          bad:
            run: exit 1
        `,
    );
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri)); // lenses are asked of open documents
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(summary.status, 'failed');
    const ls = await waitFor('status lenses', async () => {
      const l = await lenses(uri);
      return l.some((x) => x.command?.title.startsWith('✗ failed')) ? l : undefined;
    });
    const at = (line: number) => titles(ls.filter((l) => l.range.start.line === line));
    assert.ok(
      at(3).some((t) => /^✓ succeeded \d/.test(t)),
      at(3).join(' | '),
    );
    assert.ok(!at(3).includes('Retry'));
    assert.ok(
      at(5).some((t) => /^✗ failed \d/.test(t)) && at(5).includes('Retry') && at(5).includes('Log'),
      at(5).join(' | '),
    );
  });

  it('Problems: each mistake of a broken plan is a diagnostic at its line, refreshed as the user types', async () => {
    const uri = await writePlan(
      'broken',
      plan`
        version: 1
        name: Broken
        steps:
          a:
            run: echo a
            needs: [nope]
          b:
            rn: echo b
        `,
    );
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const diags = await waitFor('diagnostics', () => {
      const d = vscode.languages.getDiagnostics(uri);
      return d.length >= 2 ? d : undefined;
    });
    const lines = diags
      .filter((d) => d.severity === vscode.DiagnosticSeverity.Error)
      .map((d) => d.range.start.line)
      .sort();
    assert.ok(
      lines.includes(5),
      `unknown need on line 6: ${JSON.stringify(diags.map((d) => [d.range.start.line, d.message]))}`,
    );
    assert.ok(
      lines.includes(7),
      `unknown key on line 8: ${JSON.stringify(diags.map((d) => [d.range.start.line, d.message]))}`,
    );
    assert.ok(diags.every((d) => d.source === 'braid'));
    assert.ok(
      diags.some((d) => /run/.test(d.message) && d.range.start.line === 7),
      'did-you-mean names run',
    );
    // Exact ranges: the unknown name `nope` inside the list, the misspelt key `rn`.
    const at = (d: vscode.Diagnostic) => [
      d.range.start.line,
      d.range.start.character,
      d.range.end.line,
      d.range.end.character,
    ];
    assert.ok(
      diags.some((d) => /nope/.test(d.message) && at(d).join() === '5,12,5,16'),
      JSON.stringify(diags.map((d) => [at(d), d.message])),
    );
    assert.ok(
      diags.some((d) => /rn/.test(d.message) && at(d).join() === '7,4,7,6'),
      JSON.stringify(diags.map((d) => [at(d), d.message])),
    );
    // Fix both by typing: the problems go away without a save.
    await editor.edit((e) => {
      e.replace(new vscode.Range(7, 4, 7, 6), 'run');
      e.replace(new vscode.Range(5, 0, 6, 0), '');
    });
    await waitFor(
      'no errors after the fix',
      () =>
        vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length === 0,
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('braid.validatePlan returns the error count of a plan', async () => {
    const bad = await writePlan(
      'cycle',
      plan`
        version: 1
        name: Cycle
        steps:
          x:
            needs: [y]
            run: echo x
          y:
            needs: [x]
            run: echo y
        `,
    );
    assert.ok((await vscode.commands.executeCommand<number>('braid.validatePlan', bad)) >= 1);
    const diag = vscode.languages.getDiagnostics(bad).find((d) => /cycle/i.test(d.message));
    assert.ok(diag, 'a cycle diagnostic');
    assert.match(diag.message, /x → y → x|y → x → y/);
  });

  it('a plan with problems does not run: braid.runPlan resolves undefined and nothing is recorded', async () => {
    const api = await braidApi();
    const before = api.runs.runs().length;
    const bad = await writePlan(
      'norun',
      plan`
        version: 1
        name: No run
        steps:
          a:
            needs: [ghost]
            run: echo a
        `,
    );
    assert.equal(await vscode.commands.executeCommand('braid.runPlan', bad), undefined);
    assert.equal(api.runs.runs().length, before);
  });

  it('a JSON plan completes and hovers plan keys from the contributed schema', async () => {
    const file = join(workspaceRoot(), 'plans', 'complete.braid.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{\n  "version": 1,\n  "steps": {\n    "a": {\n      \n    }\n  }\n}\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    // Inside step a's object: the step keys of the schema, offered by VS Code's JSON support.
    const labels = await waitFor(
      'schema completions',
      async () => {
        const list = await vscode.commands.executeCommand<vscode.CompletionList>(
          'vscode.executeCompletionItemProvider',
          uri,
          new vscode.Position(4, 6),
        );
        const ls = (list?.items ?? []).map((i) =>
          (typeof i.label === 'string' ? i.label : i.label.label).replace(/"/g, ''),
        );
        return ls.includes('run') && ls.includes('needs') ? ls : undefined;
      },
      30_000,
    );
    for (const key of ['run', 'prompt', 'needs', 'writes', 'isolation'])
      assert.ok(labels.includes(key), `${key} in ${labels.join(', ')}`);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      uri,
      new vscode.Position(1, 5),
    );
    const text = hovers
      .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : (c as vscode.MarkdownString).value)))
      .join(' ');
    assert.match(text, /supported versions/, `the hover says what plan-format.md says of version: ${text}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Run Task lists a braid task for each plan and each of its steps', async () => {
    await writePlan(
      'tasks',
      plan`
        version: 1
        name: Tasks
        steps:
          build:
            run: echo b
          test:
            matrix:
              n: [1, 2]
            run: echo t
        `,
    );
    const tasks = await vscode.tasks.fetchTasks({ type: 'braid' });
    const mine = tasks.filter((t) => String(t.definition.plan).endsWith('tasks.braid.yaml'));
    assert.deepEqual(mine.map((t) => t.definition.step ?? '(plan)').sort(), ['(plan)', 'build', 'test']);
  });
});
