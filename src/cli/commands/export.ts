// `braid export github-actions PLAN [-o FILE]`: the plan as a GitHub Actions workflow (stdout, or
// FILE); what has no counterpart on GitHub is said on stderr as in the workflow's header.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_PERMISSIONS, type AgentPermission } from '../../core/agents/permission';
import { exportGithubActions } from '../../core/export/githubActions';
import { compilePlanFile } from '../../core/plan/compile';
import { workspaceForPlan } from '../workspace';

export const EXPORT_HELP = `  braid export github-actions FILE [options]   the plan as a GitHub Actions workflow (one job a step)
      -o, --out FILE    write it there (e.g. .github/workflows/braid-NAME.yml); default: stdout
      --permission P    what agent CLIs may do unasked: read-only, edit (default) or full
      --workspace DIR   the root the workflow names the plan from (default: its git root, else its folder)
`;

export interface ExportIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}

const stdio: ExportIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

const usage = (io: ExportIo, message: string): number => {
  io.err(`braid: ${message}\n\nusage:\n${EXPORT_HELP}`);
  return 2;
};

/** Runs `braid export`; 0 written, 1 written but GitHub would refuse it (a problem named), 2 usage or an invalid plan. */
export async function exportCommand(args: readonly string[], io: ExportIo = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: { out: { type: 'string', short: 'o' }, permission: { type: 'string' }, workspace: { type: 'string' } },
  });
  const [target, file, ...extra] = positionals;
  if (target !== 'github-actions')
    return usage(
      io,
      target === undefined
        ? 'export needs a target: github-actions'
        : `unknown export target ${target}; the one there is: github-actions`,
    );
  if (file === undefined || extra.length > 0) return usage(io, 'export github-actions needs exactly one plan FILE');
  const permission = values.permission;
  if (permission !== undefined && !(AGENT_PERMISSIONS as readonly string[]).includes(permission)) {
    return usage(io, `--permission must be one of ${AGENT_PERMISSIONS.join(', ')}, got ${permission}`);
  }
  const planFile = resolve(file);
  const r = await compilePlanFile(planFile, {
    isGit: true,
    ...(permission ? { permission: permission as AgentPermission } : {}),
  });
  if (!r.graph) {
    for (const d of r.diagnostics)
      io.err(`${d.file}:${d.range.start.line + 1}:${d.range.start.column + 1}: ${d.severity}: ${d.message}\n`);
    return 2;
  }
  // Named from the workspace's root, `/`-separated: the same plan exports the same bytes anywhere.
  const planPath = relative(workspaceForPlan(planFile, values.workspace), planFile).split(sep).join('/');
  const result = exportGithubActions(r.graph, {
    planPath,
    ...(permission ? { permission: permission as AgentPermission } : {}),
  });
  if (values.out !== undefined) {
    const out = resolve(values.out);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, result.yaml);
    io.err(`braid: wrote ${out} (${result.jobs} jobs)\n`);
  } else io.out(result.yaml);
  for (const n of result.notes) io.err(`braid: no counterpart on GitHub Actions: ${n}\n`);
  for (const p of result.problems) io.err(`braid: error: ${p}\n`);
  return result.problems.length > 0 ? 1 : 0;
}
