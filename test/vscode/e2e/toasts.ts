// Notification toasts as the workbench showed them, recorded in the page by a MutationObserver.
// A progress toast lives only while its run does; on a slow machine a run of a few seconds can
// start and end between two polls, so a test asks what was shown, not what is showing now.
import type { Page } from 'playwright-core';

export interface SeenToast {
  /** The toast's whole text: its message, source and button labels. */
  text: string;
  buttons: string[];
}

interface Recorder { __braidToasts?: SeenToast[] }

// A string, not a function: tsx's keepNames wrappers (`__name(…)`) do not exist in the page.
const RECORDER = `(() => {
  if (window.__braidToasts) return;
  const seen = (window.__braidToasts = []);
  const keys = new Set();
  const note = () => {
    for (const t of document.querySelectorAll('.notification-toast')) {
      const text = (t.textContent || '').trim();
      const buttons = [...t.querySelectorAll('.monaco-button')].map((b) => (b.textContent || '').trim()).filter(Boolean);
      const key = text + '\\u0000' + buttons.join('\\u0000');
      if (text === '' || keys.has(key)) continue;
      keys.add(key);
      seen.push({ text, buttons });
    }
  };
  note();
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;

/** Starts recording toasts in the workbench page (once; a second call keeps the first record). */
export async function recordToasts(page: Page): Promise<void> {
  await page.evaluate(RECORDER);
}

/** Every distinct toast (text and buttons) shown since `recordToasts`, in order. */
export async function seenToasts(page: Page): Promise<SeenToast[]> {
  return page.evaluate(() => (window as unknown as Recorder).__braidToasts ?? []);
}
