// Issue 32 as a user meets it in the editor: a template spliced into a text agent's argument is an
// error at the template that says what to write instead; a plan agent without `input` whose
// prompt has templates gets a warning at the agent naming both settings. Asserted from the
// Problems panel's DOM, with a screenshot.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poll } from './graphFrame';
import { openFile, runCommand } from './palette';
import type { Workbench } from './workbench';
import { useWorkbench } from './workbenchSuite';
import { plan } from '../../helpers/planText';

describe('agent input in the editor', function () {
  let wb: Workbench;
  useWorkbench(
    {
      name: 'agent-input',
      viewport: { width: 1400, height: 800 },
      prepare: (dir) => {
        writeFileSync(
          join(dir, 'tools.braid.yaml'),
          plan`
            version: 1
            name: Tools
            agents:
              py:
                command: [python3, -c, "print('\${{ prompt }}')"]
                input: text
              wrapped:
                command: [timeout, "600", sh, -c, "\${{ prompt }}"]
            steps:
              fetch:
                run: cat notes.txt
              say:
                needs: [fetch]
                agent: py
                prompt: hello
              use:
                needs: [fetch]
                agent: wrapped
                prompt: echo \${{ steps.fetch.output }}
            `,
        );
      },
    },
    (w) => {
      wb = w;
    },
  );

  it('shows the refused splice at its template and the unsaid input at its agent', async function () {
    this.timeout(90_000);
    await openFile(wb, 'tools.braid.yaml');
    await runCommand(wb, 'View: Focus Problems (Errors, Warnings, Infos)');
    const rows = await poll(
      'both problems in Problems',
      async () => {
        const all = await wb.page.locator('.markers-panel .monaco-list-row').allTextContents();
        return all.some((r) => r.includes('inside a longer argument')) &&
          all.some((r) => r.includes('`input` is not set'))
          ? all
          : undefined;
      },
      30_000,
    );
    const spliced = rows.find((r) => r.includes('inside a longer argument'))!;
    assert.match(
      spliced,
      /pass it as a whole argument \("\$\{\{ prompt \}\}"\), or let a shell read it from the environment, where the prompt always is: \[bash, -c, 'mytool "\$BRAID_PROMPT"'\]/,
    );
    assert.match(spliced, /\[Ln 5, Col 36\]/, spliced);
    const unsaid = rows.find((r) => r.includes('`input` is not set'))!;
    assert.match(
      unsaid,
      /Add `input: text` if wrapped reads its prompt as text and never runs it, or `input: code` if it may run it/,
    );
    assert.match(unsaid, /\[Ln 7, Col 3\]/, unsaid);
    await wb.screenshot('agent-input-problems');
  });
});
