// Which of the CLI's bundles runs a command line (out/cli.js picks it before loading anything).
// `braid validate FILE...` has a bundle of its own, out/cli/validate.js: the plan's modules and no
// engine, so a check reads, deserialises and runs a third of the code (issue 35,
// docs/decisions/cli-start.md). Everything else, and whatever could end in the help, is main.js.
import { dirname, resolve } from 'node:path';

/** `braid run --help`: a help flag anywhere before `--` asks for the help, not for a run. */
export function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The folder `braid validate` asks git about first (its first plan's), before its bundle is read. */
export function firstPlanDir(argv: readonly string[]): string | undefined {
  return bundleFor(argv) === 'validate.js' ? dirname(resolve(argv[1]!)) : undefined;
}

/**
 * The bundle's file name in out/cli/. validate.js takes only what main.ts would hand to validate()
 * and what cannot end in a usage error (that prints the whole help, which lives in main.js).
 */
export function bundleFor(argv: readonly string[]): 'main.js' | 'validate.js' {
  const [cmd, ...rest] = argv;
  return cmd === 'validate' && rest.length > 0 && !asksHelp(rest) ? 'validate.js' : 'main.js';
}
