/**
 * The dashboard's getting-started card: three steps to a first message, each ticked off from
 * what exists (channels, a template's instance, a send), never from what was clicked.
 */
import type { Channel } from '@contract';
import type { RouteLocationRaw } from 'vue-router';

export type GettingStartedStepKey = 'channel' | 'template' | 'send';

export interface GettingStartedStep {
  key: GettingStartedStepKey;
  done: boolean;
  /** Where the step is done. */
  to: RouteLocationRaw;
}

/** What the steps are read from: the channels (with who uses them) and whether any send exists. */
export interface GettingStartedFacts {
  channels: readonly Pick<Channel, 'usedBy'>[];
  sends: number;
}

export function gettingStartedSteps(facts: GettingStartedFacts): GettingStartedStep[] {
  // A channel used by a template is that template's instance: the channel list says so.
  const template = facts.channels.flatMap((c) => c.usedBy).find((use) => use.kind === 'template');
  return [
    { key: 'channel', done: facts.channels.length > 0, to: { name: 'channels' } },
    { key: 'template', done: template !== undefined, to: { name: 'templates' } },
    {
      key: 'send',
      done: facts.sends > 0,
      // Straight to that template's Send API, with its ready curl line.
      to: template
        ? { name: 'templates', query: { sendApi: String(template.id) } }
        : { name: 'templates' },
    },
  ];
}

const DISMISSED_KEY = 'herald.gettingStarted.dismissed';

/** Whether this person hid the card in this browser. */
export function gettingStartedDismissed(userId: number): boolean {
  try {
    return localStorage.getItem(`${DISMISSED_KEY}.${userId}`) === '1';
  } catch {
    return false;
  }
}

export function dismissGettingStarted(userId: number): void {
  try {
    localStorage.setItem(`${DISMISSED_KEY}.${userId}`, '1');
  } catch {
    // Storage refused (private mode): hidden until the page is loaded again.
  }
}
