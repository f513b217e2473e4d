// @vitest-environment node
// Pure functions the service worker and the page share; no DOM needed.
import { describe, expect, it } from 'vitest';

import {
  isOpenMessageRequest,
  messagePath,
  notificationOfPush,
  openMessageRequest,
} from '../../renderer/src/lib/push-notification';

describe('notificationOfPush()', () => {
  it('shows Herald’s payload: title, body, one tag per message, the message to open', () => {
    const text = JSON.stringify({
      title: 'Disk full on db-1',
      body: 'disk /var is 97% full…',
      messageId: 42,
      priority: 4,
      url: 'https://grafana.example/d/disk',
    });
    expect(notificationOfPush(text)).toEqual({
      title: 'Disk full on db-1',
      body: 'disk /var is 97% full…',
      tag: 'herald-message-42',
      data: { messageId: 42, priority: 4, url: '/messages/42' },
      urgent: false,
      silent: false,
    });
  });

  it('shows a push the person’s quiet hours softened without sound', () => {
    const text = JSON.stringify({ title: 'Backup done', messageId: 8, priority: 3, silent: true });
    expect(notificationOfPush(text).silent).toBe(true);
    expect(notificationOfPush(JSON.stringify({ title: 'x', silent: 'yes' })).silent).toBe(false);
  });

  it('keeps priority 5 on screen, and reads `summary` where `body` is missing', () => {
    const shown = notificationOfPush(
      JSON.stringify({ title: 'Down', summary: 'api-1 is down', messageId: 7, priority: 5 }),
    );
    expect(shown.urgent).toBe(true);
    expect(shown.body).toBe('api-1 is down');
  });

  it('still shows something for an empty push, plain text or JSON of the wrong shape', () => {
    const reader = { messageId: null, priority: null, url: '/messages' };
    expect(notificationOfPush(null)).toEqual({
      title: 'Herald',
      body: '',
      tag: 'herald',
      data: reader,
      urgent: false,
      silent: false,
    });
    expect(notificationOfPush('the build is green')).toMatchObject({
      title: 'Herald',
      body: 'the build is green',
      data: reader,
    });
    expect(
      notificationOfPush(JSON.stringify({ title: '  ', messageId: -3, priority: '5' })),
    ).toMatchObject({ title: 'Herald', tag: 'herald', data: reader, urgent: false });
    expect(notificationOfPush('[1,2]').data).toEqual(reader);
  });
});

describe('the click’s request to an open console window', () => {
  it('openMessageRequest() is what isOpenMessageRequest() accepts, and nothing else is', () => {
    expect(isOpenMessageRequest(openMessageRequest(3))).toBe(true);
    expect(isOpenMessageRequest(openMessageRequest(null))).toBe(true);
    expect(isOpenMessageRequest({ type: 'something-else', messageId: 3 })).toBe(false);
    expect(isOpenMessageRequest('herald:open-message')).toBe(false);
    expect(isOpenMessageRequest(null)).toBe(false);
    expect(messagePath(3)).toBe('/messages/3');
    expect(messagePath(null)).toBe('/messages');
  });
});
