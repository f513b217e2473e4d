import argon2 from 'argon2';

/**
 * Argon2id at the argon2 package's own defaults (64 MiB, 3 passes, 4 lanes; OWASP's
 * recommended floor is lower): about 0.3 s a hash on a two-core machine, which is the point
 * against a stolen database, and no burden on a person signing in.
 */
const ACCOUNT_COST = { type: argon2.argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 4 };

/**
 * TEST ONLY: HERALD_TEST_CHEAP_PASSWORD_HASH=1 hashes at the lowest cost, so the few hundred
 * Heralds the test suite sets up and signs in to do not spend minutes of its CPU on Argon2
 * (each hash and each verification costs the same 0.3 s). The stored hash carries its own
 * cost, so verification needs nothing; a password hashed this way is hashed again at the full
 * cost at its next sign-in without the variable (see `needsRehash`), and the packaged desktop
 * app drops every HERALD_TEST_* variable.
 */
const TEST_COST = { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 };

export function hashesAtTestCost(): boolean {
  return process.env.HERALD_TEST_CHEAP_PASSWORD_HASH === '1';
}

function cost() {
  return hashesAtTestCost() ? TEST_COST : ACCOUNT_COST;
}

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, cost());
}

/** False for a wrong password and for a stored value that is not an Argon2 hash. */
export function verifyPassword(hash: string, password: string): Promise<boolean> {
  return argon2.verify(hash, password).catch(() => false);
}

const ARGON2_PHC = /^\$(argon2(?:id|i|d))\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$/;

/**
 * True when a stored hash is weaker than an account's cost (one made under the test variable,
 * or by an older Herald with lower costs), so a sign-in can store a full-cost one. Never true
 * while this process hashes at the test cost: that would lower a full-cost hash.
 */
export function isWeakerThanAccountCost(hash: string): boolean {
  if (cost() !== ACCOUNT_COST) return false;
  const phc = ARGON2_PHC.exec(hash);
  if (!phc) return false;
  const [, type, version, memory, passes] = phc;
  return (
    type !== 'argon2id' ||
    Number(version) < 19 ||
    Number(memory) < ACCOUNT_COST.memoryCost ||
    Number(passes) < ACCOUNT_COST.timeCost
  );
}
