// The pinned agent CLIs, installed by scripts/setup-agents.sh (a no-op once they are).
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');
let done = false;

export function ensureAgents(): void {
  if (done) return;
  try {
    execFileSync('bash', [join(ROOT, 'scripts', 'setup-agents.sh')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`scripts/setup-agents.sh failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, {
      cause: err,
    });
  }
  done = true;
}
