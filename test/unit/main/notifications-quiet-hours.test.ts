import { describe, expect, it, vi } from 'vitest';

import { createNotifier, type HostedMessageEvent } from '../../../main/notifications';

/** The window person's own quiet hours on the desktop's native notifications (issue 46 §1). */
describe('notify() with quiet hours', () => {
  const message: HostedMessageEvent = {
    id: 12,
    title: 'Disk almost full',
    content: 'Only 2% left on /var',
    format: 'text',
    priority: 4,
  };
  const until = Date.parse('2026-01-14T06:00:00Z');

  function notifier(later?: (at: number, show: () => void) => void) {
    const create = vi.fn(() => ({ show: vi.fn(), on: vi.fn() }));
    const n = createNotifier({
      isSupported: () => true,
      create,
      settings: () => ({ notifications: true, doNotDisturb: false }),
      openMessage: vi.fn(),
      ...(later && { later }),
    });
    return { n, create };
  }

  it('shows a softened message silently and low, whatever its priority', () => {
    const { n, create } = notifier();
    expect(n.notify(message, { action: 'soften', until })).toBe('shown');
    expect(create).toHaveBeenCalledWith({
      title: 'Disk almost full',
      body: 'Only 2% left on /var',
      urgency: 'low',
      silent: true,
      timeoutType: 'default',
    });
  });

  it('shows nothing for a dropped message', () => {
    const { n, create } = notifier();
    expect(n.notify(message, { action: 'drop', until })).toBe('quiet-hours-dropped');
    expect(create).not.toHaveBeenCalled();
  });

  it('shows a held message when the window ends, as usual then', () => {
    const waiting: Array<[number, () => void]> = [];
    const { n, create } = notifier((at, show) => waiting.push([at, show]));
    expect(n.notify(message, { action: 'hold', until })).toBe('quiet-hours-held');
    expect(create).not.toHaveBeenCalled();
    expect(waiting.map(([at]) => at)).toEqual([until]);
    waiting[0]![1]();
    expect(create).toHaveBeenCalledWith({
      title: 'Disk almost full',
      body: 'Only 2% left on /var',
      urgency: 'normal',
    });
  });

  it('is shown as before without quiet hours', () => {
    const { n, create } = notifier();
    expect(n.notify(message, null)).toBe('shown');
    expect(create).toHaveBeenCalledWith({
      title: 'Disk almost full',
      body: 'Only 2% left on /var',
      urgency: 'normal',
    });
  });
});
