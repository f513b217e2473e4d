import { describe, expect, it } from 'vitest';

import {
  buildGotifyBody,
  checkGotifyReply,
  createGotifyAdapter,
  gotifyConfigSchema,
} from '../../../../server/channels/gotify';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

describe('gotifyConfigSchema', () => {
  it('gotifyConfigSchema needs a server and an app token, and bounds priority to 0–10', () => {
    expect(gotifyConfigSchema.safeParse({ appToken: 'A1' }).success).toBe(false);
    expect(
      gotifyConfigSchema.safeParse({ serverUrl: 'https://push.example.com', appToken: '' }).success,
    ).toBe(false);
    expect(
      gotifyConfigSchema.safeParse({
        serverUrl: 'https://push.example.com',
        appToken: 'A1',
        priority: 11,
      }).success,
    ).toBe(false);
    expect(
      gotifyConfigSchema.parse({ serverUrl: 'https://push.example.com/gotify/', appToken: 'A1' })
        .serverUrl,
    ).toBe('https://push.example.com/gotify');
  });
});

describe('buildGotifyBody', () => {
  it('buildGotifyBody() sends plain text with title, priority and a click URL', () => {
    expect(
      buildGotifyBody({ priority: 8 }, outboundMessage({ url: 'https://example.com/d' })),
    ).toEqual({
      title: 'Disk alert',
      message: 'web-3 at 98%',
      priority: 8,
      extras: {
        'client::display': { contentType: 'text/plain' },
        'client::notification': { click: { url: 'https://example.com/d' } },
      },
    });
  });

  it('buildGotifyBody() opts into Markdown and lets Gotify name an untitled message', () => {
    expect(
      buildGotifyBody(
        {},
        outboundMessage({ title: ' ', contentType: 'markdown', content: '**x**' }),
      ),
    ).toEqual({
      message: '**x**',
      extras: { 'client::display': { contentType: 'text/markdown' } },
    });
  });
});

describe('checkGotifyReply', () => {
  it('checkGotifyReply() is permanent on 401/400 and quotes errorDescription', () => {
    const denied = thrownBy(() =>
      checkGotifyReply(
        httpReply(
          {
            error: 'Unauthorized',
            errorCode: 401,
            errorDescription: 'you need to provide a valid access token',
          },
          401,
        ),
      ),
    );
    expect(denied.retryable).toBe(false);
    expect(denied.message).toContain('valid access token');
    expect(denied.message).toContain('application token');
    const bad = thrownBy(() =>
      checkGotifyReply(
        httpReply(
          { error: 'Bad Request', errorCode: 400, errorDescription: "Field 'message' is required" },
          400,
        ),
      ),
    );
    expect(bad.message).toContain("Field 'message' is required");
  });

  it('checkGotifyReply() retries a server error', () => {
    expect(thrownBy(() => checkGotifyReply(httpReply('oops', 503))).retryable).toBe(true);
  });
});

describe('createGotifyAdapter', () => {
  it('createGotifyAdapter() keeps the app token secret and allows text and Markdown', () => {
    const adapter = createGotifyAdapter();
    expect(adapter.secretFields).toEqual(['appToken']);
    expect(adapter.contentTypes).toEqual(['text', 'markdown']);
  });
});
