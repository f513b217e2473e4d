import { readFileSync } from 'node:fs';
import path from 'node:path';

import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

describe('the Node versions Herald says it runs on', () => {
  it('every package the lock file installs runs on the oldest Node that `engines` admits', () => {
    // npm only warns (EBADENGINE) about a dependency that wants a newer Node: this makes it fail.
    const oldest = semver.minVersion(read('package.json').engines.node)!.version;
    // Node 20 stays supported (the machines Herald is built and tested on run it).
    expect(semver.major(oldest)).toBe(20);
    const packages: Record<string, { version?: string; engines?: { node?: string } }> =
      read('package-lock.json').packages;
    const refused = Object.entries(packages)
      .filter(([name, p]) => name !== '' && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(oldest, p.engines!.node!))
      .map(([name, p]) => `${name}@${p.version}: node ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });
});
