// The bar above the graph (plan name, search, zoom, run buttons) and the row of buttons for the
// selected step. Buttons are rebuilt only when the set that applies changes, and only the
// applicable ones exist in the DOM, so `[data-action=…]` finds exactly what a user can press.
import type { WebviewAction } from '../src/protocol/webview';
import { ACTION_LABELS } from './actions';
import { el } from './dom';

export interface ToolbarOptions {
  readonly onAction: (action: WebviewAction, stepId: string | undefined) => void;
  readonly onSearch: (query: string) => void;
  /** Enter in the search box: go to the next match. */
  readonly onSearchNext: () => void;
  readonly onFit: () => void;
  readonly onZoom: (factor: number) => void;
}

export class ActionRow {
  readonly root: HTMLElement;
  private key = '';

  constructor(
    className: string,
    label: string,
    private readonly onAction: ToolbarOptions['onAction'],
  ) {
    this.root = el('div', { class: `actions ${className}`, role: 'toolbar', 'aria-label': label });
  }

  /** Shows exactly these buttons, each acting on `stepId` when given. */
  set(actions: readonly WebviewAction[], stepId: string | undefined): void {
    const key = `${stepId ?? ''}|${actions.join(',')}`;
    if (key === this.key) return;
    this.key = key;
    this.root.replaceChildren(
      ...actions.map((a) => {
        const b = el(
          'button',
          {
            type: 'button',
            'data-action': a,
            'data-step-id': stepId,
            class: a === 'retry' || a === 'run-plan' ? 'primary' : undefined,
          },
          ACTION_LABELS[a],
        );
        b.addEventListener('click', () => this.onAction(a, stepId));
        return b;
      }),
    );
  }
}

export class Toolbar {
  readonly root: HTMLElement;
  readonly runActions: ActionRow;
  readonly search: HTMLInputElement;
  private readonly planName: HTMLElement;
  private readonly matches: HTMLElement;

  constructor(opts: ToolbarOptions) {
    this.planName = el('span', { class: 'plan-name' });
    this.search = el('input', {
      type: 'search',
      class: 'search',
      placeholder: 'Find a step',
      'aria-label': 'Find a step',
      spellcheck: 'false',
    });
    this.matches = el('span', { class: 'search-count', 'aria-live': 'polite' });
    this.runActions = new ActionRow('run-actions', 'Run', opts.onAction);
    const viewButton = (label: string, title: string, view: string, run: () => void): HTMLButtonElement => {
      const b = el('button', { type: 'button', class: 'icon', title, 'aria-label': title, 'data-view': view }, label);
      b.addEventListener('click', run);
      return b;
    };
    this.root = el(
      'div',
      { class: 'toolbar' },
      this.planName,
      el('span', { class: 'spacer' }),
      this.search,
      this.matches,
      viewButton('−', 'Zoom out', 'zoom-out', () => opts.onZoom(1 / 1.25)),
      viewButton('+', 'Zoom in', 'zoom-in', () => opts.onZoom(1.25)),
      viewButton('Fit', 'Fit to view', 'fit', opts.onFit),
      this.runActions.root,
    );
    this.search.addEventListener('input', () => opts.onSearch(this.search.value));
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        opts.onSearchNext();
      } else if (e.key === 'Escape') {
        this.search.value = '';
        opts.onSearch('');
      }
    });
  }

  setPlanName(name: string): void {
    this.planName.textContent = name;
  }

  setMatchCount(query: string, count: number): void {
    this.matches.textContent =
      query.trim() === '' ? '' : count === 0 ? 'no match' : `${count} ${count === 1 ? 'match' : 'matches'}`;
  }
}
