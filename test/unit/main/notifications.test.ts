import { describe, expect, it, vi } from 'vitest';

import {
  NOTIFICATION_LIMITS,
  createNotifier,
  LIVE_NOTIFICATIONS,
  messageReaderPath,
  notificationFromMessage,
  notifyDecision,
  plainExcerpt,
  truncate,
  type NotificationLike,
} from '../../../main/notifications';

const message = {
  id: 12,
  title: 'Disk almost full',
  content: 'Only 2% left on /var',
  format: 'text',
};

describe('notificationFromMessage', () => {
  it('notificationFromMessage() uses the title and the text content as they are', () => {
    expect(notificationFromMessage(message)).toEqual({
      title: 'Disk almost full',
      body: 'Only 2% left on /var',
    });
  });

  it('notificationFromMessage() strips HTML tags, scripts and images, keeping link text', () => {
    const text = notificationFromMessage({
      ...message,
      format: 'html',
      content:
        '<h1>Build failed</h1><p>See <a href="https://ci.example/1">the log</a>.</p>' +
        '<script>alert(1)</script><img src="x.png" alt="chart"><p>Tom &amp; Jerry</p>',
    });

    expect(text.body).toBe('Build failed See the log. Tom & Jerry');
  });

  it('notificationFromMessage() renders Markdown to plain text', () => {
    const text = notificationFromMessage({
      ...message,
      format: 'markdown',
      content: '# Deploy done\n\n**web-1** is up, see [dashboard](https://x.example).\n\n- a\n- b',
    });

    expect(text.body).toBe('Deploy done web-1 is up, see dashboard. a b');
  });

  it('notificationFromMessage() collapses whitespace in text content', () => {
    expect(
      notificationFromMessage({ ...message, content: '  line one\n\n\tline   two ' }).body,
    ).toBe('line one line two');
  });

  it('notificationFromMessage() falls back to a generic title when the title is blank', () => {
    expect(notificationFromMessage({ ...message, title: '   ' }).title).toBe('New message');
  });

  it('notificationFromMessage() cuts a long body at a word with an ellipsis', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');

    const { body } = notificationFromMessage({ ...message, content: words });

    expect(Array.from(body).length).toBeLessThanOrEqual(NOTIFICATION_LIMITS.body);
    expect(body.endsWith('…')).toBe(true);
    expect(body.slice(0, -1)).toMatch(/word\d+$/);
  });

  it('notificationFromMessage() gives an empty body for empty content', () => {
    expect(notificationFromMessage({ ...message, content: '' }).body).toBe('');
  });
});

describe('truncate', () => {
  it('truncate() never splits an emoji and leaves short text alone', () => {
    expect(truncate('short', 10)).toBe('short');
    const cut = truncate('🎉'.repeat(20), 5);
    expect(cut).toBe('🎉🎉🎉🎉…');
  });
});

describe('plainExcerpt', () => {
  it('plainExcerpt() treats an unknown format as plain text', () => {
    expect(plainExcerpt('<b>kept</b>', 'text')).toBe('<b>kept</b>');
  });
});

describe('notifyDecision', () => {
  it('notifyDecision() shows only with notifications on, do-not-disturb off and OS support', () => {
    expect(notifyDecision({ notifications: true, doNotDisturb: false }, true)).toBe('shown');
    expect(notifyDecision({ notifications: false, doNotDisturb: false }, true)).toBe('disabled');
    expect(notifyDecision({ notifications: true, doNotDisturb: true }, true)).toBe(
      'do-not-disturb',
    );
    expect(notifyDecision({ notifications: true, doNotDisturb: false }, false)).toBe('unsupported');
  });
});

