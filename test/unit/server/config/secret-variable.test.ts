import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { readHeraldConfig } from '../../../../server/config/herald-config';
import {
  readerHint,
  readSecretVariable,
  SECRET_VARIABLES,
  secretVariableSet,
} from '../../../../server/config/secret-variable';

const dir = mkdtempSync(join(tmpdir(), 'herald-secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A file holding `content`, as a Docker or Kubernetes secret is mounted. */
function secretFile(content: string): string {
  const path = join(dir, `secret-${++files}`);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

const config = (env: NodeJS.ProcessEnv) => readHeraldConfig({ dataDir: '/tmp/x' }, env);

/** What each variable becomes in the config, so each is checked where Herald uses it. */
const inConfig: Record<(typeof SECRET_VARIABLES)[number], (env: NodeJS.ProcessEnv) => unknown> = {
  HERALD_ADMIN_PASSWORD: (env) => config(env).admin.password,
  HERALD_DATABASE_URL: (env) => config(env).databaseUrl,
  HERALD_METRICS_TOKEN: (env) => config(env).metrics.token,
  HERALD_OIDC_CLIENT_SECRET: (env) =>
    config({
      HERALD_OIDC_ISSUER: 'https://id.example.com',
      HERALD_OIDC_CLIENT_ID: 'herald',
      ...env,
    }).oidc.values.clientSecret,
};

const SAMPLE: Record<(typeof SECRET_VARIABLES)[number], string> = {
  HERALD_ADMIN_PASSWORD: 'pass word with spaces ',
  HERALD_DATABASE_URL: 'postgres://herald:s3cr3t@db:5432/herald',
  HERALD_METRICS_TOKEN: 'scrape-token-0123456789',
  HERALD_OIDC_CLIENT_SECRET: 'client secret with spaces ',
};

describe.each(SECRET_VARIABLES)('%s_FILE', (name) => {
  const secret = SAMPLE[name];
  const read = inConfig[name];

  it('reads the file, taking off one trailing line end only', () => {
    expect(read({ [`${name}_FILE`]: secretFile(`${secret}\n`) })).toBe(secret);
    expect(read({ [`${name}_FILE`]: secretFile(`${secret}\r\n`) })).toBe(secret);
    expect(read({ [`${name}_FILE`]: secretFile(secret) })).toBe(secret);
    // A second line end is the file's content, not formatting: it stays (and a URL or token
    // holding it is refused by its own check, naming the _FILE variable).
    expect(readSecretVariable({ [`${name}_FILE`]: secretFile(`${secret}\n\n`) }, name).value).toBe(
      `${secret}\n`,
    );
  });

  it('is the same as the variable itself', () => {
    expect(read({ [name]: secret })).toBe(secret);
    expect(read({ [`${name}_FILE`]: secretFile(`${secret}\n`) })).toBe(read({ [name]: secret }));
  });

  it('refuses both set, naming both and not the secret', () => {
    const env = { [name]: secret, [`${name}_FILE`]: secretFile(secret) };
    expect(() => read(env)).toThrow(`${name} and ${name}_FILE are both set`);
    expect(() => read(env)).not.toThrow(secret);
  });

  it('an empty variable beside the file counts as unset', () => {
    expect(read({ [name]: '', [`${name}_FILE`]: secretFile(secret) })).toBe(secret);
  });

  it('refuses a file that cannot be read, naming the variable and the path', () => {
    const missing = join(dir, 'no-such-file');
    expect(() => read({ [`${name}_FILE`]: missing })).toThrow(
      `${name}_FILE (${missing}) cannot be read (ENOENT)`,
    );
    expect(() => read({ [`${name}_FILE`]: dir })).toThrow(/cannot be read \(EISDIR\)/);
  });

  it('says whom a file it may not read must be readable by', () => {
    // As readFileSync fails on a 0600 file of another user (tests may run as root, who reads all).
    const denied = () => {
      throw Object.assign(new Error("EACCES: permission denied, open '/run/secrets/x'"), {
        code: 'EACCES',
      });
    };
    const env = { [`${name}_FILE`]: '/run/secrets/x' };
    expect(readerHint('ENOENT')).toBe('');
    expect(() => readSecretVariable(env, name, denied)).toThrow(
      `${name}_FILE (/run/secrets/x) cannot be read (EACCES): it must name a file holding ${name}; make it readable by the user Herald runs as (uid ${process.getuid!()})`,
    );
  });

  it('refuses an empty file rather than starting without the secret', () => {
    expect(() => read({ [`${name}_FILE`]: secretFile('\n') })).toThrow(
      new RegExp(`^${name}_FILE \\(.*\\) is empty`),
    );
  });

  it('is "set" for the tools that only ask whether it is (the backup CLI)', () => {
    expect(secretVariableSet({}, name)).toBe(false);
    expect(secretVariableSet({ [name]: '' }, name)).toBe(false);
    expect(secretVariableSet({ [`${name}_FILE`]: '/run/secrets/x' }, name)).toBe(true);
    expect(secretVariableSet({ [name]: secret }, name)).toBe(true);
  });
});

describe('a bad value from a file names the _FILE variable, never the value', () => {
  it('HERALD_DATABASE_URL_FILE', () => {
    const path = secretFile('mysql://root:hunter2@db/herald\n');
    expect(() => config({ HERALD_DATABASE_URL_FILE: path })).toThrow(
      /^HERALD_DATABASE_URL_FILE: "mysql:" is not supported/,
    );
    expect(() => config({ HERALD_DATABASE_URL_FILE: path })).not.toThrow(/hunter2/);
  });

  it('HERALD_METRICS_TOKEN_FILE', () => {
    const path = secretFile('short\n');
    expect(() => config({ HERALD_METRICS_TOKEN_FILE: path })).toThrow(
      /^HERALD_METRICS_TOKEN_FILE must be at least 16 characters/,
    );
  });

  it('the options stand in for the variables: databaseUrl given, the file is not read', () => {
    const env = { HERALD_DATABASE_URL_FILE: join(dir, 'no-such-file') };
    expect(
      readHeraldConfig({ dataDir: '/tmp/x', databaseUrl: 'postgres://o/h' }, env),
    ).toMatchObject({ databaseUrl: 'postgres://o/h' });
  });
});
