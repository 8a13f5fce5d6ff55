// `braid validate FILE...`: each plan's problems as FILE:LINE:COL: error: MESSAGE.
import { formatDiagnostic } from '../../core/format';
import { err, out } from '../output';
import { Usage } from '../usage';
import { isFoundGitTop, workspaceForPlan, workspaceForPlanAsync } from '../workspace';

/** `gitTop`: git's answer for the first plan's folder, when out/cli.js asked it already. */
export async function validate(files: string[], gitTop?: Promise<string>): Promise<number> {
  if (files.length === 0) throw new Usage('validate needs at least one FILE');
  // git finds the first plan's workspace while the compiler's modules initialise and the plan is
  // read and checked against the schema (only what follows needs to know).
  const first = workspaceForPlanAsync(files[0]!, undefined, gitTop);
  const [{ compilePlanFile }, { isGitWorkspace }] = await Promise.all([
    import('../../core/plan/compile'),
    import('../../core/engine/isolation/gitWorkspace'),
  ]);
  // As `run` will see it: worktree steps need the plan's workspace to be a git repository.
  const isGit = async (ws: string) => isFoundGitTop(ws) || (await isGitWorkspace(ws));
  let problems = 0;
  for (const [i, f] of files.entries()) {
    const git = i === 0 ? first.then(isGit) : isGit(workspaceForPlan(f));
    // Awaited below: a workspace Braid cannot use must not be an unhandled rejection meanwhile.
    git.catch(() => undefined);
    const r = await compilePlanFile(f, { isGit: git, jitless: true });
    // The workspace's failure (a `.braid` file) ends the command before any line, as it did before.
    await git;
    for (const d of r.diagnostics) (d.severity === 'error' ? out : err)(`${formatDiagnostic(d)}\n`);
    problems += r.diagnostics.filter((d) => d.severity === 'error').length;
  }
  if (problems === 0) err(`${files.length} plan${files.length > 1 ? 's' : ''} valid\n`);
  return problems > 0 ? 1 : 0;
}
