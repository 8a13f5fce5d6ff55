// A scenario for `on-conflict: resolve` (contract/resolve.test.ts): the model's first turn makes
// the step's change, and a request carrying Braid's conflict note (the resolution, in the same
// session resumed) is answered with the edit that resolves it (a shell turn: claude's Write
// refuses a file it has not read in the session). `onFirst` runs when a provider's conversation first asks, while the agent works,
// before anything of its lands: the moment a user's edit makes its landing conflict.
import type { Provider, RecordedRequest } from './server';
import type { Scenario, Turn } from './scenario';

export const CONFLICT_NOTE = 'Your change could not land';

export interface ConflictScenario {
  /** The step's own change: the provider's agent's first turn. */
  first(provider: Provider): Turn;
  /** The resolution's edit (markers removed). */
  resolved(provider: Provider): Turn;
  onFirst?(provider: Provider): void;
}

export function conflictScenario(o: ConflictScenario): (req: RecordedRequest) => Scenario {
  const started = new Set<Provider>();
  // Where each provider's resolution began in its (resumed) history: its turns are counted from there.
  const resolvingAt = new Map<Provider, number>();
  return (req) => {
    const p = req.provider === 'other' ? 'anthropic' : req.provider;
    const resolving = req.userTexts.some((t) => t.includes(CONFLICT_NOTE));
    if (!resolving) {
      if (!started.has(p)) {
        started.add(p);
        o.onFirst?.(p);
      }
      return { turns: [o.first(p), { text: 'Done.' }] };
    }
    if (!resolvingAt.has(p)) resolvingAt.set(p, req.position);
    const pad: Turn[] = Array.from({ length: resolvingAt.get(p)! }, () => ({ text: 'Done.' }));
    return { turns: [...pad, o.resolved(p), { text: 'Resolved: both changes kept, no markers left.' }] };
  };
}
