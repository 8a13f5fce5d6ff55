// In place of the graph when the plan does not validate: its problems, located, each a button
// that reveals the line in the plan's editor (the host knows the positions; the page sends only
// which problem was picked).
import type { ProblemsMessage } from '../src/protocol/webview';
import { el } from './dom';

export class ProblemsView {
  readonly root = el('section', { class: 'problems', role: 'alert', hidden: true, 'aria-label': 'Plan problems' });

  constructor(private readonly onOpen: (index: number) => void) {}

  show(msg: ProblemsMessage): void {
    const errors = msg.problems.filter((p) => p.severity === 'error').length + msg.more;
    const title = el(
      'h2',
      {},
      `${msg.file} cannot be drawn: ${errors === 1 ? '1 problem' : `${errors} problems`} to fix`,
    );
    const list = el('ol', { class: 'problem-list' });
    msg.problems.forEach((p, i) => {
      const button = el(
        'button',
        { type: 'button', class: `problem ${p.severity}`, 'data-problem': i, title: 'Show in the plan' },
        el('span', { class: 'where' }, `${p.line + 1}:${p.column + 1}`),
        ' ',
        el('span', { class: 'what' }, p.message),
      );
      button.addEventListener('click', () => this.onOpen(i));
      list.append(el('li', {}, button));
    });
    const more = msg.more > 0 ? [el('p', { class: 'hint' }, `and ${msg.more} more in the Problems panel`)] : [];
    this.root.replaceChildren(title, list, ...more);
    this.root.hidden = false;
  }

  hide(): void {
    this.root.hidden = true;
    this.root.replaceChildren();
  }
}
