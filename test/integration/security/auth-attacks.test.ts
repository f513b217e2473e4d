import { request, type IncomingMessage } from 'node:http';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { USER_POLICY } from '../../../server/domain/sign-in-throttle';
import { MAX_STREAMS_PER_SESSION } from '../../../server/api/console/events/live-streams';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/**
 * Issue 11, attacks on the console's sign-in, performed over real HTTP against a real Herald:
 * row 1 (the admin created by whoever reaches 127.0.0.1 first), row 7 (ten wrong passwords lock
 * the admin out), row 10 (live streams outlive sign-out; unlimited streams), and item 9's
 * Secure cookie behind a trusted proxy.
 */

interface OpenStream {
  status: number;
  /** What arrived first: the stream's opening, or the refusal's JSON. */
  body: string;
  /** Resolves once `text` has arrived on the stream. */
  receive(text: string): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  destroy(): void;
}

/** Opens GET /api/console/events and resolves once the first chunk (or the refusal) arrived. */
function openStream(baseUrl: string, cookie: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/console/events`, { headers: { Cookie: cookie } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let received = '';
      const ended = new Promise<void>((done) => res.on('end', done));
      const receive = (text: string) =>
        new Promise<void>((done) => {
          const check = () => {
            if (!received.includes(text)) return;
            res.off('data', check);
            done();
          };
          res.on('data', check);
          check();
        });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (received += chunk));
      res.once('data', (chunk: string) =>
        resolve({
          status: res.statusCode ?? 0,
          body: chunk,
          receive,
          ended,
          destroy: () => req.destroy(),
        }),
      );
    });
    req.end();
  });
}

describe(
  'row 1: only someone at the machine creates the first administrator',
  { timeout: 30_000 },
  () => {
    let herald: TestHerald;
    let clock: ManualClock;

    // A fresh Herald per test: creating the admin, and the throttle's count of wrong codes,
    // would otherwise carry over into the next test.
    beforeEach(async () => {
      clock = new ManualClock();
      herald = await startTestHerald({ setup: false, clock, desktopSecret: 'desk-secret' });
    });
    afterEach(() => herald.close(true));

    it('a forged setup without the code, or with a wrong one, is refused and creates no admin', async () => {
      const page = new ConsoleClient(herald.url);
      const forged = await page.post('/setup', { username: 'evil', password: 'password123' });
      expect(forged.status).toBe(403);
      expect(forged.body).toEqual({
        code: 403,
        msg: 'setupCode: is required; Herald printed a one-time setup code in its terminal (or log) when it started',
        data: null,
      });
      expect(forged.headers.get('set-cookie')).toBeNull();

      const guessed = await page.post('/setup', {
        username: 'evil',
        password: 'password123',
        setupCode: 'AAAAA-AAAAA',
      });
      expect(guessed.status).toBe(403);
      expect(guessed.body.msg).toMatch(/^setupCode: is not correct/);

      const status = (await page.get('/status')).body.data;
      expect(status).toMatchObject({ setupRequired: true, user: null });
      expect(
        (await page.post('/login', { username: 'evil', password: 'password123' })).status,
      ).toBe(401);
    });

    it('guessing the code is throttled like a password: even the right code waits out the delay', async () => {
      const page = new ConsoleClient(herald.url);
      const code = herald.server.setupCode()!;
      let refused = null;
      for (let i = 0; i < USER_POLICY.freeFailures + 1 && !refused; i++) {
        const r = await page.post('/setup', { ...ADMIN, setupCode: `WRONG-${i}` });
        if (r.status === 429) refused = r;
        else expect(r.status).toBe(403);
      }
      expect(refused?.body.msg).toMatch(/^too many wrong setup codes; try again in \d+ seconds?$/);
      const blocked = await page.post('/setup', { ...ADMIN, setupCode: code });
      expect(blocked.status).toBe(429);
      clock.advance(Number(blocked.headers.get('retry-after')) * 1000);
      expect((await page.get('/status')).body.data.setupRequired).toBe(true);
    });

    it("Herald's desktop window gets the code handed over; the code ends once the admin exists", async () => {
      const code = herald.server.setupCode()!;
      expect(code).toMatch(/^[A-Z0-9]{5}-[A-Z0-9]{5}$/);
      const desk = await fetch(`${herald.url}/api/console/desktop-login?secret=desk-secret`, {
        redirect: 'manual',
      });
      expect(desk.status).toBe(302);
      const location = new URL(desk.headers.get('location')!, herald.url);
      expect(location.pathname).toBe('/sign-in');
      const handed = location.searchParams.get('code')!;
      expect(handed).toBe(code);

      // Typed in lower case, without the dash: still the code.
      const window = new ConsoleClient(herald.url);
      const created = await window.post('/setup', {
        ...ADMIN,
        setupCode: handed.toLowerCase().replace('-', ''),
      });
      expect(created.status).toBe(200);
      expect(herald.server.setupCode()).toBeNull();
      const replay = await new ConsoleClient(herald.url).post('/setup', {
        username: 'second',
        password: 'password123',
        setupCode: code,
      });
      expect(replay.status).toBe(409);
    });
  },
);

// Every try runs argon2 for real, which takes a while on a busy machine.
describe(
  'row 7: wrong passwords slow the guesser down but never lock the owner out',
  { timeout: 60_000 },
  () => {
    let herald: TestHerald;
    let clock: ManualClock;

    // A fresh Herald per test: each counts its own wrong guesses from zero.
    beforeEach(async () => {
      clock = new ManualClock();
      herald = await startTestHerald({ clock });
    });
    afterEach(() => herald.close(true));

    it('after ten wrong passwords the right one works once the announced delay has passed', async () => {
      const guesser = new ConsoleClient(herald.url);
      let throttled = 0;
      for (let i = 0; i < 10; i++) {
        let r = await guesser.post('/login', { username: ADMIN.username, password: `guess-${i}` });
        if (r.status === 429) {
          throttled++;
          clock.advance(Number(r.headers.get('retry-after')) * 1000);
          r = await guesser.post('/login', { username: ADMIN.username, password: `guess-${i}` });
        }
        expect(r.status).toBe(401);
      }
      expect(throttled).toBe(10 - USER_POLICY.freeFailures);

      const owner = new ConsoleClient(herald.url);
      const early = await owner.post('/login', ADMIN);
      expect(early.status).toBe(429);
      expect(early.body.code).toBe(429);
      expect(early.body.msg).toMatch(
        /^too many failed sign-ins; try again in \d+ (seconds?|minutes)$/,
      );
      const retryAfter = Number(early.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter * 1000).toBeLessThanOrEqual(USER_POLICY.maxDelayMs);

      clock.advance(retryAfter * 1000);
      const late = await owner.post('/login', ADMIN);
      expect(late.status).toBe(200);
      expect((await owner.get('/me')).body.data.user.username).toBe(ADMIN.username);
    });

    it('POST /password throttles wrong current passwords the same way', async () => {
      const session = herald.console;
      let last = null;
      for (let i = 0; i <= USER_POLICY.freeFailures; i++) {
        last = await session.post('/password', {
          currentPassword: `guess-${i}`,
          newPassword: 'taken over 123',
        });
        if (i < USER_POLICY.freeFailures) expect(last.status).toBe(400);
      }
      expect(last!.status).toBe(429);
      expect(last!.body.msg).toMatch(
        /^too many wrong current passwords; try again in \d+ seconds?$/,
      );
      const retryAfter = Number(last!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      clock.advance(retryAfter * 1000);
      // The password was never changed by any of the guesses.
      expect((await new ConsoleClient(herald.url).post('/login', ADMIN)).status).toBe(200);
    });
  },
);

describe(
  'row 10: live streams end with their session and are capped per session',
  { timeout: 30_000 },
  () => {
    let herald: TestHerald;
    const opened: OpenStream[] = [];

    beforeAll(async () => {
      herald = await startTestHerald();
    });
    afterEach(() => {
      for (const s of opened.splice(0)) s.destroy();
    });
    afterAll(() => herald.close(true));

    const signIn = async () => {
      const c = new ConsoleClient(herald.url);
      await c.ok('POST', '/login', ADMIN);
      return c;
    };
    const stream = async (c: ConsoleClient) => {
      const s = await openStream(herald.url, c.cookie);
      opened.push(s);
      return s;
    };

    it('signing out ends that session’s open streams, and only those', async () => {
      const leaving = await signIn();
      const staying = await signIn();
      const mine = await stream(leaving);
      const theirs = await stream(staying);
      expect(mine.status).toBe(200);
      expect(mine.body).toContain('retry:');

      const cookie = leaving.cookie;
      await leaving.ok('POST', '/logout');
      await mine.ended;
      const again = await openStream(herald.url, cookie);
      opened.push(again);
      expect(again.status).toBe(401);
      // The other session keeps streaming: an event still reaches it.
      herald.server.events.emit('send', { id: 4242, status: 'sent' });
      await theirs.receive('"id":4242');
      expect((await staying.get('/me')).status).toBe(200);
    });

    it('a password change ends the streams of every session of the user', async () => {
      const changer = await signIn();
      const other = await signIn();
      const own = await stream(changer);
      const elsewhere = await stream(other);
      await changer.ok('POST', '/password', {
        currentPassword: ADMIN.password,
        newPassword: 'a brand new password',
      });
      await Promise.all([own.ended, elsewhere.ended]);
      // The changer's session survives and reconnects; the other one is signed out.
      expect((await stream(changer)).status).toBe(200);
      expect((await stream(other)).status).toBe(401);
      await changer.ok('POST', '/password', {
        currentPassword: 'a brand new password',
        newPassword: ADMIN.password,
      });
    });

    it('issue 44 §3.1: another person’s session id revokes nothing and leaves their stream open', async () => {
      const victim = await signIn();
      const victimStream = await stream(victim);
      const sessions = await victim.ok('GET', '/account/sessions');
      const victimSession = sessions.items.find((s: { current: boolean }) => s.current).id;
      // The attacker is a viewer of the same Herald, signed in twice.
      const admin = await signIn();
      const username = `attacker-${Date.now()}`;
      await admin.ok('POST', '/users', { username, role: 'viewer', password: 'attacker password' });
      const attackerSignIn = async () => {
        const c = new ConsoleClient(herald.url);
        await c.ok('POST', '/login', { username, password: 'attacker password' });
        return c;
      };
      const attacker = await attackerSignIn();
      const attackersOther = await attackerSignIn();
      const attackersOtherStream = await stream(attackersOther);

      expect(await attacker.ok('DELETE', `/account/sessions/${victimSession}`)).toEqual({
        revoked: 0,
      });
      // The victim's stream still carries events; had it been ended, `ended` settles first.
      herald.server.events.emit('send', { id: 4431, status: 'sent' });
      await Promise.race([
        victimStream.receive('"id":4431'),
        victimStream.ended.then(() => {
          throw new Error('the victim’s stream was ended by a revoke that revoked nothing');
        }),
      ]);
      expect((await victim.get('/me')).status).toBe(200);

      // Revoking one's own other session does end that session's stream.
      const own = await attacker.ok('GET', '/account/sessions');
      const otherId = own.items.find((s: { current: boolean }) => !s.current).id;
      expect(await attacker.ok('DELETE', `/account/sessions/${otherId}`)).toEqual({ revoked: 1 });
      await attackersOtherStream.ended;
    });

    it(`a session may hold ${MAX_STREAMS_PER_SESSION} streams; the next is refused with 429`, async () => {
      const tab = await signIn();
      const streams: OpenStream[] = [];
      for (let i = 0; i < MAX_STREAMS_PER_SESSION; i++) streams.push(await stream(tab));
      expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_SESSION).fill(200));

      const extra = await stream(tab);
      expect(extra.status).toBe(429);
      expect(JSON.parse(extra.body)).toEqual({
        code: 429,
        msg: `this session already has ${MAX_STREAMS_PER_SESSION} live streams open; close some console tabs or windows and reload`,
        data: null,
      });
      // Another session is not affected by this one's streams.
      expect((await stream(await signIn())).status).toBe(200);

      // A closed tab frees its slot.
      streams[0]!.destroy();
      await herald.waitFor(async () => {
        const s = await stream(tab);
        return s.status === 200;
      });
    });
  },
);

describe('item 9: the session cookie is Secure behind a trusted HTTPS proxy only', () => {
  let direct: TestHerald;
  let proxied: TestHerald;

  beforeAll(async () => {
    direct = await startTestHerald();
    proxied = await startTestHerald({ trustProxy: 'loopback' });
  });
  afterAll(async () => {
    await direct.close(true);
    await proxied.close(true);
  });

  const signInVia = (herald: TestHerald, headers: Record<string, string>) =>
    new ConsoleClient(herald.url).request('POST', '/login', ADMIN, headers);

  it('X-Forwarded-Proto: https from a trusted proxy makes the cookie Secure', async () => {
    const viaTls = await signInVia(proxied, { 'X-Forwarded-Proto': 'https' });
    expect(viaTls.status).toBe(200);
    expect(viaTls.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    const plain = await signInVia(proxied, { 'X-Forwarded-Proto': 'http' });
    expect(plain.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
  });

  it('a client cannot fake it when no proxy is trusted', async () => {
    const faked = await signInVia(direct, { 'X-Forwarded-Proto': 'https' });
    expect(faked.status).toBe(200);
    expect(faked.headers.get('set-cookie')).toMatch(/herald_session=/);
    expect(faked.headers.get('set-cookie')).not.toMatch(/;\s*Secure/i);
  });

  it('a HERALD_TRUST_PROXY that would trust everyone stops the start with a clear message', async () => {
    await expect(startTestHerald({ trustProxy: 'true' })).rejects.toThrow(
      /^HERALD_TRUST_PROXY: "true" is not a proxy address/,
    );
  });
});
