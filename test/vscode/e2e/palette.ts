// Gestures through the quick input, as a user makes them: open a file by name (the palette with
// its `>` removed is Quick Open) and run a command by its title.
import type { Workbench } from './workbench';

const ROW = '.quick-input-widget .quick-input-list .monaco-list-row';

async function pick(wb: Workbench, text: string, label: string): Promise<void> {
  const input = await wb.openCommandPalette();
  await input.fill(text);
  // Wait for the row: Enter before the list filters would run whatever was on top.
  const row = wb.page.locator(ROW, { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await row.click();
  await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** Runs a command by its palette title, e.g. "Braid: Show Graph". */
export async function runCommand(wb: Workbench, title: string): Promise<void> {
  await pick(wb, `>${title}`, title);
}

/** Opens a workspace file in an editor through Quick Open and waits for its tab. */
export async function openFile(wb: Workbench, fileName: string): Promise<void> {
  await pick(wb, fileName, fileName);
  await wb.page
    .locator(`.tabs-container .tab[data-resource-name="${fileName}"]`)
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
}
