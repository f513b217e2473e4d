import { describe, expect, it } from 'vitest';

import {
  MAX_PAYLOAD_BYTES,
  pushPayloadOf,
  topicOf,
  ttlOf,
  urgencyOf,
} from '../../../../../server/features/web-push/push-payload';

const message = (content: string, extra: Partial<Parameters<typeof pushPayloadOf>[0]> = {}) => ({
  id: 7,
  title: 'Disk full',
  content,
  format: 'text',
  url: null,
  priority: null,
  ...extra,
});

describe('pushPayloadOf()', () => {
  it('carries the title, the text, the message id and the priority (3 when none)', () => {
    expect(pushPayloadOf(message('disk /var is full'))).toEqual({
      title: 'Disk full',
      body: 'disk /var is full',
      messageId: 7,
      priority: 3,
      url: null,
    });
  });

  it('reads Markdown and HTML as the plain text a notification shows', () => {
    expect(pushPayloadOf(message('**bold** text', { format: 'markdown' })).body).toBe('bold text');
    expect(pushPayloadOf(message('<p>a <b>b</b></p>', { format: 'html' })).body).toBe('a b');
  });

  it('cuts a long body on a character, with an ellipsis, so the JSON fits the limit', () => {
    for (const unit of ['a', '数', '😀', '"\\']) {
      const payload = pushPayloadOf(message(unit.repeat(5000)));
      const bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
      expect(bytes, unit).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      expect(bytes, unit).toBeGreaterThan(MAX_PAYLOAD_BYTES - 16);
      expect(payload.body.endsWith('…'), unit).toBe(true);
      expect(payload.body.slice(0, -1), unit).toBe(
        unit.repeat(5000).slice(0, payload.body.length - 1),
      );
    }
  });
});

describe('urgencyOf() and ttlOf()', () => {
  it('gives 5 high, 3–4 normal and 1–2 low, with a shorter life below 3', () => {
    expect([1, 2, 3, 4, 5].map((p) => urgencyOf(p as 1 | 2 | 3 | 4 | 5))).toEqual([
      'low',
      'low',
      'normal',
      'normal',
      'high',
    ]);
    expect(ttlOf(2)).toBeLessThan(ttlOf(3));
    expect(ttlOf(3)).toBe(ttlOf(5));
  });
});

describe('topicOf()', () => {
  it('is at most 32 characters of the URL-safe base64 alphabet, one per thread', () => {
    const a = topicOf('template:1', 'disk-var');
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(topicOf('template:1', 'disk-var')).toBe(a);
    expect(topicOf('template:1', 'disk-home')).not.toBe(a);
    expect(topicOf('template:2', 'disk-var')).not.toBe(a);
    expect(topicOf('template:1', null)).not.toBe(topicOf('task:1', null));
  });
});
