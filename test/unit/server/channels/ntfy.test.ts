import { describe, expect, it } from 'vitest';

import {
  NTFY_SH_RATE,
  buildNtfyBody,
  checkNtfyReply,
  createNtfyAdapter,
  ntfyAuthorization,
  ntfyConfigSchema,
} from '../../../../server/channels/ntfy';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

describe('ntfyConfigSchema', () => {
  it('ntfyConfigSchema defaults to ntfy.sh and normalises priority names and tag lists', () => {
    expect(
      ntfyConfigSchema.parse({ topic: 'alerts', priority: 'high', tags: 'warning, skull ,' }),
    ).toEqual({
      serverUrl: 'https://ntfy.sh',
      topic: 'alerts',
      priority: 4,
      tags: ['warning', 'skull'],
    });
    expect(
      ntfyConfigSchema.parse({
        topic: 'a',
        priority: 'urgent',
        serverUrl: 'https://n.example/ntfy/',
      }),
    ).toMatchObject({
      priority: 5,
      serverUrl: 'https://n.example/ntfy',
    });
  });

  it('ntfyConfigSchema refuses bad topics, priorities and mixed credentials', () => {
    expect(ntfyConfigSchema.safeParse({ topic: 'has space' }).success).toBe(false);
    expect(ntfyConfigSchema.safeParse({ topic: 'a', priority: 9 }).success).toBe(false);
    expect(
      ntfyConfigSchema.safeParse({ topic: 'a', token: 'tk_x', username: 'u', password: 'p' })
        .success,
    ).toBe(false);
    expect(ntfyConfigSchema.safeParse({ topic: 'a', username: 'u' }).success).toBe(false);
  });
});

describe('buildNtfyBody', () => {
  it('buildNtfyBody() builds a JSON publish with title, priority, tags and click', () => {
    const config = ntfyConfigSchema.parse({ topic: 'alerts', priority: 4, tags: ['warning'] });
    expect(buildNtfyBody(config, outboundMessage({ url: 'https://example.com/d' }))).toEqual({
      topic: 'alerts',
      message: 'web-3 at 98%',
      title: 'Disk alert',
      priority: 4,
      tags: ['warning'],
      click: 'https://example.com/d',
    });
  });

  it('buildNtfyBody() marks Markdown and leaves out what is not set', () => {
    const config = ntfyConfigSchema.parse({ topic: 'alerts' });
    expect(
      buildNtfyBody(
        config,
        outboundMessage({ title: '', contentType: 'markdown', content: '**x**' }),
      ),
    ).toEqual({
      topic: 'alerts',
      message: '**x**',
      markdown: true,
    });
  });
});

describe('ntfyAuthorization', () => {
  it('ntfyAuthorization() sends a token as Bearer and a user as Basic', () => {
    expect(ntfyAuthorization({ token: 'tk_abc' })).toBe('Bearer tk_abc');
    expect(ntfyAuthorization({ username: 'phil', password: 'pä:ss' })).toBe(
      `Basic ${Buffer.from('phil:pä:ss').toString('base64')}`,
    );
    expect(ntfyAuthorization({})).toBeUndefined();
  });
});

describe('checkNtfyReply', () => {
  it('checkNtfyReply() is transient on 429 and permanent on auth errors, with ntfy’s words', () => {
    const limited = thrownBy(() =>
      checkNtfyReply(
        httpReply({ code: 42901, http: 429, error: 'limit reached: too many requests' }, 429),
      ),
    );
    expect(limited.retryable).toBe(true);
    expect(limited.message).toContain('too many requests');
    const denied = thrownBy(() =>
      checkNtfyReply(httpReply({ code: 40101, http: 401, error: 'unauthorized' }, 401)),
    );
    expect(denied.retryable).toBe(false);
    expect(denied.message).toContain('set token or username/password');
  });

  it('checkNtfyReply() accepts a published message', () => {
    expect(() => checkNtfyReply(httpReply({ id: 'x', event: 'message' }))).not.toThrow();
  });
});

describe('createNtfyAdapter', () => {
  it('createNtfyAdapter() paces only the public server and keeps topic and credentials secret', () => {
    const adapter = createNtfyAdapter();
    expect(adapter.rateLimit?.(ntfyConfigSchema.parse({ topic: 'a' }))).toMatchObject(NTFY_SH_RATE);
    expect(
      adapter.rateLimit?.(ntfyConfigSchema.parse({ topic: 'a', serverUrl: 'http://10.0.0.2' })),
    ).toBeNull();
    expect(adapter.secretFields).toEqual(['topic', 'token', 'password']);
  });
});
