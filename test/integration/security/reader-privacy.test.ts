import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { settingsSchema } from '../../../server/config/settings-schema';
import { HostedMessage, User } from '../../../server/db/models';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { hashPassword } from '../../../server/features/auth/password-hash';

describe('reader privacy: the "always show remote images" setting', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald();
  });

  afterAll(async () => {
    await herald?.close(true);
  });

  it('is off on a new install', async () => {
    const settings = await herald.console.ok('GET', '/settings');

    expect(settings.showRemoteImages).toBe(false);
  });

  it('is off for a data folder written before the setting existed', () => {
    const older = { allowTaskId: true, v1WaitMs: 15_000, rateLimitPerMinute: 0 };

    expect(settingsSchema.parse(older).showRemoteImages).toBe(false);
  });

  it('turns on and off through PUT /settings and survives a restart', async () => {
    const on = await herald.console.ok('PUT', '/settings', { showRemoteImages: true });
    expect(on.showRemoteImages).toBe(true);
    expect(on.v1WaitMs).toBe(10_000);

    await herald.close();
    herald = await startTestHerald({ dataDir: herald.dataDir });

    expect((await herald.console.ok('GET', '/settings')).showRemoteImages).toBe(true);
    const off = await herald.console.ok('PUT', '/settings', { showRemoteImages: false });
    expect(off.showRemoteImages).toBe(false);
  });

  it('reaches every role’s reader with the message, though only an administrator reads the settings', async () => {
    const { writeLock } = herald.server.ctx;
    const passwordHash = await hashPassword('viewer password');
    await writeLock.run(() => User.create({ username: 'reader', passwordHash, role: 'viewer' }));
    const viewer = new ConsoleClient(herald.url);
    await viewer.ok('POST', '/login', { username: 'reader', password: 'viewer password' });
    const m = await writeLock.run(() =>
      HostedMessage.create({
        channelId: null,
        deliveryId: null,
        title: 'with a picture',
        content: '<img src="https://tracker.example/p.gif">',
        format: 'html',
        url: null,
      }),
    );
    expect((await viewer.get('/settings')).status).toBe(403);
    for (const on of [true, false]) {
      await herald.console.ok('PUT', '/settings', { showRemoteImages: on });
      for (const reader of [herald.console, viewer]) {
        expect((await reader.ok('GET', `/messages/${m.id}`)).showRemoteImages).toBe(on);
      }
    }
  });

  it('answers 400 in the envelope for a value that is not a boolean', async () => {
    const bad = await herald.console.put('/settings', { showRemoteImages: 'yes' });

    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400, data: null });
    expect(bad.body.msg).toMatch(/showRemoteImages/);
  });

  it('tells the browser not to resolve the host names of links in advance', async () => {
    const res = await fetch(`${herald.url}/api/console/status`);

    expect(res.headers.get('x-dns-prefetch-control')).toBe('off');
    // Remote images come through the image proxy (issue 43 §3): the page loads none itself.
    expect(res.headers.get('content-security-policy')).toMatch(/img-src 'self' data: blob:(;|$)/);
  });
});
