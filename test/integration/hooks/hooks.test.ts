import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage, Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

const FIXTURES = join(__dirname, '../../fixtures/hooks');
/** A fixture's bytes as the sender posts them: signatures are computed over exactly these. */
const raw = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const hubSignature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Standard Webhooks headers for a body, signed with a `whsec_` secret. */
function standardHeaders(secret: string, body: string, id: string, timestamp: number) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${mac}`,
  };
}

/**
 * POST /api/hooks/{preset}/{token} over real HTTP: each preset's documented payload becomes a
 * V2 send, read back from a hosted instance (docs/hooks.md). Runs on PostgreSQL too with
 * HERALD_TEST_DATABASE=postgres.
 */
describe('POST /api/hooks/{preset}/{token}', () => {
  let herald: TestHerald;
  let hostedId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    hostedId = (await herald.createChannel('hosted')).id;
  });
  afterAll(() => herald.close(true));

  /** A template whose text lists each key's value on its own line, `key=value`. */
  const hookTemplate = async (keys: string[], fields: Record<string, unknown> = {}) =>
    herald.createTemplate(
      {
        text: keys.map((k) => `${k}={{${k}}}`).join('\n'),
        placeholders: keys.map((key) => ({ key, label: key })),
        ...fields,
      },
      [{ channelId: hostedId, contentType: 'text' }],
    );

  const hook = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    herald.post(`/api/hooks/${path}`, body, headers);

  /** The hosted message titled `title` of `templateId`'s send: tests post the same payloads,
   * in a shuffled order. */
  const delivered = async (title: string, templateId?: number) => {
    const m = await herald.waitFor(async () => {
      if (templateId === undefined) return HostedMessage.findOne({ where: { title } });
      const send = await Send.findOne({ where: { title, templateId } });
      const delivery = send && (await Delivery.findOne({ where: { sendId: send.id } }));
      return delivery && HostedMessage.findOne({ where: { deliveryId: delivery.id } });
    });
    return Object.fromEntries(
      m.content
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  };

  it('alertmanager: the documented payload is sent with its placeholders, title and dedup key', async () => {
    const { token, template } = await hookTemplate([
      'status',
      'alertname',
      'severity',
      'summary',
      'instance',
      'count',
      'firing',
      'resolved',
      'url',
      'alerts',
      'commonLabels.job',
    ]);
    const r = await hook(`alertmanager/${token}`, raw('alertmanager.json'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 200,
      msg: 'success',
      // The template's hosted instance is new, so it has no public link and none is answered.
      data: { token, count: 1, deduplicated: false },
    });
    expect(await delivered('[FIRING:1] ProbeFailure', template.id)).toEqual({
      status: 'firing',
      alertname: 'ProbeFailure',
      severity: 'critical',
      summary: 'BlackBox Probe Failure: https://server.example.org',
      instance: 'https://server.example.org',
      count: '1',
      firing: '1',
      resolved: '0',
      url: 'http://prometheus.example.org:9093',
      alerts:
        '[firing] ProbeFailure on https://server.example.org: BlackBox Probe Failure: https://server.example.org',
      'commonLabels.job': 'http_checks',
    });
    // Other tests post this payload to templates of their own.
    const send = await Send.findOne({
      where: { title: '[FIRING:1] ProbeFailure', templateId: template.id },
    });
    expect(send?.request).toMatchObject({
      dedupKey: '{}/{severity="critical"}:{alertname="ProbeFailure"}:firing',
    });
    // Alertmanager repeats a firing group every repeat_interval: within the window it is
    // recorded as suppressed, counted on the first, and not delivered again.
    const again = await hook(`alertmanager/${token}`, raw('alertmanager.json'));
    expect(again.body.data).toEqual({
      token,
      count: 0,
      deduplicated: true,
      firstSendId: send?.id,
    });
    await send?.reload();
    expect(send?.suppressedCount).toBe(1);
  });

  it('grafana, uptime-kuma and generic: each payload fills its placeholders', async () => {
    const grafana = await hookTemplate(['status', 'title', 'count', 'url', 'summary']);
    expect((await hook(`grafana/${grafana.token}`, raw('grafana.json'))).status).toBe(200);
    expect(await delivered('[FIRING:2] (blue)', grafana.template.id)).toEqual({
      status: 'firing',
      title: '[FIRING:2] (blue)',
      count: '2',
      url: 'https://play.grafana.org/',
      summary: 'This alert was triggered for zone us-1',
    });

    const kuma = await hookTemplate(['name', 'status', 'msg', 'url']);
    expect((await hook(`uptime-kuma/${kuma.token}`, raw('uptime-kuma-down.json'))).status).toBe(
      200,
    );
    expect(
      await delivered('[Test] [🔴 Down] getaddrinfo ENOTFOUND test.com', kuma.template.id),
    ).toEqual({
      name: 'Test',
      status: 'down',
      msg: '[Test] [🔴 Down] getaddrinfo ENOTFOUND test.com',
      url: 'https://test.com',
    });

    const generic = await hookTemplate(['deploy.env', 'deploy.items.1', 'missing'], {
      name: 'deploys',
      placeholders: [
        { key: 'deploy.env', label: 'env' },
        { key: 'deploy.items.1', label: 'item' },
        { key: 'missing', label: 'missing', default: 'n/a' },
      ],
    });
    expect((await hook(`generic/${generic.token}`, raw('generic.json'))).status).toBe(200);
    expect(await delivered('Deploy finished', generic.template.id)).toEqual({
      'deploy.env': 'production',
      'deploy.items.1': 'worker',
      missing: 'n/a',
    });
    // Without a title field, the template's name is the title.
    expect((await hook(`generic/${generic.token}`, { deploy: { env: 'qa' } })).status).toBe(200);
    expect((await delivered('deploys', generic.template.id))['deploy.env']).toBe('qa');
  });

  it('a JSON body labelled as a form (curl -d) and GitHub’s form content type are read as JSON', async () => {
    const { token, template } = await hookTemplate(['deploy.env']);
    // What `curl -d '{…}' URL` sends: JSON with curl's default form Content-Type.
    const curl = await hook(
      `generic/${token}`,
      JSON.stringify({ title: 'curl -d', deploy: { env: 'curl' } }),
      { 'Content-Type': 'application/x-www-form-urlencoded' },
    );
    expect(curl.status).toBe(200);
    expect((await delivered('curl -d', template.id))['deploy.env']).toBe('curl');

    const github = await hookTemplate(['event', 'summary']);
    const payload = raw('github/push.json');
    const form = await hook(`github/${github.token}`, `payload=${encodeURIComponent(payload)}`, {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-GitHub-Event': 'push',
    });
    expect(form.status).toBe(200);
    const title = 'Codertocat created branch master in Codertocat/Hello-World: Initial commit';
    expect(await delivered(title, github.template.id)).toMatchObject({ event: 'push' });
  });

  it('github: an event is summarised; ping answers success and sends nothing', async () => {
    const { token, template } = await hookTemplate(['event', 'repo', 'sender', 'summary', 'url']);
    const push = await hook(`github/${token}`, raw('github/push.json'), {
      'X-GitHub-Event': 'push',
    });
    expect(push.status).toBe(200);
    const title = 'Codertocat created branch master in Codertocat/Hello-World: Initial commit';
    expect(await delivered(title, template.id)).toMatchObject({
      event: 'push',
      repo: 'Codertocat/Hello-World',
      sender: 'Codertocat',
      summary: title,
    });

    const before = await Send.count({ where: { templateId: template.id } });
    const ping = await hook(`github/${token}`, raw('github/ping.json'), {
      'X-GitHub-Event': 'ping',
    });
    expect(ping.body).toEqual({ code: 200, msg: 'success', data: { token, count: 0 } });
    expect(await Send.count({ where: { templateId: template.id } })).toBe(before);
    // A ping fails where a message would: GitHub shows its owner the template is off.
    await herald.console.ok('PUT', `/templates/${template.id}`, { enabled: false });
    const off = await hook(`github/${token}`, raw('github/ping.json'), {
      'X-GitHub-Event': 'ping',
    });
    expect(off.body).toMatchObject({ code: 400, msg: '模板已禁用' });
  });

  it("a preset's own field the payload lacks renders empty; a payload path it lacks keeps its marker", async () => {
    // A push has no `action`: a template written for pull requests showed `{{action}}` literally.
    const title = 'Codertocat created branch master in Codertocat/Hello-World: Initial commit';
    const bare = await hookTemplate(['event', 'action', 'head_commit.nothing']);
    await hook(`github/${bare.token}`, raw('github/push.json'), { 'X-GitHub-Event': 'push' });
    expect(await delivered(title, bare.template.id)).toEqual({
      event: 'push',
      action: '',
      'head_commit.nothing': '{{head_commit.nothing}}',
    });
    // A default still wins over the empty value, as for any placeholder not passed.
    const withDefault = await herald.createTemplate(
      { text: 'action={{action}}', placeholders: [{ key: 'action', label: 'a', default: 'none' }] },
      [{ channelId: hostedId, contentType: 'text' }],
    );
    await hook(`github/${withDefault.token}`, raw('github/push.json'), {
      'X-GitHub-Event': 'push',
    });
    expect(await delivered(title, withDefault.template.id)).toEqual({ action: 'none' });
  });

  it('every other fixture is delivered with its title and summary', async () => {
    const { token } = await hookTemplate(['event', 'status', 'summary', 'msg']);
    const cases: Array<[string, string, Record<string, string>, string]> = [
      [
        'github',
        'github/pull_request-opened.json',
        { 'X-GitHub-Event': 'pull_request' },
        'Codertocat opened pull request #2 in Codertocat/Hello-World: Update the README with new information.',
      ],
      [
        'github',
        'github/issues-opened.json',
        { 'X-GitHub-Event': 'issues' },
        'Codertocat opened issue #1 in Codertocat/Hello-World: Spelling error in the README file',
      ],
      [
        'github',
        'github/release-published.json',
        { 'X-GitHub-Event': 'release' },
        'Codertocat published release 0.0.1 in Codertocat/Hello-World',
      ],
      [
        'github',
        'github/workflow_run-completed.json',
        { 'X-GitHub-Event': 'workflow_run' },
        'Workflow test completed (success) on master in octo-org/octo-repo',
      ],
      ['uptime-kuma', 'uptime-kuma-up.json', {}, '[Test] [✅ Up] 200 - OK'],
      ['uptime-kuma', 'uptime-kuma-test.json', {}, 'Herald Testing'],
    ];
    for (const [preset, file, headers, title] of cases) {
      const r = await hook(`${preset}/${token}`, raw(file), headers);
      expect(r.status, file).toBe(200);
      const values = await delivered(title);
      if (preset === 'github') expect(values.summary, file).toBe(title);
      else expect(values.msg, file).toBe(title);
    }
  });

  describe('signatures', () => {
    const secret = 'It’s a Secret to Everybody';

    it('github with a secret: a valid X-Hub-Signature-256 passes, a wrong or missing one is 401', async () => {
      const { token } = await hookTemplate(['summary'], { hookSecret: secret });
      const body = raw('github/issues-opened.json');
      const send = (headers: Record<string, string>) =>
        hook(`github/${token}`, body, { 'X-GitHub-Event': 'issues', ...headers });

      const good = await send({ 'X-Hub-Signature-256': hubSignature(secret, body) });
      expect(good.status).toBe(200);
      const bad = await send({ 'X-Hub-Signature-256': hubSignature('another secret', body) });
      expect(bad.body).toEqual({
        code: 401,
        msg: expect.stringMatching(/^signature does not match/),
        data: null,
      });
      expect(bad.status).toBe(401);
      const malformed = await send({ 'X-Hub-Signature-256': 'sha256=abc' });
      expect(malformed.status).toBe(401);
      const missing = await send({});
      expect(missing.body.msg).toMatch(/^signature required: .*X-Hub-Signature-256$/);
      // GitHub signs only one way: Standard Webhooks headers are not enough.
      const other = await send(
        standardHeaders(
          'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          body,
          'msg_1',
          Math.floor(Date.now() / 1000),
        ),
      );
      expect(other.status).toBe(401);
    });

    it('generic with a secret: Standard Webhooks or X-Hub-Signature-256, checked against the raw body', async () => {
      const whsec = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const { token } = await hookTemplate(['deploy.env'], { hookSecret: whsec });
      const body = raw('generic.json');
      const now = Math.floor(Date.now() / 1000);

      const good = await hook(`generic/${token}`, body, standardHeaders(whsec, body, 'msg_2', now));
      expect(good.status).toBe(200);
      const hub = await hook(`generic/${token}`, body, {
        'X-Hub-Signature-256': hubSignature(whsec, body),
      });
      expect(hub.status).toBe(200);

      // The same JSON spelt differently is other bytes: the signature no longer matches.
      const respaced = await hook(
        `generic/${token}`,
        JSON.stringify(JSON.parse(body)),
        standardHeaders(whsec, body, 'msg_3', now),
      );
      expect(respaced.body.msg).toMatch(/^signature does not match/);
      const old = await hook(
        `generic/${token}`,
        body,
        standardHeaders(whsec, body, 'msg_4', now - 400),
      );
      expect(old.body).toMatchObject({
        code: 401,
        msg: expect.stringMatching(/more than 5 minutes/),
      });
      const future = await hook(
        `generic/${token}`,
        body,
        standardHeaders(whsec, body, 'msg_5', now + 400),
      );
      expect(future.status).toBe(401);
      const missing = await hook(`generic/${token}`, body);
      expect(missing.body.msg).toMatch(/^signature required: .*Standard Webhooks/);
    });

    it('issue 44 §3.2: a signed webhook-id is the dedup key; a fresh Idempotency-Key does not replay it', async () => {
      const whsec = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const { token, template } = await hookTemplate(['deploy.env'], { hookSecret: whsec });
      const sends = () => Send.count({ where: { templateId: template.id } });
      const body = raw('generic.json');
      const now = Math.floor(Date.now() / 1000);
      const signed = standardHeaders(whsec, body, 'msg_captured', now);

      const first = await hook(`generic/${token}`, body, {
        ...signed,
        'Idempotency-Key': 'first',
      });
      expect(first.status).toBe(200);
      const replayed = await hook(`generic/${token}`, body, {
        ...signed,
        'Idempotency-Key': 'a fresh key',
      });
      expect(replayed.body).toEqual(first.body);
      const bare = await hook(`generic/${token}`, body, signed);
      expect(bare.body).toEqual(first.body);
      expect(await sends()).toBe(1);

      // An id longer than an Idempotency-Key may be is still the key, hashed.
      const longId = `msg_${'x'.repeat(300)}`;
      const long = standardHeaders(whsec, body, longId, now);
      const once = await hook(`generic/${token}`, body, { ...long, 'Idempotency-Key': 'one' });
      expect(once.status).toBe(200);
      const twice = await hook(`generic/${token}`, body, { ...long, 'Idempotency-Key': 'two' });
      expect(twice.body).toEqual(once.body);
      expect(await sends()).toBe(2);
    });

    it('without a secret, the token alone authorises and signature headers are ignored', async () => {
      const { token } = await hookTemplate(['deploy.env']);
      const r = await hook(
        `generic/${token}`,
        { title: 'unsigned', deploy: { env: 'x' } },
        {
          'X-Hub-Signature-256': 'sha256=00',
        },
      );
      expect(r.status).toBe(200);
    });
  });

  it('Bearer: POST /api/hooks/{preset} takes the token from Authorization', async () => {
    const { token, template } = await hookTemplate(['deploy.env']);
    const r = await hook(
      'generic',
      { title: 'bearer hook', deploy: { env: 'bearer' } },
      {
        Authorization: `Bearer ${token}`,
      },
    );
    expect(r.body).toMatchObject({ code: 200, data: { token, count: 1 } });
    expect((await delivered('bearer hook', template.id))['deploy.env']).toBe('bearer');

    const missing = await hook('generic', { title: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body.msg).toMatch(/^token: is required/);
    const basic = await hook('generic', { title: 'x' }, { Authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
  });

  it('priority, dedupKey and dedupWindow are checked by V2’s rules and passed on', async () => {
    const { token } = await hookTemplate(['deploy.env']);
    const refused = async (query: string) =>
      (await hook(`generic/${token}?${query}`, { title: 'q' })).body;

    expect(await refused('priority=9')).toEqual({
      code: 400,
      msg: 'priority: must be 1 to 5 or one of min, low, default, high, max, urgent',
      data: null,
    });
    expect((await refused('dedupWindow=0')).msg).toBe('dedupWindow: must be at least 1 second');
    expect((await refused('dedupWindow=1.5')).msg).toBe(
      'dedupWindow: must be a whole number of seconds',
    );
    expect((await refused('dedupWindow=soon')).msg).toBe(
      'dedupWindow: must be a whole number of seconds',
    );
    expect((await refused(`dedupKey=${'k'.repeat(201)}`)).msg).toBe(
      'dedupKey: must be at most 200 characters',
    );

    const ok = await hook(`generic/${token}?priority=high&dedupKey=deploy-42&dedupWindow=600`, {
      title: 'with extras',
    });
    expect(ok.status).toBe(200);
    const send = await Send.findOne({ where: { title: 'with extras' } });
    expect(send?.request).toMatchObject({ priority: 4, dedupKey: 'deploy-42', dedupWindow: 600 });
    // The query's key wins over the preset's own.
    const am = await hookTemplate(['status']);
    await hook(`alertmanager/${am.token}?dedupKey=mine`, raw('alertmanager.json'));
    const amSend = await herald.waitFor(() =>
      Send.findOne({ where: { templateId: am.template.id } }),
    );
    expect(amSend.request).toMatchObject({ dedupKey: 'mine' });
  });

  it('refuses clearly: unknown preset 404, oversize 413, not JSON 400, and V2’s token and template answers', async () => {
    const { token } = await hookTemplate(['deploy.env']);

    const unknown = await hook(`nagios/${token}`, { title: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.msg).toMatch(/^no such hook preset: nagios/);

    const huge = await hook(
      `generic/${token}`,
      JSON.stringify({ title: 'x', pad: 'x'.repeat(1024 * 1024) }),
    );
    expect(huge.body).toEqual({ code: 413, msg: 'request body is larger than 1 MiB', data: null });
    expect(huge.status).toBe(413);

    const notJson = await hook(`alertmanager/${token}`, 'status=firing', {
      'Content-Type': 'text/plain',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.msg).toMatch(/^request body is not valid JSON/);
    // A form that is neither JSON nor a form with a JSON `payload` field.
    const form = await hook(`github/${token}`, 'payload=%7Bnot', {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-GitHub-Event': 'push',
    });
    expect(form.status).toBe(400);
    expect(form.body.msg).toMatch(/^request body must be JSON, or a form whose payload field/);
    const wrongShape = await hook(`uptime-kuma/${token}`, [1, 2]);
    expect(wrongShape.status).toBe(400);

    const forged = await hook('generic/not-a-token', { title: 'x' });
    expect(forged.body).toMatchObject({
      code: 400,
      msg: expect.stringMatching(/^token解析失败: /),
    });

    const deleted = await hookTemplate(['x']);
    await herald.console.ok('DELETE', `/templates/${deleted.template.id}`);
    expect((await hook(`generic/${deleted.token}`, { title: 'x' })).body.msg).toBe('模板不存在');

    const disabled = await hookTemplate(['x'], { enabled: false });
    expect((await hook(`generic/${disabled.token}`, { title: 'x' })).body).toEqual({
      code: 400,
      msg: '模板已禁用',
      data: null,
    });
  });

  it('a delivery the sender repeats (same webhook-id or X-GitHub-Delivery) is sent once', async () => {
    const { token, template } = await hookTemplate(['deploy.env', 'summary']);
    const sends = () => Send.count({ where: { templateId: template.id } });
    const body = { title: 'retried delivery', deploy: { env: 'x' } };

    const first = await hook(`generic/${token}`, body, { 'webhook-id': 'msg_retry_1' });
    const again = await hook(`generic/${token}`, body, { 'webhook-id': 'msg_retry_1' });
    expect(again.body).toEqual(first.body);
    expect(await sends()).toBe(1);
    await hook(`generic/${token}`, body, { 'webhook-id': 'msg_retry_2' });
    expect(await sends()).toBe(2);

    const delivery = {
      'X-GitHub-Event': 'issues',
      'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    };
    await hook(`github/${token}`, raw('github/issues-opened.json'), delivery);
    await hook(`github/${token}`, raw('github/issues-opened.json'), delivery);
    expect(await sends()).toBe(3);
  });

  it('counts against the template’s send rate limit, shared with V2', async () => {
    const { token } = await hookTemplate(['deploy.env']);
    await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 2 });
    try {
      expect((await herald.sendV2({ token, title: 'v2 first' })).status).toBe(200);
      expect((await hook(`generic/${token}`, { title: 'hook second' })).status).toBe(200);
      const third = await hook(`generic/${token}`, { title: 'hook third' });
      expect(third.body).toEqual({
        code: 429,
        msg: 'rate limit: at most 2 sends a minute per template',
        data: null,
      });
    } finally {
      await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });
    }
  });

  it('`sendHook()` counts no rate slot for a sender’s check (GitHub’s ping)', async () => {
    const { token } = await hookTemplate(['event']);
    await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 1 });
    try {
      const ping = { 'X-GitHub-Event': 'ping' };
      for (let i = 0; i < 2; i++) {
        expect((await hook(`github/${token}`, raw('github/ping.json'), ping)).status).toBe(200);
      }
      const push = { 'X-GitHub-Event': 'push' };
      expect((await hook(`github/${token}`, raw('github/push.json'), push)).status).toBe(200);
      expect((await hook(`github/${token}`, raw('github/push.json'), push)).status).toBe(429);
    } finally {
      await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });
    }
  });

  it('`sendHook()` remembers an Idempotency-Key apart from V2’s: the same key on both is two sends', async () => {
    const { token, template } = await hookTemplate(['summary']);
    const sends = () => Send.count({ where: { templateId: template.id } });
    const key = { 'Idempotency-Key': 'shared-by-v2-and-hook' };

    const v2 = await herald.sendV2({ token, title: 'by v2' }, key);
    const first = await hook(`generic/${token}`, { title: 'by hook' }, key);
    expect(first.status).toBe(200);
    expect(await sends()).toBe(2);
    const again = await hook(`generic/${token}`, { title: 'by hook again' }, key);
    expect(again.body).toEqual(first.body);
    expect((await herald.sendV2({ token, title: 'by v2 again' }, key)).body).toEqual(v2.body);
    expect(await sends()).toBe(2);
  });

  it('gets the send routes’ guards: a cross-site browser request is 403', async () => {
    const { token } = await hookTemplate(['x']);
    const r = await hook(
      `generic/${token}`,
      { title: 'x' },
      {
        'Sec-Fetch-Site': 'cross-site',
        Origin: 'https://evil.test',
      },
    );
    expect(r.status).toBe(403);
  });
});
