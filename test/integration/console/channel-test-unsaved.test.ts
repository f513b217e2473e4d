import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { rawRequest } from '../../helpers/exact-request';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

const MASK = '******';
const PATH = '/channels/test';

/**
 * POST /api/console/channels/test: "Send test" in the new-channel form, before saving. The
 * kind and config are checked as a create checks them, nothing is stored but what the kind
 * itself delivers (a hosted message), and the answer never holds a secret of the config.
 */
describe('a test send of a channel that is not saved yet', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let sink: SmtpSink;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer({ status: 200, body: '{"received":true}' });
    sink = await startSmtpSink({ mode: 'plain', users: {} });
  });
  afterAll(async () => {
    await herald.close(true);
    await Promise.all([peer.close(), sink.close()]);
  });

  const webhook = (extra: Record<string, unknown> = {}) => ({
    type: 'webhook',
    config: { url: `${peer.url}/hook`, ...extra },
    title: 'Before saving',
    content: 'typed in the form',
  });
  const channelCount = async () => (await herald.console.ok('GET', '/channels')).total as number;

  it('sends through the typed config and answers the reply, storing no channel', async () => {
    const before = await channelCount();
    const received = peer.received.length;
    const answer = await herald.console.ok('POST', PATH, webhook());
    expect(answer).toEqual({ ok: true, reply: expect.stringContaining('received'), error: null });
    const [request] = (await peer.waitForRequests(received + 1)).slice(received);
    expect(request!.url).toBe('/hook');
    expect(request!.json).toMatchObject({ title: 'Before saving', content: 'typed in the form' });
    expect(await channelCount()).toBe(before);
  });

  it('answers a refusal of the platform as ok: false with its reply', async () => {
    peer.script.push({ status: 404, body: 'no such hook' });
    const answer = await herald.console.ok('POST', PATH, webhook());
    expect(answer.ok).toBe(false);
    expect(answer.reply).toContain('no such hook');
    expect(answer.error).toMatch(/404/);
  });

  it('never echoes a secret of the config, even when the receiver does', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const signing = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const echoed = `bad credentials: Bearer ${secret}; ${encodeURIComponent(signing)}`;
    peer.script.push({ status: 401, body: echoed });
    const answer = await herald.console.request('POST', PATH, {
      ...webhook({ secretHeaders: { Authorization: `Bearer ${secret}` }, signingSecret: signing }),
    });
    expect(answer.status).toBe(200);
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(signing);
    expect(text).not.toContain(encodeURIComponent(signing));
    // The header's whole value is the secret, and the signing secret was echoed URL-encoded.
    expect(answer.body.data.reply).toBe(`HTTP 401 bad credentials: ${MASK}; ${MASK}`);
    // The receiver did get the real header: only the answer is masked.
    expect(peer.received.at(-1)!.headers.authorization).toBe(`Bearer ${secret}`);
  });

  it('refuses bad input with 400 in the envelope, naming the field, and sends nothing', async () => {
    const received = peer.received.length;
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'carrier-pigeon', config: {} }, /^type: unknown channel type "carrier-pigeon"/],
      [{ config: {} }, /^type: is required/],
      [{ type: 'webhook', config: {} }, /^config: url/],
      [webhook({ verb: 'POST' }), /^config: Unrecognized key: "verb"/],
      [webhook({ signingSecret: 'not-a-secret' }), /signingSecret must be "whsec_"/],
      [{ ...webhook(), title: 'x'.repeat(1001) }, /^title: /],
      [{ ...webhook(), extra: 1 }, /Unrecognized key: "extra"/],
      [{ type: 'webhook', config: 'url' }, /^config: must be an object/],
    ];
    for (const [body, msg] of cases) {
      const res = await herald.console.request('POST', PATH, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 400, data: null });
      expect(res.body.msg, JSON.stringify(body)).toMatch(msg);
    }
    const notJson = await rawRequest(herald.server.port, {
      method: 'POST',
      path: `/api/console${PATH}`,
      headers: { 'Content-Type': 'application/json', Cookie: herald.console.cookie },
      body: '{"type":',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe(400);
    expect(peer.received.length).toBe(received);
  });

  it('asks for a recipient where the kind needs one, then mails it', async () => {
    const email = {
      type: 'email',
      config: { host: sink.host, port: sink.port, secure: 'none', from: 'herald@example.com' },
      title: 'Mail before saving',
    };
    const missing = await herald.console.request('POST', PATH, email);
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toBe('recipient: a Email (SMTP) test needs a recipient');
    const answer = await herald.console.ok('POST', PATH, {
      ...email,
      recipient: 'ops@example.com',
    });
    expect(answer.ok).toBe(true);
    await herald.waitFor(() => sink.received.length === 1);
    expect(sink.received[0]!.envelopeTo).toEqual(['ops@example.com']);
    expect(sink.received[0]!.parsed.subject).toBe('Mail before saving');
  });

  it('a hosted test stores a message without a channel, and the reader lists it', async () => {
    const answer = await herald.console.ok('POST', PATH, {
      type: 'hosted',
      config: {},
      title: 'Hosted before saving',
    });
    expect(answer).toMatchObject({ ok: true, error: null });
    const { items } = await herald.console.ok('GET', '/messages?q=Hosted%20before%20saving');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ title: 'Hosted before saving', channelId: null });
  });

  it('is an editor’s action: viewers get 403, no session 401, and nothing is sent', async () => {
    const received = peer.received.length;
    const { client: editor } = await herald.signedInAs('editor');
    expect((await editor.ok('POST', PATH, webhook())).ok).toBe(true);
    const { client: viewer } = await herald.signedInAs('viewer');
    const refused = await viewer.request('POST', PATH, webhook());
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, data: null });
    expect(refused.body.msg).toMatch(/needs the editor role/);
    const anonymous = await herald.post(`/api/console${PATH}`, webhook());
    expect(anonymous.status).toBe(401);
    expect(peer.received.length).toBe(received + 1);
  });

  it('refuses a foreign Host (421) and a cross-site page (403) before anything is sent', async () => {
    const received = peer.received.length;
    const body = JSON.stringify(webhook());
    const rebound = await rawRequest(herald.server.port, {
      method: 'POST',
      path: `/api/console${PATH}`,
      headers: {
        Host: 'attacker.example',
        'Content-Type': 'application/json',
        Cookie: herald.console.cookie,
      },
      body,
    });
    expect(rebound.status).toBe(421);
    const crossSite = await rawRequest(herald.server.port, {
      method: 'POST',
      path: `/api/console${PATH}`,
      headers: {
        'Content-Type': 'application/json',
        Cookie: herald.console.cookie,
        Origin: 'https://attacker.example',
        'Sec-Fetch-Site': 'cross-site',
      },
      body,
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.msg).toMatch(/cannot call the console API/);
    expect(peer.received.length).toBe(received);
  });

  it('is not written to the audit log, as a saved channel’s test is not', async () => {
    const before = (await herald.console.ok('GET', '/audit?pageSize=1')).total;
    await herald.console.ok('POST', PATH, webhook());
    expect((await herald.console.ok('GET', '/audit?pageSize=1')).total).toBe(before);
  });
});

describe('a saved channel’s test never echoes its stored secrets either', () => {
  let herald: TestHerald;
  let peer: HttpPeer;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('masks a stored secret header the receiver echoes', async () => {
    const secret = 'stored-api-key-9876543210';
    const channel = await herald.createChannel('webhook', {
      url: `${peer.url}/hook`,
      secretHeaders: { 'X-Api-Key': secret },
    });
    peer.script.push({ status: 403, body: `key ${secret} refused` });
    const answer = await herald.console.ok('POST', `/channels/${channel.id}/test`, {});
    expect(answer.ok).toBe(false);
    expect(answer.reply).toContain(`key ${MASK} refused`);
    expect(JSON.stringify(answer)).not.toContain(secret);
  });
});
