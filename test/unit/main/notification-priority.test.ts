import { describe, expect, it, vi } from 'vitest';

import {
  createNotifier,
  notificationOptions,
  priorityOptions,
  type NotificationLike,
  type NotifierSettings,
} from '../../../main/notifications';

const message = (priority?: number | null) => ({
  id: 7,
  title: 'Database down',
  content: 'primary unreachable',
  format: 'text',
  ...(priority === undefined ? {} : { priority }),
});

function notifierWith(settings: NotifierSettings) {
  const notification = { show: vi.fn(), on: vi.fn() } satisfies NotificationLike;
  const create = vi.fn(() => notification);
  const requests: unknown[] = [];
  const notifier = createNotifier({
    isSupported: () => true,
    create,
    settings: () => settings,
    openMessage: () => undefined,
    onRequest: (r) => requests.push(r),
  });
  return { notifier, create, notification, requests };
}

describe('priorityOptions', () => {
  it('priorityOptions() is critical and never times out at 5, normal at 4, low and silent at 1–2', () => {
    expect(priorityOptions(5)).toEqual({ urgency: 'critical', timeoutType: 'never' });
    expect(priorityOptions(4)).toEqual({ urgency: 'normal' });
    expect(priorityOptions(2)).toEqual({ urgency: 'low', silent: true });
    expect(priorityOptions(1)).toEqual({ urgency: 'low', silent: true });
  });

  it('priorityOptions() adds nothing for 3, none, or a value outside 1–5', () => {
    for (const p of [3, null, undefined, 0, 6, 4.5]) expect(priorityOptions(p)).toEqual({});
  });

  it('notificationOptions() keeps the text as before and adds the priority’s options', () => {
    expect(notificationOptions(message())).toEqual({
      title: 'Database down',
      body: 'primary unreachable',
    });
    expect(notificationOptions(message(5))).toEqual({
      title: 'Database down',
      body: 'primary unreachable',
      urgency: 'critical',
      timeoutType: 'never',
    });
  });
});

describe('createNotifier with priorities', () => {
  it('notify() builds an urgent message’s notification as critical and lasting', () => {
    const { notifier, create, notification } = notifierWith({
      notifications: true,
      doNotDisturb: false,
    });
    expect(notifier.notify(message(5))).toBe('shown');
    expect(create).toHaveBeenCalledWith(
      expect.objectContaining({ urgency: 'critical', timeoutType: 'never' }),
    );
    expect(notification.show).toHaveBeenCalledOnce();
    notifier.notify(message(null));
    expect(create).toHaveBeenLastCalledWith({
      title: 'Database down',
      body: 'primary unreachable',
    });
  });

  it('notify() holds even priority 5 back in do-not-disturb, and with notifications off', () => {
    for (const settings of [
      { notifications: true, doNotDisturb: true },
      { notifications: false, doNotDisturb: false },
    ]) {
      const { notifier, create, requests } = notifierWith(settings);
      expect(notifier.notify(message(5))).toBe(
        settings.doNotDisturb ? 'do-not-disturb' : 'disabled',
      );
      expect(create).not.toHaveBeenCalled();
      expect(requests).toEqual([
        expect.objectContaining({
          messageId: 7,
          text: { title: 'Database down', body: 'primary unreachable' },
        }),
      ]);
    }
  });
});
