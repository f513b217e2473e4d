import { afterEach, describe, expect, it } from 'vitest';

import {
  createServerChanAdapter,
  serverChanConfigSchema,
  serverChanUrl,
} from '../../../server/channels/serverchan';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';
import { startServerChanPeer, type ServerChanPeer } from '../../fixtures/peers/serverchan-peer';

describe('ServerChan URLs, as the official SDK builds them', () => {
  it('a Turbo key goes to sctapi.ftqq.com, a Server酱³ key to its uid’s own host', () => {
    expect(serverChanUrl('SCT123456TAbC')).toBe('https://sctapi.ftqq.com/SCT123456TAbC.send');
    expect(serverChanUrl('sctp4242tXyZ')).toBe('https://4242.push.ft07.com/send/sctp4242tXyZ.send');
    // Only sctp, digits, t is Server酱³: anything else is a Turbo key.
    expect(serverChanUrl('sctpXtabc')).toBe('https://sctapi.ftqq.com/sctpXtabc.send');
  });

  it('a relay is sent the same paths, so it can tell the editions apart', () => {
    const relay = 'https://relay.example/sc';
    expect(serverChanUrl('SCT1', relay)).toBe('https://relay.example/sc/SCT1.send');
    expect(serverChanUrl('sctp7t1', relay)).toBe('https://relay.example/sc/send/sctp7t1.send');
  });
});

describe('ServerChan adapter against a local Server酱', () => {
  const adapter = createServerChanAdapter();
  const services = adapterRuntime();
  let peer: ServerChanPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp() {
    peer = await startServerChanPeer();
    const configOf = (sendKey: string, extra: Record<string, unknown> = {}) =>
      serverChanConfigSchema.parse({ sendKey, baseUrl: peer.baseUrl, ...extra });
    const send = (
      config: ReturnType<typeof configOf>,
      overrides: Parameters<typeof outboundMessage>[0] = {},
    ) =>
      adapter.send(
        config,
        outboundMessage({ contentType: 'markdown', content: '**web-3** at 98%', ...overrides }),
        services,
      );
    return { configOf, send };
  }

  it('Turbo: title, Markdown desp, short and noip, no tags', async () => {
    const { configOf, send } = await setUp();
    const receipt = await send(configOf(peer.turboKey, { noip: true, tags: 'ops' }), {
      url: 'https://x.example/1',
    });
    expect(peer.received).toEqual([
      {
        edition: 'turbo',
        sendKey: peer.turboKey,
        fields: {
          title: 'Disk alert',
          desp: '**web-3** at 98%\n\n[https://x.example/1](https://x.example/1)',
          short: 'web-3 at 98%',
          noip: 1,
        },
      },
    ]);
    expect(receipt.reply).toContain('"pushid"');
  });

  it('Server酱³: to /send/{key}.send with tags, no noip', async () => {
    const { configOf, send } = await setUp();
    await send(configOf(peer.sc3Key, { noip: true, tags: 'server|alert' }));
    expect(peer.received).toEqual([
      {
        edition: 'sc3',
        sendKey: peer.sc3Key,
        fields: {
          title: 'Disk alert',
          desp: '**web-3** at 98%',
          short: 'web-3 at 98%',
          tags: 'server|alert',
        },
      },
    ]);
  });

  it('takes Markdown only; short is the text of the first 64 characters', async () => {
    const { configOf, send } = await setUp();
    expect(adapter.contentTypes).toEqual(['markdown']);
    await send(configOf(peer.turboKey), { content: `# Head\n\n${'x'.repeat(100)}` });
    expect(peer.received[0].fields.short).toBe(`HEAD ${'x'.repeat(59)}`);
  });

  it('a priority changes nothing: ServerChan has none', async () => {
    const { configOf, send } = await setUp();
    await send(configOf(peer.turboKey), { priority: 1 });
    await send(configOf(peer.turboKey), { priority: 5 });
    expect(peer.received[0].fields).toEqual(peer.received[1].fields);
  });

  it('code 0 is success; any other code fails with its message, without retry', async () => {
    const { configOf, send } = await setUp();
    const wrong = await rejectionOf(send(configOf('SCT999999TNotKnown')));
    expect(wrong.retryable).toBe(false);
    expect(wrong.message).toBe('ServerChan refused the message: code 40001: bad pushtoken');
    // A Turbo key on a Server酱³ path is a wrong key there (the peer checks the URL form).
    const crossed = await rejectionOf(
      send(configOf(peer.turboKey, { baseUrl: `${peer.baseUrl}/send` })),
    );
    expect(crossed.message).toContain('code 40001');
    expect(peer.received).toHaveLength(0);
    peer.script({ status: 200, body: { code: 20001, message: '超过当天的发送次数限制[5]' } });
    const quota = await rejectionOf(send(configOf(peer.turboKey)));
    expect(quota).toMatchObject({
      retryable: false,
      message: 'ServerChan refused the message: code 20001: 超过当天的发送次数限制[5]',
    });
    peer.script({ status: 503, body: 'busy' });
    expect((await rejectionOf(send(configOf(peer.turboKey)))).retryable).toBe(true);
  });
});
