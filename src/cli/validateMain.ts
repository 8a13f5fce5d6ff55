// out/cli/validate.js: `braid validate FILE...` alone, the bundle out/cli.js runs for it
// (bundleFor.ts). It holds the plan's modules and none of the engine's, so a check of a plan reads
// and deserialises a third of main.js's code. It ends as main.ts would: the same exit codes, the
// same one-line failures (commandStart.ts); what would print the help never comes here.
import { validate } from './commands/validate';
import { expectedFailure, startCommand } from './commandStart';

/**
 * Runs `braid validate` with the process's arguments; out/cli.js calls it as it calls main.js's
 * start, with git's answer for the first plan's folder that it asked before reading this bundle.
 */
export function start(_file: string, gitTop?: Promise<string>): void {
  startCommand(async () => {
    try {
      return await validate(process.argv.slice(3), gitTop);
    } catch (e) {
      const code = expectedFailure(e);
      if (code === undefined) throw e;
      return code;
    }
  });
}
