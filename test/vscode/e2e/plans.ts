// Plans of any size for the graph's e2e tests and the workbench bench: steps in `layers` layers of
// `width`; each needs one or two steps of the layer before, so every layer is one rank.
import type { Workbench } from './workbench';

export function layeredPlan(name: string, layers: number, width: number): string {
  const lines = ['version: 1', `name: ${name}`, 'steps:'];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      lines.push(`  s${l}_${i}:`, `    name: step ${l}.${i} build`, '    run: "true"');
      if (l > 0) lines.push(`    needs: [s${l - 1}_${i}${width > 1 ? `, s${l - 1}_${(i + 1) % width}` : ''}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Opens a workspace file from the Explorer, as a user clicks it: Quick Open's file search can take
 * longer than its wait on a loaded machine, and how the file was opened is not what is measured.
 */
export async function openFromExplorer(wb: Workbench, fileName: string): Promise<void> {
  const row = wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: fileName }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.click();
  await wb.page
    .locator(`.tabs-container .tab[data-resource-name="${fileName}"]`)
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
}
