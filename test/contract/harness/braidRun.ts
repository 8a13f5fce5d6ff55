// Runs the `braid` CLI users run (out/cli.js, the esbuild bundle) on a plan in a fresh workspace,
// with the agent environment of agentHome.ts, and reads back what a user would: the exit code,
// the summary on stdout/stderr, `braid status --json`, the step logs. The one way the contract
// tests start a process: braid, braid in the background, or an agent CLI itself.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
export const CLI = join(ROOT, 'out', 'cli.js');

let built = false;
/** Bundles out/cli.js once per test process (esbuild: about a second). */
export function buildCli(): void {
  if (built) return;
  execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(CLI)) throw new Error(`esbuild did not write ${CLI}`);
  built = true;
}

export interface Workspace {
  readonly dir: string;
  write(path: string, text: string): Promise<void>;
  read(path: string): Promise<string>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@localhost',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@localhost',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** A workspace folder under `parent` (the agent home's dir); a git repository with one commit when `git`. */
export async function makeWorkspace(
  parent: string,
  options: { git: boolean; files?: Record<string, string> },
): Promise<Workspace> {
  const dir = await mkdtemp(join(parent, 'ws-'));
  const ws: Workspace = {
    dir,
    async write(path, text) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    },
    read: (path) => readFile(join(dir, path), 'utf8'),
  };
  await ws.write('README.md', '# contract test workspace\n');
  for (const [p, t] of Object.entries(options.files ?? {})) await ws.write(p, t);
  if (options.git) {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
        cwd: dir,
        env: { ...process.env, ...GIT_ENV },
        stdio: 'ignore',
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
  }
  return ws;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** `COMMAND ARGS` in `cwd` with exactly `env`, to its end; killed after `timeoutMs`. */
export function runProcess(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `braid ARGS` in `cwd` with exactly `env` (plus git's identity); killed after `timeoutMs`. */
export function braid(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<CliResult> {
  buildCli();
  return runProcess(process.execPath, [CLI, ...args], cwd, { ...env, ...GIT_ENV }, timeoutMs);
}

export interface BackgroundBraid {
  readonly child: ChildProcess;
  /** Its stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** Its exit code once it has exited. */
  readonly ended: Promise<number | null>;
}

/** `braid ARGS` left running, for a test that acts on the run while it lives (the test kills it after). */
export function braidInBackground(args: readonly string[], cwd: string, env: Record<string, string>): BackgroundBraid {
  buildCli();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...env, ...GIT_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const add = (d: Buffer) => {
    output += d.toString();
  };
  child.stdout.on('data', add);
  child.stderr.on('data', add);
  const ended = new Promise<number | null>((r) => child.on('exit', r));
  return { child, output: () => output, ended };
}

export interface RunResult extends CliResult {
  /** `braid status --json` after the run. */
  readonly status: StatusJson;
  /** The readable log of a step (every attempt). */
  log(step: string): Promise<string>;
  /** The raw event stream of a step's agent (JSON lines), as Braid kept it. */
  raw(step: string): Promise<string>;
}

export interface AttemptStatus {
  attempt: number;
  status?: string;
  exitCode?: number | null;
  reason?: string;
  message?: string;
  sessionId?: string;
  turns?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  [k: string]: unknown;
}
/** A step of `braid status --json` (the run record's StepRecord). */
export interface StepStatus {
  id: string;
  status: string;
  reason?: string;
  message?: string;
  exitCode?: number | null;
  attempts: AttemptStatus[];
  costUsd?: number;
  sessionId?: string;
  [k: string]: unknown;
}
export interface StatusJson {
  id: string;
  plan: string;
  status: string;
  steps: Record<string, StepStatus>;
}

/** `braid status [RUN] --json` in the workspace: the last run's record, or `run`'s; undefined when it prints no JSON. */
export async function statusOf(
  ws: Workspace,
  env: Record<string, string>,
  run?: string,
): Promise<StatusJson | undefined> {
  const s = await braid(['status', ...(run === undefined ? [] : [run]), '--json', '--workspace', ws.dir], ws.dir, env);
  try {
    return JSON.parse(s.stdout) as StatusJson;
  } catch {
    return undefined;
  }
}

/** Writes `plan` as plan.braid.yaml in the workspace, runs it, and reads its status. */
export async function runPlan(
  ws: Workspace,
  plan: string,
  env: Record<string, string>,
  args: readonly string[] = [],
  timeoutMs?: number,
): Promise<RunResult> {
  await ws.write('plan.braid.yaml', plan);
  // --workspace: the runs are recorded here and nowhere above it, whatever git finds.
  const r = await braid(['run', 'plan.braid.yaml', '--workspace', ws.dir, ...args], ws.dir, env, timeoutMs);
  const s = await braid(['status', '--json', '--workspace', ws.dir], ws.dir, env);
  let status: StatusJson;
  try {
    status = JSON.parse(s.stdout) as StatusJson;
  } catch {
    throw new Error(
      `braid status --json printed no JSON (exit ${s.code}):\n${s.stdout}\n${s.stderr}\n--- run:\n${r.stdout}\n${r.stderr}`,
    );
  }
  const runDir = join(ws.dir, '.braid', 'runs', status.id);
  const file = async (step: string, ext: string) => {
    const dir = join(runDir, 'logs');
    const names = await readdir(dir).catch(() => [] as string[]);
    const name = names.find((n) => n === `${step}${ext}`);
    return name ? readFile(join(dir, name), 'utf8') : '';
  };
  return { ...r, status, log: (step) => file(step, '.log'), raw: (step) => file(step, '.jsonl') };
}

export const stepOf = (r: RunResult, id: string): StepStatus => {
  const s = r.status.steps[id];
  if (!s)
    throw new Error(
      `no step ${id} in status --json: ${JSON.stringify(Object.keys(r.status.steps))}\n${r.stdout}\n${r.stderr}`,
    );
  return s;
};
