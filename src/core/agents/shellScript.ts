// Which agents hand their prompt to a shell as source: the `shell` preset (`sh -c ${{ prompt }}`),
// and any command that is a shell's `-c` script (`bash -lc "…${{ prompt }}"`) or a shell reading
// its script on stdin (`stdin: prompt`). Their prompt is shell source, like a `run` step's, so its
// templates must become environment-variable references, never values (render.ts).
import type { AgentDef } from '../plan/types';

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'busybox']);
// A short option cluster that holds `c` (`-c`, `-lc`, `-ec`): the script is the next operand.
const DASH_C = /^-[A-Za-z]*c[A-Za-z]*$/;

/** Where the agent's shell reads its script: an argv element's index, `stdin`, or undefined when no shell reads one. */
export function shellScriptOf(agent: Pick<AgentDef, 'command' | 'stdin'>): number | 'stdin' | undefined {
  const argv = agent.command;
  let i = 0;
  // `env [NAME=value…] bash …`
  if (baseName(argv[0]) === 'env') { i = 1; while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]!)) i++; }
  const exe = baseName(argv[i]);
  if (!SHELLS.has(exe)) return undefined;
  if (exe === 'busybox') { i++; if (!SHELLS.has(baseName(argv[i])) || baseName(argv[i]) === 'busybox') return undefined; }
  let dashC = false;
  for (let j = i + 1; j < argv.length; j++) {
    const a = argv[j]!;
    if (a === '--') continue;
    if (DASH_C.test(a)) { dashC = true; continue; }
    if (a.startsWith('-') || a.startsWith('+')) continue;
    // The first operand: the script after -c, else a script file (not ours to read).
    return dashC ? j : undefined;
  }
  // A shell with no operand reads its commands from stdin.
  return agent.stdin === 'prompt' && !dashC ? 'stdin' : undefined;
}

const baseName = (exe: string | undefined): string => (exe ?? '').split('/').pop() ?? '';
