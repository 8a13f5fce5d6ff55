// `braid logs RUN-ID STEP`: a step's log, every attempt (a best-of step's: each alternative's in turn).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { err, out } from '../output';
import { Usage } from '../usage';
import { workspaceForCwd } from '../workspace';

export async function logs(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' } },
  });
  const [runId, step] = positionals;
  if (!runId || !step) throw new Usage('logs needs RUN-ID and STEP');
  const { RunStore } = await import('../../core/engine/records/runStore');
  const store = new RunStore(workspaceForCwd(values.workspace));
  const rec = await store.load(runId);
  if (!rec) {
    err(`braid: unknown run ${runId}\n`);
    return 1;
  }
  // A best-of step's alternatives log as steps of their own (`<step>.alt<i>`): each in turn.
  const alts = rec.steps[step]?.alternatives;
  const parts = alts
    ? alts.map((a) => ({
        id: `${step}.alt${a.index}`,
        head: `════ alternative ${a.index} · ${a.status}${rec.steps[step]!.winner === a.index ? ' · won' : ''} ════\n`,
      }))
    : [{ id: step, head: '' }];
  let shown = 0;
  for (const p of parts) {
    const text = await readFile(store.paths(runId).log(p.id), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    out(p.head + text);
    shown++;
  }
  if (shown === 0) {
    err(`braid: no log for ${step} in ${runId}\n`);
    return 1;
  }
  return 0;
}
