// Names that meet in one environment variable: a step's output and status reach a shell as
// $BRAID_STEPS_<ID>_OUTPUT/_STATUS and a matrix value as $BRAID_MATRIX_<KEY>, upper-cased with
// other characters as `_`. Two names that spell one variable (`a-b` and `a_b`, keys `K` and `k`)
// would hand a step one of the two values without a word; each later one is a located warning.
// A warning, not an error: a plan that never reads those variables runs as written.
import type { PlanModel } from './expand';
import type { Report } from './reporter';
import { envNameFor } from '../templates';

export function checkEnvNames(model: PlanModel, report: Report): void {
  const steps = new Map<string, string>();
  const told = new Set<string>();
  for (const inst of model.instances) {
    for (const name of inst.id === inst.group ? [inst.id] : [inst.group, inst.id]) {
      const v = envNameFor(['steps', name, 'output']);
      const first = steps.get(v);
      if (first === undefined) {
        steps.set(v, name);
        continue;
      }
      if (first === name || told.has(inst.group)) continue;
      told.add(inst.group);
      const stem = v.replace(/_OUTPUT$/, '');
      report(
        ['steps', inst.group],
        `\`${name}\` and \`${first}\` are one variable to a shell (${stem}_OUTPUT, ${stem}_STATUS): a step needing both reads one of them; rename one`,
        'env-name',
        { key: true, severity: 'warning' },
      );
    }
  }
  for (const step of model.checked.steps) {
    const keys = new Map<string, string>();
    for (const key of Object.keys(step.doc.matrix ?? {})) {
      const v = envNameFor(['matrix', key]);
      const first = keys.get(v);
      if (first === undefined) {
        keys.set(v, key);
        continue;
      }
      report(
        ['steps', step.id, 'matrix', key],
        `matrix keys \`${key}\` and \`${first}\` are one variable to a shell (${v}): rename one`,
        'env-name',
        { key: true, severity: 'warning' },
      );
    }
  }
}
