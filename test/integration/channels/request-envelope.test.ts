import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AnyChannelAdapter } from '../../../server/channels/channel-adapter';
import { createChannelRegistry } from '../../../server/channels/registry';
import { SLACK_MAX_CHARS, createSlackAdapter } from '../../../server/channels/slack';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

/**
 * What every JSON-posting adapter puts around its body, against one plain loopback peer: the
 * declared JSON UTF-8 content type (a platform that guesses the charset garbles Chinese text),
 * and errors that name the platform that refused the message.
 */
describe('request envelope of the JSON channel kinds', () => {
  const registry = createChannelRegistry() as unknown as Record<string, AnyChannelAdapter>;
  const runtime = adapterRuntime();
  let peer: HttpPeer;

  beforeAll(async () => {
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await peer.close();
  });

  const kinds: Array<{
    kind: string;
    config: () => Record<string, unknown>;
    contentType: string;
    /** A reply the platform answers a refused message with. */
    refusal: { status: number; body: string };
    platform: string;
  }> = [
    {
      kind: 'dingtalk',
      config: () => ({ webhookUrl: `${peer.url}/robot/send?access_token=abc` }),
      contentType: 'application/json;charset=utf-8',
      refusal: { status: 200, body: '{"errcode":300001,"errmsg":"token is not exist"}' },
      platform: 'DingTalk',
    },
    {
      kind: 'wecom',
      config: () => ({ webhookUrl: `${peer.url}/cgi-bin/webhook/send?key=abc` }),
      contentType: 'application/json;charset=utf-8',
      refusal: { status: 200, body: '{"errcode":93000,"errmsg":"invalid webhook url"}' },
      platform: 'WeCom',
    },
    {
      kind: 'feishu',
      config: () => ({ webhookUrl: `${peer.url}/open-apis/bot/v2/hook/abc` }),
      contentType: 'application/json; charset=utf-8',
      refusal: { status: 200, body: '{"code":19001,"msg":"param invalid"}' },
      platform: 'Feishu',
    },
    {
      kind: 'slack',
      config: () => ({ webhookUrl: `${peer.url}/services/T/B/x` }),
      contentType: 'application/json; charset=utf-8',
      refusal: { status: 404, body: 'no_service' },
      platform: 'Slack',
    },
    {
      kind: 'discord',
      config: () => ({ webhookUrl: `${peer.url}/api/webhooks/1/abc` }),
      contentType: 'application/json; charset=utf-8',
      refusal: { status: 404, body: '{"message":"Unknown Webhook","code":10015}' },
      platform: 'Discord',
    },
    {
      kind: 'telegram',
      config: () => ({ serverUrl: peer.url, botToken: '123:abc', chatId: '42' }),
      contentType: 'application/json; charset=utf-8',
      refusal: {
        status: 400,
        body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}',
      },
      platform: 'Telegram',
    },
    {
      kind: 'ntfy',
      config: () => ({ serverUrl: peer.url, topic: 'alerts' }),
      contentType: 'application/json; charset=utf-8',
      refusal: { status: 400, body: '{"code":40001,"http":400,"error":"bad request"}' },
      platform: 'ntfy',
    },
    {
      kind: 'gotify',
      config: () => ({ serverUrl: peer.url, appToken: 'AbCdEf' }),
      contentType: 'application/json; charset=utf-8',
      refusal: {
        status: 400,
        body: '{"error":"Bad Request","errorCode":400,"errorDescription":"bad message"}',
      },
      platform: 'Gotify',
    },
    {
      kind: 'bark',
      config: () => ({ serverUrl: peer.url, deviceKey: 'devkey' }),
      contentType: 'application/json; charset=utf-8',
      refusal: { status: 400, body: '{"code":400,"message":"bad params"}' },
      platform: 'Bark',
    },
  ];

  it.each(kinds)('$kind posts JSON as UTF-8', async ({ kind, config, contentType }) => {
    const adapter = registry[kind];
    const before = peer.received.length;
    // The peer's generic answer may not be what the platform says on success; only the
    // request matters here.
    await adapter
      .send(adapter.configSchema.parse(config()), outboundMessage({ title: '磁盘告警' }), runtime)
      .catch(() => undefined);
    const request = peer.received[before];
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe(contentType);
    expect(JSON.stringify(request.json)).toContain('磁盘告警');
  });

  it.each(kinds)('$kind names the platform when it refuses', async (k) => {
    const adapter = registry[k.kind];
    peer.script.push(k.refusal);
    const error = await rejectionOf(
      adapter.send(adapter.configSchema.parse(k.config()), outboundMessage(), runtime),
    );
    expect(error.message).toContain(k.platform);
  });
});

describe('Slack length limit', () => {
  const adapter = createSlackAdapter();
  let peer: HttpPeer;

  beforeAll(async () => {
    peer = await startHttpPeer({ status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await peer.close();
  });

  it('posts a text of exactly the limit and refuses one character more, before posting', async () => {
    const config = adapter.configSchema.parse({ webhookUrl: `${peer.url}/services/T/B/x` });
    const at = (length: number) =>
      outboundMessage({ title: '', content: 'x'.repeat(length), contentType: 'text' });
    await adapter.send(config, at(SLACK_MAX_CHARS), adapterRuntime());
    expect(peer.received).toHaveLength(1);
    const over = await rejectionOf(adapter.send(config, at(SLACK_MAX_CHARS + 1), adapterRuntime()));
    expect(over.message).toBe(
      `message too long for Slack: ${SLACK_MAX_CHARS + 1} characters, the limit is ${SLACK_MAX_CHARS}; shorten the content`,
    );
    expect(peer.received).toHaveLength(1);
  });
});
