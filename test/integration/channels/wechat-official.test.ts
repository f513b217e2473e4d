import { afterEach, describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../server/channels/delivery-error';
import {
  createWeChatOfficialAdapter,
  type WeChatOfficialConfig,
} from '../../../server/channels/wechat-official';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import {
  startWeChatPeer,
  type WeChatPeer,
  type WeChatPeerOptions,
} from '../../fixtures/peers/wechat-peer';

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
  throw new Error('expected the send to fail');
}

describe('WeChat official-account adapter against a local API', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: WeChatPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(options: WeChatPeerOptions = {}) {
    peer = await startWeChatPeer({ now: clock.now, ...options });
    const config: WeChatOfficialConfig = {
      appId: peer.appId,
      appSecret: peer.appSecret,
      templateId: peer.templateId,
      apiBaseUrl: peer.apiBaseUrl,
    };
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage({ recipient: peer.openId, ...overrides }), services);
    // A fresh adapter per test: its token cache is per server, like Herald's registry.
    const adapter = createWeChatOfficialAdapter();
    return { adapter, config, send };
  }

  it('send() delivers a template message with title, content, url and client_msg_id', async () => {
    const { send } = await setUp();
    const receipt = await send({ url: 'https://example.com/d/1', content: '磁盘 98%' });
    expect(receipt.reply).toContain('"msgid"');
    expect(peer.received).toEqual([
      {
        touser: peer.openId,
        template_id: peer.templateId,
        url: 'https://example.com/d/1',
        client_msg_id: expect.stringMatching(/^herald-\d+-[0-9a-f]{12}$/),
        data: { title: { value: 'Disk alert' }, content: { value: '磁盘 98%' } },
      },
    ]);
  });

  it('send() fetches one token for many deliveries, sequential or concurrent', async () => {
    const { send } = await setUp();
    await Promise.all(Array.from({ length: 5 }, () => send()));
    for (let i = 0; i < 5; i++) await send();
    expect(peer.received).toHaveLength(10);
    expect(peer.tokenCalls).toBe(1);
  });

  it('send() shares the token between channels of the same account', async () => {
    const { send } = await setUp();
    await send({ channelId: 1 });
    await send({ channelId: 2 });
    expect(peer.tokenCalls).toBe(1);
  });

  it('send() refreshes the token five minutes before it expires', async () => {
    const { send } = await setUp();
    await send();
    clock.advance((7200 - 301) * 1000);
    await send();
    expect(peer.tokenCalls).toBe(1);
    clock.advance(2000);
    await send();
    expect(peer.tokenCalls).toBe(2);
    expect(peer.received).toHaveLength(3);
  });

  it('send() refreshes once and retries once when the token is reported expired (42001)', async () => {
    const { send } = await setUp();
    await send();
    peer.expireTokens();
    await send();
    expect(peer.tokenCalls).toBe(2);
    expect(peer.received).toHaveLength(2);
  });

  it('send() shares one refresh among concurrent deliveries whose token was revoked (40001)', async () => {
    const { send } = await setUp();
    await send();
    peer.revokeTokens();
    await Promise.all([send(), send(), send()]);
    expect(peer.tokenCalls).toBe(2);
    expect(peer.received).toHaveLength(4);
  });

  it('send() recovers when another program refreshed the token, once its 5-minute grace ends', async () => {
    const { config, send } = await setUp();
    await send();
    // Another process with the same appId fetches its own token: ours is now the older one.
    const other = createWeChatOfficialAdapter();
    await other.send(config, outboundMessage({ recipient: peer.openId }), services);
    expect(peer.tokenCalls).toBe(2);

    clock.advance(4 * 60_000);
    await send();
    expect(peer.tokenCalls).toBe(2);
    clock.advance(2 * 60_000);
    await send();
    expect(peer.tokenCalls).toBe(3);
    expect(peer.received).toHaveLength(4);
  });

  it('send() fails permanently on a wrong appSecret and does not ask again for a minute', async () => {
    const { send, config } = await setUp();
    const wrong = { ...config, appSecret: 'wrong' };
    const err = await failure(send({}, wrong));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 40125');
    expect((await failure(send({}, wrong))).message).toContain('errcode 40125');
    expect(peer.tokenCalls).toBe(1);

    // The corrected config is another account entry: it is tried at once.
    await send({}, config);
    expect(peer.tokenCalls).toBe(2);
    clock.advance(61_000);
    await failure(send({}, wrong));
    expect(peer.tokenCalls).toBe(3);
  });

  it('send() fails permanently on a wrong appId', async () => {
    const { send, config } = await setUp();
    const err = await failure(send({}, { ...config, appId: 'wxnope' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 40013');
  });

  it('send() fails transiently when the token quota is used up', async () => {
    const { send } = await setUp({ tokenQuota: 0 });
    const err = await failure(send());
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('errcode 45009');
  });

  it('send() fails permanently for an unknown OpenID, a non-follower and a wrong template', async () => {
    const { send, config } = await setUp({ unfollowed: ['oGONE'] });
    const unknown = await failure(send({ recipient: 'oSTRANGER' }));
    expect(unknown).toMatchObject({ retryable: false });
    expect(unknown.message).toContain('errcode 40003');
    const gone = await failure(send({ recipient: 'oGONE' }));
    expect(gone.retryable).toBe(false);
    expect(gone.message).toContain('errcode 43004');
    const tpl = await failure(send({}, { ...config, templateId: 'tpl-nope' }));
    expect(tpl.retryable).toBe(false);
    expect(tpl.message).toContain('errcode 40037');
  });

  it('send() fails permanently when the template uses other keys than title and content', async () => {
    const { send, config } = await setUp({ templates: { 'tpl-old': ['first', 'keyword1'] } });
    const err = await failure(send({}, { ...config, templateId: 'tpl-old' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('{{title.DATA}}');
  });

  it('send() fails transiently on HTTP 500 and errcode -1 and keeps its token', async () => {
    const { send } = await setUp();
    peer.failNext(1, 'http500');
    peer.failNext(1, 'busy');
    expect((await failure(send())).retryable).toBe(true);
    expect((await failure(send())).message).toContain('errcode -1');
    await send();
    expect(peer.tokenCalls).toBe(1);
    expect(peer.received).toHaveLength(1);
  });

  it('send() is not duplicated when retried after a timeout, thanks to client_msg_id', async () => {
    const { adapter, config } = await setUp();
    peer.failNext(1, 'hang');
    // The queue retries the same delivery: same id, same content.
    const message = outboundMessage({ recipient: peer.openId, content: 'once only' });
    const err = await failure(adapter.send({ ...config, timeoutMs: 300 }, message, services));
    expect(err).toMatchObject({ retryable: true });
    expect(err.message).toContain('timed out');
    await adapter.send(config, message, services);
    expect(peer.received).toHaveLength(1);
  });
});
