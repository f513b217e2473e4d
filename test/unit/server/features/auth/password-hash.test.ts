import argon2 from 'argon2';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  hashesAtTestCost,
  hashPassword,
  isWeakerThanAccountCost,
  verifyPassword,
} from '../../../../../server/features/auth/password-hash';

const ACCOUNT = '$argon2id$v=19$m=65536,t=3,p=4$';
const TEST = '$argon2id$v=19$m=1024,t=1,p=1$';

describe('password hashes', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("hashes at an account's cost (Argon2id, 64 MiB, 3 passes, 4 lanes) without the test variable", async () => {
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '');
    expect(hashesAtTestCost()).toBe(false);
    const hash = await hashPassword('correct horse battery');
    expect(hash.startsWith(ACCOUNT)).toBe(true);
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse batterY')).toBe(false);
    expect(isWeakerThanAccountCost(hash)).toBe(false);
  });

  it('hashes at the lowest cost under HERALD_TEST_CHEAP_PASSWORD_HASH=1, and only "1" turns it on', async () => {
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '1');
    const cheap = await hashPassword('pw');
    expect(cheap.startsWith(TEST)).toBe(true);
    expect(await verifyPassword(cheap, 'pw')).toBe(true);
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', 'true');
    expect(hashesAtTestCost()).toBe(false);
    expect((await hashPassword('pw')).startsWith(ACCOUNT)).toBe(true);
  });

  it('verifies a hash made at either cost whatever this process hashes at', async () => {
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '1');
    const cheap = await hashPassword('pw');
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '');
    const full = await hashPassword('pw');
    expect(await verifyPassword(cheap, 'pw')).toBe(true);
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '1');
    expect(await verifyPassword(full, 'pw')).toBe(true);
  });

  it('refuses, without throwing, a stored value that is not an Argon2 hash', async () => {
    for (const stored of [
      '',
      'plain text',
      '$2b$10$abcdefghijklmnopqrstuv',
      '$argon2id$v=19$m=x',
    ]) {
      expect(await verifyPassword(stored, 'plain text')).toBe(false);
      expect(isWeakerThanAccountCost(stored)).toBe(false);
    }
  });

  it("calls a hash below an account's cost weaker (memory, passes, Argon2i/d, an old version), never while hashing at the test cost", async () => {
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '');
    const weaker = [
      await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 19_456, timeCost: 3 }),
      await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 65_536, timeCost: 2 }),
      await argon2.hash('pw', { type: argon2.argon2i, memoryCost: 65_536, timeCost: 3 }),
      `$argon2id$v=16$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA`,
    ];
    for (const hash of weaker) expect(isWeakerThanAccountCost(hash), hash).toBe(true);
    // More memory or passes than an account's cost is not weaker: it stays.
    const stronger = await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 131_072 });
    expect(isWeakerThanAccountCost(stronger)).toBe(false);
    vi.stubEnv('HERALD_TEST_CHEAP_PASSWORD_HASH', '1');
    for (const hash of weaker) expect(isWeakerThanAccountCost(hash)).toBe(false);
  });
});
