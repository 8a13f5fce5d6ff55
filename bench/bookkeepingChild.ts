// Entry of the bookkeeping bench's esbuild bundle, run by plain node (no tsx): argv is
// `sizes runs k`; prints the medians as JSON on stdout.
import { measureBookkeeping } from './bookkeepingRun';

const [sizes = '', runs = '1', k = '4'] = process.argv.slice(2);
measureBookkeeping(sizes.split(',').map(Number), Number(runs), Number(k)).then(
  (us) => {
    process.stdout.write(`${JSON.stringify(us)}\n`);
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
