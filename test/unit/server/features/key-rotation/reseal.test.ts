import { randomBytes } from 'node:crypto';

import { QueryTypes, Sequelize } from 'sequelize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { decodeRawKey } from '../../../../../server/config/server-key-source';
import { SecretBox } from '../../../../../server/crypto/secret-box';
import { deriveInstallId } from '../../../../../server/crypto/server-key';
import { TokenCodec } from '../../../../../server/crypto/tokens';
import {
  placesPresent,
  resealAll,
  resealJson,
  resealWith,
} from '../../../../../server/features/key-rotation/reseal';
import { SEALED_VALUES } from '../../../../../server/features/key-rotation/sealed-values';

const oldKey = randomBytes(32);
const newKey = Buffer.concat([randomBytes(32), oldKey]);
const oldBox = new SecretBox(oldKey);
const newBox = new SecretBox(newKey);
const reseal = resealWith(oldBox, newBox);

describe('resealJson', () => {
  it('re-seals every sealed string at any depth and leaves the rest as it was', () => {
    const config = {
      url: 'https://example.test/hook',
      signingSecret: oldBox.seal('whsec_abc'),
      secretHeaders: { Authorization: oldBox.seal('Bearer x'), 'X-Plain': 'plain' },
      list: [oldBox.seal('in a list'), 3, null],
      port: 465,
    };
    const out = resealJson(config, reseal);
    expect(out.resealed).toBe(3);
    expect(out.unopened).toBe(0);
    const value = out.value as typeof config;
    expect(value.url).toBe(config.url);
    expect(value.port).toBe(465);
    expect(value.secretHeaders['X-Plain']).toBe('plain');
    expect(newBox.open(value.signingSecret)).toBe('whsec_abc');
    expect(newBox.open(value.secretHeaders.Authorization)).toBe('Bearer x');
    expect(newBox.open(value.list[0] as string)).toBe('in a list');
    expect(() => oldBox.open(value.signingSecret)).toThrow();
  });

  it('counts and keeps a value that looks sealed but does not open with the old key', () => {
    const foreign = new SecretBox(randomBytes(32)).seal('someone else');
    const out = resealJson({ a: foreign, b: 'enc:v1:not base64 at all' }, reseal);
    expect(out).toEqual({
      value: { a: foreign, b: 'enc:v1:not base64 at all' },
      resealed: 0,
      unopened: 2,
    });
  });
});

describe('resealAll', () => {
  let sequelize: Sequelize;

  beforeEach(async () => {
    sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    // No users table: an older schema, or a place not there yet.
    await sequelize.query('CREATE TABLE channels (id INTEGER PRIMARY KEY, config TEXT)');
    await sequelize.query('CREATE TABLE templates (id INTEGER PRIMARY KEY, name TEXT)');
    await sequelize.query('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)');
  });
  afterEach(() => sequelize.close());

  it('re-seals the places the database has and reports the ones it has not', async () => {
    const sealed = JSON.stringify({ token: oldBox.seal('bot token'), chat: '42' });
    const plain = JSON.stringify({ url: 'https://example.test', note: 'talks about enc:v1: here' });
    await sequelize.query('INSERT INTO channels (id, config) VALUES (1, :sealed), (2, :plain)', {
      replacements: { sealed, plain },
    });
    await sequelize.query(
      "INSERT INTO settings (key, value) VALUES ('vapid', :v), ('retry', '{\"baseDelayMs\":50}')",
      { replacements: { v: JSON.stringify({ privateKey: oldBox.seal('vapid private') }) } },
    );

    const places = await placesPresent(sequelize, SEALED_VALUES);
    const counts = await sequelize.transaction((transaction) =>
      resealAll(sequelize, transaction, places, reseal),
    );
    expect(counts).toEqual([
      { what: 'channel secrets', resealed: 1, unopened: 0 },
      { what: 'hook secrets', resealed: 0, unopened: 0, absent: 'no column templates.hook_secret' },
      { what: 'two-factor secrets', resealed: 0, unopened: 0, absent: 'no table users' },
      {
        what: 'two-factor secrets being set up',
        resealed: 0,
        unopened: 0,
        absent: 'no table users',
      },
      { what: 'sealed settings', resealed: 1, unopened: 0 },
    ]);

    const rows = await sequelize.query<{ id: number; config: string }>(
      'SELECT id, config FROM channels ORDER BY id',
      { type: QueryTypes.SELECT },
    );
    const first = JSON.parse(rows[0]!.config);
    expect(first.chat).toBe('42');
    expect(newBox.open(first.token)).toBe('bot token');
    expect(rows[1]!.config).toBe(plain);
    const [vapid] = await sequelize.query<{ value: string }>(
      "SELECT value FROM settings WHERE key = 'vapid'",
      { type: QueryTypes.SELECT },
    );
    expect(newBox.open(JSON.parse(vapid!.value).privateKey)).toBe('vapid private');
  });
});

describe('a key of 64 bytes: the sealing key, then the token key', () => {
  it('derives tokens and the install id from its second half, as the 32-byte key it kept', () => {
    const kept = randomBytes(32);
    const split = Buffer.concat([randomBytes(32), kept]);
    const payload = { kind: 'template' as const, id: 7, generation: 2 };
    expect(new TokenCodec(split).encode(payload)).toBe(new TokenCodec(kept).encode(payload));
    expect(deriveInstallId(split)).toBe(deriveInstallId(kept));
  });

  it('seals with its first half: what a 32-byte key sealed, the split key with it first opens', () => {
    const sealing = randomBytes(32);
    const sealed = new SecretBox(sealing).seal('secret');
    expect(new SecretBox(Buffer.concat([sealing, randomBytes(32)])).open(sealed)).toBe('secret');
    expect(() => new SecretBox(Buffer.concat([randomBytes(32), sealing])).open(sealed)).toThrow();
  });

  it('is read from a key file in base64, trailing newline and all; other lengths are refused', () => {
    const key = randomBytes(64);
    expect(decodeRawKey(`${key.toString('base64')}\n`)?.equals(key)).toBe(true);
    const old = randomBytes(32);
    expect(decodeRawKey(`${old.toString('base64')}\n`)?.equals(old)).toBe(true);
    expect(decodeRawKey(randomBytes(48).toString('base64'))).toBeNull();
  });
});
