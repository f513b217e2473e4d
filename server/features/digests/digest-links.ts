import { QueryTypes, type Sequelize } from 'sequelize';

/** How a send's log entry links to digests (contract/console/logs.ts, SendDetail). */
export interface DigestLinks {
  collectedInto: { digestId: number; until: Date; digestSendId: number | null } | null;
  digestOf: Array<{ id: number; title: string; createdAt: Date }> | null;
}

type Num = number | string;

/**
 * A collected send's digest (and the digest's own send once it closed), or a digest's send's
 * collected sends, oldest first: what the send log shows on either side.
 */
export async function digestLinksOf(sequelize: Sequelize, sendId: number): Promise<DigestLinks> {
  const [into] = await sequelize.query<{ id: Num; window_until: Num; send_id: Num | null }>(
    `SELECT d.id, d.window_until, d.send_id FROM digest_sends ds
     JOIN digests d ON d.id = ds.digest_id WHERE ds.send_id = :sendId`,
    { replacements: { sendId }, type: QueryTypes.SELECT },
  );
  const [digest] = await sequelize.query<{ id: Num }>(
    'SELECT id FROM digests WHERE send_id = :sendId',
    { replacements: { sendId }, type: QueryTypes.SELECT },
  );
  const carried = digest
    ? await sequelize.query<{ id: Num; title: string; created_at: Num }>(
        `SELECT s.id, s.title, ds.created_at FROM digest_sends ds JOIN sends s ON s.id = ds.send_id
         WHERE ds.digest_id = :digestId ORDER BY ds.created_at, s.id`,
        { replacements: { digestId: digest.id }, type: QueryTypes.SELECT },
      )
    : null;
  return {
    collectedInto: into
      ? {
          digestId: Number(into.id),
          until: new Date(Number(into.window_until)),
          digestSendId: into.send_id === null ? null : Number(into.send_id),
        }
      : null,
    digestOf: carried
      ? carried.map((c) => ({
          id: Number(c.id),
          title: c.title,
          createdAt: new Date(Number(c.created_at)),
        }))
      : null,
  };
}
