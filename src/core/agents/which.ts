// Finding an agent's executable before a run, so a missing CLI is one clear sentence with its
// install command rather than a spawn ENOENT in the middle of the graph.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, extname, isAbsolute, resolve } from 'node:path';
import { INSTALL_HINTS } from './presets';

const isWindows = process.platform === 'win32';

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    // Windows has no execute bit: X_OK there means "exists", the extension decides.
    accessSync(file, isWindows ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// On Windows `claude` may be `claude.cmd`: try the PATHEXT extensions unless one is given.
function candidates(file: string): string[] {
  if (!isWindows) return [file];
  const exts = (process.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  const given = extname(file).toLowerCase();
  if (given !== '' && exts.some((e) => e.toLowerCase() === given)) return [file];
  return [file, ...exts.map((e) => file + e)];
}

/** The absolute path `cmd` would run as, searching `envPath` for a bare name; undefined when none is executable. */
export function findExecutable(cmd: string, envPath: string | undefined, cwd: string): string | undefined {
  if (cmd === '') return undefined;
  const hasDir = cmd.includes('/') || (isWindows && cmd.includes('\\'));
  if (hasDir || isAbsolute(cmd)) return candidates(resolve(cwd, cmd)).find(isExecutableFile);
  // Like libuv's spawn: no PATH means the default one; an empty or relative entry is relative
  // to the child's working directory.
  const dirs = (envPath ?? (isWindows ? '' : '/usr/bin:/bin')).split(delimiter);
  if (isWindows) dirs.unshift(cwd);
  for (const dir of dirs) {
    const found = candidates(resolve(cwd, dir, cmd)).find(isExecutableFile);
    if (found) return found;
  }
  return undefined;
}

/** The command that installs the CLI `cmd` runs, when Braid knows it (by the executable's own name). */
export function installCommand(cmd: string): string | undefined {
  // By the executable's own name, not the agent's: a preset whose command was replaced by a
  // wrapper must not be told to install the CLI it no longer runs.
  const name = (cmd.split(/[\\/]/).pop() ?? cmd).replace(/\.(cmd|exe|bat)$/i, '');
  return INSTALL_HINTS[name];
}

/** The sentence shown when an agent's command is missing, with its install command when it is a preset's CLI. */
export function notInstalledMessage(cmd: string): string {
  const hint = installCommand(cmd);
  if (hint) return `${cmd} is not installed; install it with ${hint}`;
  const hasDir = cmd.includes('/') || (isWindows && cmd.includes('\\'));
  return `${cmd} is not installed (${hasDir ? 'no executable file there' : 'not found on PATH'})`;
}