describe('createNotifier', () => {
  function fakeNotification() {
    const handlers = new Map<string, () => void>();
    const notification = {
      show: vi.fn(),
      on: (event: 'click' | 'close', listener: () => void) => handlers.set(event, listener),
    } satisfies NotificationLike;
    return { notification, fire: (event: string) => handlers.get(event)!() };
  }

  it('notify() shows a notification whose click opens the message in the reader', () => {
    const fake = fakeNotification();
    const openMessage = vi.fn();
    const create = vi.fn(() => fake.notification);
    const notifier = createNotifier({
      isSupported: () => true,
      create,
      settings: () => ({ notifications: true, doNotDisturb: false }),
      openMessage,
    });

    expect(notifier.notify(message)).toBe('shown');
    expect(create).toHaveBeenCalledWith({
      title: 'Disk almost full',
      body: 'Only 2% left on /var',
    });
    expect(fake.notification.show).toHaveBeenCalledOnce();
    expect(notifier.pending).toBe(1);

    fake.fire('click');

    expect(openMessage).toHaveBeenCalledWith(12);
    expect(notifier.pending).toBe(0);
  });

  it('notify() stays silent in do-not-disturb but still reports the request', () => {
    const create = vi.fn();
    const onRequest = vi.fn();
    const notifier = createNotifier({
      isSupported: () => true,
      create,
      settings: () => ({ notifications: true, doNotDisturb: true }),
      openMessage: vi.fn(),
      onRequest,
    });

    expect(notifier.notify(message)).toBe('do-not-disturb');
    expect(create).not.toHaveBeenCalled();
    expect(onRequest).toHaveBeenCalledWith({
      messageId: 12,
      text: { title: 'Disk almost full', body: 'Only 2% left on /var' },
      outcome: 'do-not-disturb',
    });
  });

  it('notify() reads the settings on every message, so toggling applies at once', () => {
    const settings = { notifications: true, doNotDisturb: false };
    const notifier = createNotifier({
      isSupported: () => true,
      create: () => fakeNotification().notification,
      settings: () => settings,
      openMessage: vi.fn(),
    });

    settings.notifications = false;

    expect(notifier.notify(message)).toBe('disabled');
  });

  it('notify() forgets a notification once the user closes it', () => {
    const fake = fakeNotification();
    const notifier = createNotifier({
      isSupported: () => true,
      create: () => fake.notification,
      settings: () => ({ notifications: true, doNotDisturb: false }),
      openMessage: vi.fn(),
    });

    notifier.notify(message);
    fake.fire('close');

    expect(notifier.pending).toBe(0);
  });

  it('notify() keeps at most the newest 50 where the daemon never says a notification closed', () => {
    // Some Linux notification daemons never emit `close`, and nobody clicks most notifications.
    const shown: Array<ReturnType<typeof fakeNotification>> = [];
    const openMessage = vi.fn();
    let clock = 1_000_000;
    const notifier = createNotifier({
      isSupported: () => true,
      create: () => {
        const fake = fakeNotification();
        shown.push(fake);
        return fake.notification;
      },
      settings: () => ({ notifications: true, doNotDisturb: false }),
      openMessage,
      now: () => clock++,
    });

    for (let id = 1; id <= 200; id++) notifier.notify({ ...message, id });

    expect(notifier.pending).toBe(LIVE_NOTIFICATIONS.max);
    // The newest still open their message.
    shown.at(-1)!.fire('click');
    expect(openMessage).toHaveBeenCalledWith(200);
    expect(notifier.pending).toBe(LIVE_NOTIFICATIONS.max - 1);
  });

  it('prune() drops notifications a day old, and notify() does too', () => {
    let clock = 0;
    const notifier = createNotifier({
      isSupported: () => true,
      create: () => fakeNotification().notification,
      settings: () => ({ notifications: true, doNotDisturb: false }),
      openMessage: vi.fn(),
      now: () => clock,
    });
    notifier.notify({ ...message, id: 1 });
    clock = 60_000;
    notifier.notify({ ...message, id: 2 });

    clock = LIVE_NOTIFICATIONS.lifetimeMs;
    notifier.prune();
    expect(notifier.pending).toBe(2);
    clock = LIVE_NOTIFICATIONS.lifetimeMs + 1;
    notifier.prune();
    expect(notifier.pending).toBe(1);
    clock += 60_000;
    notifier.notify({ ...message, id: 3 });
    expect(notifier.pending).toBe(1);
  });
});

describe('messageReaderPath', () => {
  it('messageReaderPath() is the console route of one hosted message', () => {
    expect(messageReaderPath(42)).toBe('/messages/42');
  });
});
