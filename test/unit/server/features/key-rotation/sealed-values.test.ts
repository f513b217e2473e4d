import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { Sequelize } from 'sequelize';
import { describe, expect, it } from 'vitest';

import { initModels } from '../../../../../server/db/models';
import { SEALED_VALUES } from '../../../../../server/features/key-rotation/sealed-values';

/**
 * rotate-key re-seals the places SEALED_VALUES declares, and nothing else: a sealed column left
 * out of it would stop opening after a rotation. These tests fail when one appears without
 * being declared.
 */
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const declared = new Set(SEALED_VALUES.map((p) => `${p.table}.${p.column}`));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('the declared sealed values', () => {
  it('hold every model attribute whose documentation says it is sealed', () => {
    const sequelize = new Sequelize({
      dialect: 'sqlite',
      storage: ':memory:',
      logging: false,
      define: { underscored: true },
    });
    initModels(sequelize);
    const documented: string[] = [];
    for (const file of sourcesUnder(join(root, 'server', 'db', 'models'))) {
      const text = readFileSync(file, 'utf8');
      const className = /export class (\w+) extends Model/.exec(text)?.[1];
      if (!className) continue;
      const model = sequelize.models[className]!;
      for (const [, comment, attribute] of text.matchAll(/\/\*\*([^]*?)\*\/\s*declare (\w+)/g)) {
        if (!/\bseal/i.test(comment!)) continue;
        const field = model.getAttributes()[attribute!]?.field ?? attribute!;
        documented.push(`${model.tableName}.${field}`);
      }
    }
    // The scan finds the ones known today, so it is not passing on nothing.
    expect(documented).toEqual(
      expect.arrayContaining([
        'channels.config',
        'templates.hook_secret',
        'users.totp_secret',
        'users.totp_pending',
      ]),
    );
    for (const place of documented) expect(declared, `${place} is sealed`).toContain(place);
  });

  /**
   * Each module that seals (or builds a SecretBox to seal with), and the declared places what
   * it seals is stored in. A new one fails here until its place is declared and listed.
   */
  const SEALERS: Record<string, string[]> = {
    'server/features/channel-config/channel-secrets.ts': ['channels.config'],
    'server/features/channel-config/channel-service.ts': ['channels.config'],
    'server/features/channel-config/proxy-credentials.ts': ['channels.config'],
    'server/db/migrations/2026-11-30-1000-seal-proxy-credentials.ts': ['channels.config'],
    'server/features/sources/template-service.ts': ['templates.hook_secret'],
    'server/features/auth/two-factor-service.ts': ['users.totp_pending', 'users.totp_secret'],
    // The VAPID private key: a settings row (web-push-vapid).
    'server/features/web-push/vapid-keys.ts': ['settings.value'],
    // The OpenID Connect client secret: the settings row `sign-in` (Settings → Sign-in).
    'server/features/sso/sign-in-config.ts': ['settings.value'],
    // A pending OpenID Connect sign-in: sealed into a cookie, never stored.
    'server/features/sso/pending-login.ts': [],
    // Build the box for the parts above (the proxy migration, the import's channels) or to open.
    'server/composition.ts': ['channels.config'],
    'server/features/import/message-nest/cli.ts': ['channels.config'],
    'server/features/backup/restore.ts': ['channels.config'],
    'server/workers/delivery-worker.ts': [],
  };

  it('hold what every module that seals stores', () => {
    const found = sourcesUnder(join(root, 'server'))
      .map((file) => relative(root, file).split('\\').join('/'))
      .filter((file) => !file.startsWith('server/crypto/'))
      .filter((file) => !file.startsWith('server/features/key-rotation/'))
      .filter((file) =>
        /\.seal\(|sealSecrets\(|sealProxy\(|proxySealing\(|new SecretBox\(/.test(
          readFileSync(join(root, file), 'utf8'),
        ),
      )
      .sort();
    expect(found, 'a module seals something: declare where it is stored').toEqual(
      Object.keys(SEALERS).sort(),
    );
    for (const places of Object.values(SEALERS)) {
      for (const place of places) expect(declared).toContain(place);
    }
  });
});
