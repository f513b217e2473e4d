import { describe, expect, it } from 'vitest';

import {
  barkConfigSchema,
  buildBarkBody,
  checkBarkReply,
  createBarkAdapter,
} from '../../../../server/channels/bark';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const KEY = 'ynJ5Ft4atkMkWeo2PAvFhF';

describe('barkConfigSchema', () => {
  it('barkConfigSchema defaults to api.day.app and treats empty options as unset', () => {
    expect(
      barkConfigSchema.parse({ deviceKey: KEY, group: '', sound: '', level: '', icon: '' }),
    ).toEqual({
      serverUrl: 'https://api.day.app',
      deviceKey: KEY,
    });
  });

  it('barkConfigSchema refuses a pasted URL as the key and unknown levels', () => {
    const pasted = barkConfigSchema.safeParse({ deviceKey: `https://api.day.app/${KEY}/` });
    expect(pasted.success).toBe(false);
    expect(JSON.stringify(pasted.error?.issues)).toContain('not the whole URL');
    expect(barkConfigSchema.safeParse({ deviceKey: KEY, level: 'loud' }).success).toBe(false);
  });
});

describe('buildBarkBody', () => {
  it('buildBarkBody() sends title, body, options and the tap URL', () => {
    const config = barkConfigSchema.parse({
      deviceKey: KEY,
      group: 'ops',
      sound: 'minuet',
      level: 'timeSensitive',
    });
    expect(buildBarkBody(config, outboundMessage({ url: 'https://example.com/d' }))).toEqual({
      device_key: KEY,
      title: 'Disk alert',
      body: 'web-3 at 98%',
      group: 'ops',
      sound: 'minuet',
      level: 'timeSensitive',
      url: 'https://example.com/d',
    });
  });

  it('buildBarkBody() sends Markdown in `markdown` with a plain-text body for the banner', () => {
    const body = buildBarkBody(
      { deviceKey: KEY },
      outboundMessage({ contentType: 'markdown', content: '**web-3** at [98%](https://x)' }),
    );
    expect(body.markdown).toBe('**web-3** at [98%](https://x)');
    expect(body.body).toBe('web-3 at 98% [https://x]');
  });
});

describe('checkBarkReply', () => {
  it('checkBarkReply() accepts code 200', () => {
    expect(() =>
      checkBarkReply(httpReply({ code: 200, message: 'success', timestamp: 1 })),
    ).not.toThrow();
  });

  it('checkBarkReply() is permanent for an unknown device key and says to check it', () => {
    const err = thrownBy(() =>
      checkBarkReply(
        httpReply(
          {
            code: 400,
            message: 'failed to get device token: failed to get [x] device token from database',
          },
          400,
        ),
      ),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('check deviceKey');
  });

  it('checkBarkReply() treats APNs refusals as permanent but other push failures as transient', () => {
    expect(
      thrownBy(() =>
        checkBarkReply(httpReply({ code: 500, message: 'push failed: BadDeviceToken' }, 500)),
      ).retryable,
    ).toBe(false);
    expect(
      thrownBy(() =>
        checkBarkReply(httpReply({ code: 500, message: 'push failed: connection reset' }, 500)),
      ).retryable,
    ).toBe(true);
  });

  it('checkBarkReply() fails a 200 whose body code is not 200', () => {
    expect(
      thrownBy(() => checkBarkReply(httpReply({ code: 400, message: 'nope' }))).retryable,
    ).toBe(false);
  });
});

describe('createBarkAdapter', () => {
  it('createBarkAdapter() keeps the device key secret', () => {
    expect(createBarkAdapter().secretFields).toEqual(['deviceKey']);
  });
});
