import { QueryTypes, type Sequelize } from 'sequelize';

import type { HostedAttachment } from '../../../contract/console/messages';
import { fileUrl } from '../attachments/attachment-service';

interface Row {
  id: string;
  filename: string;
  mime: string;
  size: number | string;
  inline: boolean | number;
}

/**
 * The files of a hosted message still stored, in the order they were sent (issue 43 §2). The
 * row keeps only the ids: names, types and sizes are the files' own, and a file that expired
 * (or whose send was deleted) is no longer listed rather than shown as a broken link. Each
 * URL is a path on Herald itself, so the reader's `img-src 'self'` lets an image show inline.
 */
export async function hostedAttachmentsOf(
  sequelize: Sequelize,
  messageId: number,
  now: number = Date.now(),
): Promise<HostedAttachment[]> {
  const [message] = await sequelize.query<{ attachments: string | null }>(
    'SELECT attachments FROM hosted_messages WHERE id = :messageId',
    { replacements: { messageId }, type: QueryTypes.SELECT },
  );
  const ids = idsOf(message?.attachments ?? null);
  if (ids.length === 0) return [];
  const rows = await sequelize.query<Row>(
    `SELECT id, filename, mime, size, inline FROM attachments
     WHERE id IN (:ids) AND expires_at > :now`,
    { replacements: { ids, now }, type: QueryTypes.SELECT },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        name: row.filename,
        type: row.mime,
        size: Number(row.size),
        inline: Boolean(row.inline),
        url: fileUrl('', row),
      },
    ];
  });
}

function idsOf(json: string | null): string[] {
  if (!json) return [];
  try {
    const ids: unknown = JSON.parse(json);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
