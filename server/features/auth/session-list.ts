import { Op } from 'sequelize';

import type { SessionInfo } from '../../../contract/console/users';
import { Session } from '../../db/models';
import type { HeraldParts } from '../../parts';

export type SessionListDeps = Pick<HeraldParts, 'writeLock' | 'clock'>;

/** An account's open sessions, and signing them out (your own, or an administrator's for anyone). */
export class SessionList {
  constructor(private readonly deps: SessionListDeps) {}

  /** The account's live sessions, most recently used first; `currentKey` marks the caller's. */
  async of(userId: number, currentKey: string | undefined): Promise<SessionInfo[]> {
    const sessions = await Session.findAll({
      where: { userId, expiresAt: { [Op.gte]: new Date(this.deps.clock.now()) } },
    });
    const lastUse = (s: Session) => (s.lastSeenAt ?? s.createdAt).getTime();
    return sessions
      .sort((a, b) => lastUse(b) - lastUse(a))
      .map((s) => ({
        id: s.id,
        current: s.id === currentKey,
        ip: s.ip,
        userAgent: s.userAgent,
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt?.toISOString() ?? null,
        expiresAt: s.expiresAt.toISOString(),
      }));
  }

  /** Signs out the account's sessions, all but `keepKey` when given; answers how many ended. */
  revokeAll(userId: number, keepKey?: string): Promise<number> {
    return this.deps.writeLock.run(() =>
      Session.destroy({
        where: { userId, ...(keepKey ? { id: { [Op.ne]: keepKey } } : {}) },
      }),
    );
  }

  /** Signs out one session of the account (0 when it is not the account's, or gone). */
  revokeOne(userId: number, key: string): Promise<number> {
    return this.deps.writeLock.run(() => Session.destroy({ where: { userId, id: key } }));
  }
}
