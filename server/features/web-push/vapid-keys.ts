import webpush from 'web-push';

import type { SecretBox } from '../../crypto/secret-box';
import { Setting } from '../../db/models/setting';
import type { WriteLock } from '../../db/writer';

/** The settings row that holds the key pair (key-rotation/sealed-values.ts: sealed settings). */
export const VAPID_SETTING = 'web-push-vapid';

export interface VapidKeyPair {
  /** base64url, 65 bytes uncompressed P-256: the browser's applicationServerKey. */
  publicKey: string;
  /** base64url, 32 bytes. */
  privateKey: string;
}

interface StoredVapid {
  publicKey: string;
  /** Sealed with the server key (`enc:v1:…`). */
  privateKey: string;
}

function isStored(value: unknown): value is StoredVapid {
  const v = value as Partial<StoredVapid> | null;
  return typeof v?.publicKey === 'string' && typeof v.privateKey === 'string';
}

/**
 * Herald's VAPID key pair: made on first start and kept for good, since every browser's
 * subscription is bound to the public key it was made with (a new pair would silently stop
 * every device). The private key is sealed like every other secret at rest.
 */
export class VapidKeys {
  private pair: VapidKeyPair | null = null;

  constructor(private readonly deps: { writeLock: WriteLock; secrets: SecretBox }) {}

  /** The pair, made and stored if there is none yet. */
  async load(): Promise<VapidKeyPair> {
    if (this.pair) return this.pair;
    const stored = (await this.read()) ?? (await this.create());
    this.pair = {
      publicKey: stored.publicKey,
      privateKey: this.deps.secrets.open(stored.privateKey),
    };
    return this.pair;
  }

  private async read(): Promise<StoredVapid | null> {
    const row = await Setting.findByPk(VAPID_SETTING);
    return row && isStored(row.value) ? row.value : null;
  }

  private async create(): Promise<StoredVapid> {
    const fresh = webpush.generateVAPIDKeys();
    const sealed: StoredVapid = {
      publicKey: fresh.publicKey,
      privateKey: this.deps.secrets.seal(fresh.privateKey),
    };
    // On PostgreSQL another process may be making its own at the same moment: the row
    // committed first wins (the other insert does nothing), and both read it back.
    return this.deps.writeLock.run(async ({ transaction }) => {
      await Setting.bulkCreate([{ key: VAPID_SETTING, value: sealed }], {
        ignoreDuplicates: true,
        transaction,
      });
      const row = await Setting.findByPk(VAPID_SETTING, { transaction });
      if (!row || !isStored(row.value)) throw new Error('the VAPID key pair could not be stored');
      return row.value;
    });
  }
}
