// Notifications as the workbench showed them, recorded in the page by a MutationObserver: as
// toasts, or as items of the notification center. A progress notification lives only while its
// run does, and a run of a few seconds can start and end between two polls, so a test asks what
// was shown, not what is showing now. Tests open the center first, so a notification is found
// whether or not the workbench toasts it (it holds toasts back beyond 3 within 800 ms).
import type { Page } from 'playwright-core';

export interface SeenNotification {
  /** The item's whole text: its message, source and button labels. */
  text: string;
  buttons: string[];
}

interface Recorder {
  __braidNotifications?: SeenNotification[];
}

// A string, not a function: tsx's keepNames wrappers (`__name(…)`) do not exist in the page.
const RECORDER = `(() => {
  if (window.__braidNotifications) return;
  const seen = (window.__braidNotifications = []);
  const keys = new Set();
  const note = () => {
    for (const t of document.querySelectorAll('.notification-list-item')) {
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

/** Starts recording notifications in the workbench page (once; a second call keeps the first record). */
export async function recordNotifications(page: Page): Promise<void> {
  await page.evaluate(RECORDER);
}

/** Every distinct notification (text and buttons) shown since `recordNotifications`, in order. */
export async function seenNotifications(page: Page): Promise<SeenNotification[]> {
  return page.evaluate(() => (window as unknown as Recorder).__braidNotifications ?? []);
}
