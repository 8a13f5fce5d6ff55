// `braid pick RUN-ID STEP N`: land alternative N of a best-of step waiting on pick (its run lands it).
import { parseArgs } from 'node:util';
import { err } from '../output';
import { Usage } from '../usage';
import { workspaceForCwd } from '../workspace';

export async function pick(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' } },
  });
  const [runId, step, which] = positionals;
  const n = Number(which);
  if (!runId || !step || positionals.length !== 3 || !Number.isInteger(n))
    throw new Usage('pick needs RUN-ID, STEP and the number N of an alternative');
  const [{ RunStore }, { pickProblem, writePick }] = await Promise.all([
    import('../../core/engine/records/runStore'),
    import('../../core/engine/records/pickRequest'),
  ]);
  const store = new RunStore(workspaceForCwd(values.workspace));
  await store.markInterrupted();
  const rec = await store.load(runId);
  if (!rec) {
    err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  const problem = pickProblem(rec, step, n);
  if (problem) {
    err(`braid: ${problem}\n`);
    return 1;
  }
  await writePick(store.paths(runId).dir, step, n);
  err(`picked alternative ${n} of ${step}; the run lands it\n`);
  return 0;
}
