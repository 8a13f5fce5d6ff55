// A step's templates and its needs' results reach its shell as environment variables, and exec
// takes argv and environment together from one bounded space (about 2 MiB on Linux, each string
// under 128 KiB): 32 outputs of 64 KiB made `Argument list too long` (exit 126). Past a budget
// the largest values go to files instead; the script reads each back into its own variable.

/** Environment kept under this (bytes); the rest of exec's space is argv's and the system's. */
export const ENV_BUDGET = 1 << 20;
/** The longest one argument or environment string may be (Linux MAX_ARG_STRLEN, 32 pages). */
export const MAX_ARG_BYTES = 128 * 1024;

const entryBytes = (k: string, v: string): number => Buffer.byteLength(k) + Buffer.byteLength(v) + 2;

/**
 * Moves the largest of `movable` out of `env` until it fits: each becomes `NAME_FILE` (the path
 * `write` gave it) and a line before `script` that sets NAME from the file, trailing newlines
 * kept. The variable is the shell's own, not exported: a child process would hit the same limit.
 */
export function spillLargeValues(
  script: string,
  env: Record<string, string>,
  movable: readonly string[],
  write: (name: string, value: string) => string,
): { script: string; env: Record<string, string> } {
  let total = 0;
  for (const [k, v] of Object.entries(env)) total += entryBytes(k, v);
  const big = movable.filter((n) => env[n] !== undefined).sort((a, b) => env[b]!.length - env[a]!.length);
  const out = { ...env };
  const lines: string[] = [];
  for (const name of big) {
    const value = out[name]!;
    const size = entryBytes(name, value);
    if (total <= ENV_BUDGET && size < MAX_ARG_BYTES) continue;
    const file = `${name}_FILE`;
    out[file] = write(name, value);
    delete out[name];
    total += entryBytes(file, out[file]) - size;
    lines.push(`${name}=$(cat -- "$${file}"; printf x); ${name}=\${${name}%x}`);
  }
  return lines.length === 0 ? { script, env } : { script: `${lines.join('\n')}\n${script}`, env: out };
}
