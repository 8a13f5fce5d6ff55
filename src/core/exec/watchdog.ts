// Steps must not outlive their engine. Each step runs in its own process group (so one signal ends
// its whole tree), which also means nothing ends it when the engine itself is killed (kill -9, an
// out-of-memory kill, a crash): it would finish its side effects with nobody watching, holding no
// lock any more. So the engine keeps one small bash beside it, the watchdog, that reads the step
// groups from a pipe (`+PGID MARK` when a step starts, `-PGID` once its group is gone). The kernel
// closes that pipe however the engine dies; on EOF the watchdog TERMs the groups still listed and
// the processes that left them but carry their step's mark (marked.ts), gives them up to a second,
// KILLs them and exits. A normal end lists none, so it just exits.
//
// Lock files record the watchdog's pid beside the engine's (lockDir.ts): a dead engine's lock is
// broken only once its watchdog, and so every process of its steps, is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { MARK_VAR } from './marked';

const BASH = '/bin/bash';

// INT and HUP reach a terminal's whole foreground group (and the watchdog has its own group, so
// neither should reach it, but a `kill -HUP 0` from a step could): only EOF ends it.
const SCRIPT = `trap '' INT HUP
declare -A g
while IFS=' ' read -r l m; do case $l in +[0-9]*) g[\${l:1}]=\${m:--};; -[0-9]*) unset "g[\${l:1}]";; esac; done
(( \${#g[@]} )) || exit 0
marked() { local k v p; for k in "\${!g[@]}"; do v=\${g[$k]}; [[ $v = - ]] && continue
  for p in $(grep -lzx -- "${MARK_VAR}=$v" /proc/[0-9]*/environ 2>/dev/null); do p=\${p#/proc/}; echo "\${p%/environ}"; done; done; }
end() { for p in "\${!g[@]}"; do kill -$1 -- "-$p" 2>/dev/null; done; for p in $(marked); do kill -$1 "$p" 2>/dev/null; done; }
end TERM
for i in 1 2 3 4 5 6 7 8 9 10; do
  a=0; for p in "\${!g[@]}"; do kill -0 -- "-$p" 2>/dev/null && a=1; done
  (( a )) || [[ -n $(marked) ]] || exit 0
  sleep 0.1
done
end KILL
exit 0
`;

interface Running {
  readonly child: ChildProcess;
  readonly pipe: Writable;
}

let current: Running | undefined;
let restarts = 0;
const MAX_RESTARTS = 5;
/** Groups of steps that are (or may still be) running. */
const groups = new Map<number, string | undefined>();
// A released group still alive is re-checked this often, and forgotten after this many checks
// (its members are zombies an init that does not reap keeps around, or escaped with setsid).
const RECHECK_MS = 250;
const RECHECK_MAX = 120;

const supported = (): boolean => process.platform !== 'win32' && existsSync(BASH);

function start(): Running | undefined {
  if (current) return current;
  if (!supported()) return undefined;
  let child: ChildProcess;
  try {
    child = spawn(BASH, ['--noprofile', '--norc', '-c', SCRIPT, 'braid-watchdog'], {
      cwd: '/',
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
  } catch {
    return undefined;
  }
  child.on('error', () => undefined);
  if (child.pid === undefined) return undefined;
  const pipe = child.stdin!;
  pipe.on('error', () => undefined);
  const running: Running = { child, pipe };
  // Never what keeps the engine alive: it only matters once the engine is gone.
  child.unref();
  (pipe as unknown as { unref?(): void }).unref?.();
  child.once('exit', () => {
    // Killed from outside: another one takes over every live group (a few times at most, so a
    // watchdog that cannot live is not restarted in a loop).
    if (current === running) current = undefined;
    if (groups.size > 0 && restarts++ < MAX_RESTARTS) {
      queueMicrotask(() => {
        const r = start();
        if (r) for (const [g, mark] of groups) r.pipe.write(line(g, mark));
      });
    }
  });
  current = running;
  return running;
}

/** Starts the watchdog now (a run does before its first step, so the step's start does not pay for it). */
export function startWatchdog(): void {
  start();
}

/** The watchdog's pid, starting it if needed; undefined where there is none (Windows, no bash). */
export function watchdogPid(): number | undefined {
  return start()?.child.pid;
}

/** The group led by `pgid` (a step just spawned) is ended if this process dies before releasing it. */
export function guardGroup(pgid: number, mark?: string): void {
  if (groups.has(pgid)) return;
  groups.set(pgid, mark);
  tell(start(), line(pgid, mark));
}

// Lines told in one turn of the loop (steps starting and ending together) go in one write: each
// write wakes the watchdog's bash. The write leaves before the engine next waits on anything, so
// only a kill -9 landing within that same turn could miss a group (and the resident, which started
// it, ends its steps on the engine's death as well).
function tell(r: Running | undefined, text: string): void {
  if (!r) return;
  if (r.pipe.writableCorked === 0) {
    r.pipe.cork();
    process.nextTick(() => r.pipe.uncork());
  }
  r.pipe.write(text);
}

// A mark is newMark()'s (digits, a dot, hex): nothing the script's read or grep could misread.
const line = (pgid: number, mark: string | undefined): string =>
  mark !== undefined && /^[0-9a-f.]+$/.test(mark) ? `+${pgid} ${mark}\n` : `+${pgid}\n`;

/**
 * The step is over. Its group is dropped from the watchdog's list once no member is left, so a
 * recycled pid is never signalled; `alive` probes the group (killTree's groupAlive).
 */
export function releaseGroup(pgid: number, alive: (pgid: number) => boolean, checks = 0): void {
  if (!groups.has(pgid)) return;
  if (alive(pgid) && checks < RECHECK_MAX) {
    setTimeout(() => releaseGroup(pgid, alive, checks + 1), RECHECK_MS).unref();
    return;
  }
  groups.delete(pgid);
  tell(current, `-${pgid}\n`);
}

/** KILLs every guarded group now (a second Ctrl-C: no grace, but nothing left behind). */
export function killGuardedNow(): void {
  for (const g of groups.keys()) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
