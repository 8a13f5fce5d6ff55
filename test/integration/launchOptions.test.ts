// What Braid adds at an agent's launch: its CLI's own retries bounded (each the way the CLI
// offers, a user's own setting winning) and a step's budget passed to claude.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentFailureReason, failureMessage } from '../../src/core/agents/failureReason';
import { launchOptions } from '../../src/core/agents/launchOptions';
import { codexProvider } from '../../src/core/agents/retryBounds';

const CLAUDE = ['claude', '-p', '--output-format', 'stream-json', '--', 'do it'];

describe('agents/launchOptions', () => {
  it('claude: CLAUDE_CODE_MAX_RETRIES=0 unless set; --max-budget-usd before --, only with a step budget', async () => {
    const a = await launchOptions('claude', CLAUDE, { HOME: '/h' }, 0.5);
    assert.deepEqual(a.argv, [
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--max-budget-usd',
      '0.5',
      '--',
      'do it',
    ]);
    assert.equal(a.env.CLAUDE_CODE_MAX_RETRIES, '0');
    const b = await launchOptions('claude', CLAUDE, { CLAUDE_CODE_MAX_RETRIES: '3' });
    assert.deepEqual(b.argv, CLAUDE);
    assert.equal(b.env.CLAUDE_CODE_MAX_RETRIES, '3', "the user's own setting wins");
    const c = await launchOptions('codex', ['codex', 'exec', '--', 'x'], {}, 0.5);
    assert.ok(!c.argv.includes('--max-budget-usd'), 'only claude can stop itself at a budget');
  });

  it('gemini: a private settings file with general.maxAttempts = 1, named in GEMINI_CLI_SYSTEM_SETTINGS_PATH, unless one is set', async () => {
    const home = mkdtempSync(join(tmpdir(), 'braid-launch-'));
    const a = await launchOptions('gemini', ['gemini', '--prompt=x'], { HOME: home });
    const file = a.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH!;
    assert.equal(file, join(home, '.cache', 'braid', 'gemini-system-settings.json'));
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { general: { maxAttempts: 1 } });
    const b = await launchOptions('gemini', ['gemini', '--prompt=x'], {
      HOME: home,
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/etc/mine.json',
    });
    assert.equal(b.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH, '/etc/mine.json');
  });

  it('codex: retries set to 0 for the configured provider when config.toml defines it; never for the built-in one', async () => {
    const codexHome = mkdtempSync(join(tmpdir(), 'braid-codex-'));
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      'model_provider = "gw"\n\n[model_providers.gw]\nname = "gateway"\nbase_url = "http://127.0.0.1:1/v1"\n',
    );
    const a = await launchOptions('codex', ['codex', 'exec', '--json', '--', 'x'], { CODEX_HOME: codexHome });
    assert.deepEqual(a.argv, [
      'codex',
      'exec',
      '-c',
      'model_providers.gw.request_max_retries=0',
      '-c',
      'model_providers.gw.stream_max_retries=0',
      '--json',
      '--',
      'x',
    ]);
    assert.equal(codexProvider('model_provider = "openai"\n'), undefined, 'the built-in provider cannot be overridden');
    assert.equal(codexProvider('[model_providers.gw]\nname = "x"\n'), undefined, 'defined but not chosen');
    assert.equal(
      codexProvider('[model_providers.gw]\n', ['-c', 'model_provider=gw']),
      'gw',
      'chosen on the command line',
    );
  });

  it("a failure reads as the agent's last error, else its last telling stderr line, with the exit code beside it", () => {
    assert.equal(
      failureMessage(agentFailureReason({ errors: ['first', 'API Error: 500 Internal server error'] }, ''), 1),
      'API Error: 500 Internal server error (exit 1)',
    );
    const stderr =
      "Warning: 256-color support not detected.\nerror: unknown option '-x'\n    at main (file:///a.js:1:1)\n";
    assert.equal(failureMessage(agentFailureReason(undefined, stderr), 1), "error: unknown option '-x' (exit 1)");
    assert.equal(failureMessage(undefined, 2), 'exited with code 2');
    assert.equal(
      agentFailureReason({ errors: ['[API Error: {"error":{"code":500,"message":"Boom.","status":"INTERNAL"}}]'] }, ''),
      'API Error: 500 Boom.',
    );
  });
});
