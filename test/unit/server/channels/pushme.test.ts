import { describe, expect, it } from 'vitest';

import {
  buildPushMeFields,
  checkPushMeReply,
  pushMeConfigSchema,
  pushMeFormBody,
} from '../../../../server/channels/pushme';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';

describe('PushMe', () => {
  it('the config defaults serverUrl to push.i-i.me and refuses a key list', () => {
    expect(pushMeConfigSchema.parse({ pushKey: 'k1', serverUrl: '' })).toEqual({
      pushKey: 'k1',
      serverUrl: 'https://push.i-i.me',
    });
    expect(
      pushMeConfigSchema.parse({ pushKey: 'k1', serverUrl: 'http://nas:3010/' }).serverUrl,
    ).toBe('http://nas:3010');
    expect(pushMeConfigSchema.safeParse({ pushKey: 'k1,k2' }).success).toBe(false);
  });

  it('buildPushMeFields() maps the content type to PushMe’s type and appends the link', () => {
    const message = { title: ' Disk ', content: 'web-3', url: 'https://x.example/?a=1&b="2"' };
    expect(buildPushMeFields({ pushKey: 'k' }, { ...message, contentType: 'text' })).toEqual({
      push_key: 'k',
      title: 'Disk',
      content: 'web-3\n\nhttps://x.example/?a=1&b="2"',
      type: 'text',
    });
    expect(buildPushMeFields({ pushKey: 'k' }, { ...message, contentType: 'html' }).content).toBe(
      'web-3\n\n<p><a href="https://x.example/?a=1&amp;b=&quot;2&quot;">https://x.example/?a=1&amp;b="2"</a></p>',
    );
    expect(
      buildPushMeFields({ pushKey: 'k' }, { ...message, url: null, contentType: 'markdown' }),
    ).toMatchObject({ content: 'web-3', type: 'markdown' });
  });

  it('pushMeFormBody() form-encodes every field', () => {
    const body = pushMeFormBody({
      push_key: 'k',
      title: 'a&b',
      content: '磁盘 100%',
      type: 'text',
    });
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      push_key: 'k',
      title: 'a&b',
      content: '磁盘 100%',
      type: 'text',
    });
  });

  it('checkPushMeReply() accepts "success" and the robot-style {code:0} only', () => {
    expect(() => checkPushMeReply(httpReply('success'))).not.toThrow();
    expect(() =>
      checkPushMeReply(httpReply({ errcode: 0, errmsg: 'success', code: 0, msg: 'success' })),
    ).not.toThrow();
    const empty = thrownBy(() => checkPushMeReply(httpReply('Push failed, empty push_key!')));
    expect(empty.retryable).toBe(false);
    expect(empty.message).toBe(
      'PushMe refused the message: Push failed, empty push_key! (check pushKey: copy it again from the PushMe app)',
    );
    expect(thrownBy(() => checkPushMeReply(httpReply('', 200))).message).toContain(
      '(empty answer)',
    );
    expect(thrownBy(() => checkPushMeReply(httpReply('oops', 503))).retryable).toBe(true);
  });
});
