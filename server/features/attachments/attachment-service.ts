import { createReadStream } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { QueryTypes, type Sequelize } from 'sequelize';

import type { MessageAttachment } from '../../channels/channel-adapter';
import type { AttachmentLimits } from '../../config/settings-schema';
import type { WriteLock } from '../../db/writer';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { fetchRemote, RemoteFetchError, type RemoteFetchOptions } from '../../lib/remote-fetch';
import {
  attachmentPath,
  attachmentsDir,
  ensureAttachmentDirs,
  isAttachmentId,
  newAttachmentId,
  stagingDir,
  stagingPath,
} from './attachment-files';
import { INLINE_IMAGE_TYPES, safeFilename, sniffType } from './attachment-types';

const log = createLogger('attachments');

const MB = 1024 * 1024;
/** How long a file given by URL may take to arrive. */
const FETCH_TIMEOUT_MS = 30_000;

/** A file uploaded with the send (multipart), written to the staging folder, not yet stored. */
export interface StagedUpload {
  path: string;
  filename: string;
  size: number;
}

/** `attachments: [{url, filename?, mime?}]` of a JSON send. */
export interface AttachmentByUrl {
  url: string;
  filename?: string;
  mime?: string;
}

/** A send's files as they arrived: uploaded, and to fetch. */
export interface IncomingFiles {
  uploads: readonly StagedUpload[];
  byUrl: readonly AttachmentByUrl[];
}

/** One stored file's row. */
export interface StoredAttachment {
  id: string;
  sendId: number | null;
  filename: string;
  mime: string;
  size: number;
  inline: boolean;
  createdAt: number;
  expiresAt: number;
}

export interface AttachmentServiceDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  settings: {
    get(): { attachments: AttachmentLimits; allowPrivateAddresses: boolean; publicBaseUrl: string };
  };
  dataDir: string;
  clock: Clock;
  /** Herald's own address: file URLs start with publicBaseUrl, else this (as share links do). */
  listenUrl(): string;
  /** Tests resolve names their own way; unset, the system's resolver. */
  fetchOptions?: Partial<RemoteFetchOptions>;
}

type Row = {
  id: string;
  send_id: number | string | null;
  filename: string;
  mime: string;
  size: number | string;
  inline: number | boolean;
  created_at: number | string;
  expires_at: number | string;
};

const rowOf = (r: Row): StoredAttachment => ({
  id: r.id,
  sendId: r.send_id === null ? null : Number(r.send_id),
  filename: r.filename,
  mime: r.mime,
  size: Number(r.size),
  inline: Boolean(r.inline),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});

const tooMany = (max: number, given: number) =>
  new AppError(
    413,
    `too many files: at most ${max} per send (attachments.maxFiles), ${given} given`,
  );

/** The 413 of a file over attachments.maxFileMb. */
export const fileTooLarge = (name: string, maxMb: number) =>
  new AppError(413, `the file "${name}" is larger than ${maxMb} MB (attachments.maxFileMb)`);

/**
 * A send's files: taken in (uploaded or fetched, their type sniffed, the limits checked),
 * committed to the data folder and the `attachments` table before the send is stored, handed
 * to each delivery's adapter, served at their unguessable URLs, and removed when they expire
 * or their send is pruned.
 */
export class AttachmentService {
  /**
   * The total check and the insert of one send's files, one send at a time in this process,
   * so two sends arriving together cannot both fit in the room left for one.
   */
  private committing: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: AttachmentServiceDeps) {}

  private baseUrl(): string {
    return this.deps.settings.get().publicBaseUrl || this.deps.listenUrl();
  }

  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.committing.then(step, step);
    this.committing = run.catch(() => undefined);
    return run;
  }

  /**
   * Stores a send's files and answers their ids, in the order given: uploads first, then
   * those given by URL. Any refusal (count, size, total, type, an address the guard refuses)
   * is thrown before anything is stored, and whatever was staged is removed.
   */
  async accept(files: IncomingFiles): Promise<string[]> {
    const limits = this.deps.settings.get().attachments;
    const count = files.uploads.length + files.byUrl.length;
    if (count === 0) return [];
    if (count > limits.maxFiles) throw tooMany(limits.maxFiles, count);
    const staged: Array<{ path: string; filename: string; size: number; declared?: string }> = [];
    const ids: string[] = [];
    try {
      for (const upload of files.uploads) {
        if (upload.size > limits.maxFileMb * MB)
          throw fileTooLarge(upload.filename, limits.maxFileMb);
        staged.push({ ...upload, filename: safeFilename(upload.filename) });
      }
      for (const [i, item] of files.byUrl.entries()) {
        staged.push(await this.fetchOne(item, i, limits));
      }
      const typed = await Promise.all(
        staged.map(async (file, i) => {
          const mime = await sniffType(file.path);
          checkDeclared(file.declared, mime, i, files.uploads.length);
          return { ...file, mime };
        }),
      );
      await this.inTurn(async () => {
        const adding = typed.reduce((sum, f) => sum + f.size, 0);
        const used = await this.usedBytes();
        if (used + adding > limits.maxTotalMb * MB) {
          throw new AppError(
            413,
            `the stored files would be larger than ${limits.maxTotalMb} MB in all (attachments.maxTotalMb): ${Math.ceil(used / MB)} MB are stored, this send adds ${Math.ceil(adding / MB)} MB`,
          );
        }
        const now = this.deps.clock.now();
        const expiresAt = now + limits.keepDays * 86_400_000;
        const rows = typed.map((f, position) => ({
          id: newAttachmentId(),
          position,
          filename: f.filename,
          mime: f.mime,
          size: f.size,
          inline: INLINE_IMAGE_TYPES.has(f.mime),
          path: f.path,
        }));
        for (const row of rows) {
          // On disk before the row says it is there: fsync, then the rename into place.
          const handle = await open(row.path, 'r+');
          try {
            await handle.sync();
          } finally {
            await handle.close();
          }
          await rename(row.path, attachmentPath(this.deps.dataDir, row.id));
          ids.push(row.id);
        }
        await this.deps.writeLock.run(async ({ transaction }) => {
          for (const row of rows) {
            await this.deps.sequelize.query(
              `INSERT INTO attachments (id, send_id, position, filename, mime, size, inline, source,
                 created_at, expires_at)
               VALUES (:id, NULL, :position, :filename, :mime, :size, :inline, :source, :now, :expiresAt)`,
              {
                replacements: {
                  ...row,
                  source: row.position < files.uploads.length ? 'upload' : 'url',
                  now,
                  expiresAt,
                },
                transaction,
              },
            );
          }
        });
      });
      return ids;
    } catch (err) {
      await Promise.all([
        ...staged.map((f) => rm(f.path, { force: true })),
        ...ids.map((id) => rm(attachmentPath(this.deps.dataDir, id), { force: true })),
      ]);
      throw err;
    }
  }

  private async fetchOne(
    item: AttachmentByUrl,
    index: number,
    limits: AttachmentLimits,
  ): Promise<{ path: string; filename: string; size: number; declared?: string }> {
    let file;
    try {
      file = await fetchRemote(item.url, {
        maxBytes: limits.maxFileMb * MB,
        timeoutMs: FETCH_TIMEOUT_MS,
        allowPrivateAddresses: this.deps.settings.get().allowPrivateAddresses,
        ...this.deps.fetchOptions,
      });
    } catch (err) {
      if (err instanceof RemoteFetchError) {
        const why =
          err.failure === 'too-large'
            ? `the file is larger than ${limits.maxFileMb} MB (attachments.maxFileMb)`
            : err.message;
        throw new AppError(err.status, `attachments[${index}]: ${why}`);
      }
      throw err;
    }
    ensureAttachmentDirs(this.deps.dataDir);
    const path = stagingPath(this.deps.dataDir);
    await writeFile(path, file.body, { mode: 0o600 });
    return {
      path,
      filename: safeFilename(item.filename ?? file.nameFromUrl),
      size: file.body.length,
      ...(item.mime && { declared: item.mime }),
    };
  }

  /** Removes files accepted for a send that was then refused. */
  async discard(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.writeLock.run(({ transaction }) =>
      this.deps.sequelize.query('DELETE FROM attachments WHERE id IN (:ids)', {
        replacements: { ids: [...ids] },
        transaction,
      }),
    );
    await Promise.all(ids.map((id) => rm(attachmentPath(this.deps.dataDir, id), { force: true })));
  }

  /** Ties the files to their stored send, so they go when its log is pruned. */
  async link(ids: readonly string[], sendId: number): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.writeLock.run(({ transaction }) =>
      this.deps.sequelize.query('UPDATE attachments SET send_id = :sendId WHERE id IN (:ids)', {
        replacements: { ids: [...ids], sendId },
        transaction,
      }),
    );
  }

  /** What a delivery hands its adapter: the files still stored, in the order sent. */
  async load(ids: readonly string[]): Promise<MessageAttachment[]> {
    const rows = await this.rows(ids);
    const base = this.baseUrl();
    return rows.map((row) => ({
      id: row.id,
      filename: row.filename,
      mime: row.mime,
      size: row.size,
      url: fileUrl(base, row),
      inline: row.inline,
      read: () => readFile(attachmentPath(this.deps.dataDir, row.id)),
    }));
  }

  async rows(ids: readonly string[]): Promise<StoredAttachment[]> {
    const wanted = ids.filter(isAttachmentId);
    if (wanted.length === 0) return [];
    const rows = await this.deps.sequelize.query<Row>(
      'SELECT * FROM attachments WHERE id IN (:ids)',
      { replacements: { ids: wanted }, type: QueryTypes.SELECT },
    );
    const byId = new Map(rows.map((r) => [r.id, rowOf(r)]));
    return wanted.flatMap((id) => byId.get(id) ?? []);
  }

  /** A send's files, for its log. */
  async ofSend(sendId: number): Promise<Array<StoredAttachment & { url: string }>> {
    const rows = await this.deps.sequelize.query<Row>(
      'SELECT * FROM attachments WHERE send_id = :sendId ORDER BY position',
      { replacements: { sendId }, type: QueryTypes.SELECT },
    );
    const base = this.baseUrl();
    return rows.map((r) => {
      const row = rowOf(r);
      return { ...row, url: fileUrl(base, row) };
    });
  }

  /** One stored file to serve, or null: unknown id, or expired. */
  async find(id: string): Promise<StoredAttachment | null> {
    const [row] = await this.rows([id]);
    if (!row || row.expiresAt <= this.deps.clock.now()) return null;
    return row;
  }

  /** A stored file's bytes as a stream; null when the file is gone from the disk. */
  async open(row: StoredAttachment): Promise<NodeJS.ReadableStream | null> {
    const path = attachmentPath(this.deps.dataDir, row.id);
    try {
      await stat(path);
    } catch {
      return null;
    }
    return createReadStream(path);
  }

  /** Bytes and files stored, for the dashboard. */
  async usage(): Promise<{ bytes: number; files: number }> {
    const [row] = await this.deps.sequelize.query<{
      bytes: number | string | null;
      files: number | string;
    }>('SELECT COALESCE(SUM(size), 0) AS bytes, COUNT(*) AS files FROM attachments', {
      type: QueryTypes.SELECT,
    });
    return { bytes: Number(row?.bytes ?? 0), files: Number(row?.files ?? 0) };
  }

  private async usedBytes(): Promise<number> {
    return (await this.usage()).bytes;
  }

  /**
   * Files a stop mid-send left behind: staged uploads and fetches, and stored files whose row
   * was never written (a stop between the rename and the insert), once they are an hour old.
   * File times are the file system's, so the real clock is asked, not the injected one.
   */
  private async sweepLeftovers(): Promise<void> {
    const before = Date.now() - LEFTOVER_MS;
    const old = async (path: string) => {
      try {
        return (await stat(path)).mtimeMs < before;
      } catch {
        return false;
      }
    };
    const staging = stagingDir(this.deps.dataDir);
    for (const name of await readdir(staging).catch(() => [] as string[])) {
      const path = join(staging, name);
      if (await old(path)) await rm(path, { force: true });
    }
    const stored = (
      await readdir(attachmentsDir(this.deps.dataDir)).catch(() => [] as string[])
    ).filter(isAttachmentId);
    if (stored.length === 0) return;
    const known = new Set((await this.rows(stored)).map((r) => r.id));
    for (const id of stored) {
      const path = attachmentPath(this.deps.dataDir, id);
      if (!known.has(id) && (await old(path))) await rm(path, { force: true });
    }
  }

  /**
   * Removes files that expired (keepDays) or whose send was pruned, the files first and then
   * their rows, so a row never points at nothing for long and a crash in between leaves only
   * rows that the next pass removes. Answers how many files and bytes went.
   */
  async prune(): Promise<{ files: number; bytes: number }> {
    await this.sweepLeftovers();
    const rows = (
      await this.deps.sequelize.query<Row>(
        `SELECT * FROM attachments
         WHERE expires_at <= :now
            OR (send_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sends WHERE sends.id = attachments.send_id))`,
        { replacements: { now: this.deps.clock.now() }, type: QueryTypes.SELECT },
      )
    ).map(rowOf);
    if (rows.length === 0) return { files: 0, bytes: 0 };
    for (const row of rows) {
      await rm(attachmentPath(this.deps.dataDir, row.id), { force: true }).catch((err: unknown) =>
        log.warn(`the expired file ${row.id} could not be removed: ${String(err)}`),
      );
    }
    const ids = rows.map((r) => r.id);
    await this.deps.writeLock.run(({ transaction }) =>
      this.deps.sequelize.query('DELETE FROM attachments WHERE id IN (:ids)', {
        replacements: { ids },
        transaction,
      }),
    );
    return { files: rows.length, bytes: rows.reduce((sum, r) => sum + r.size, 0) };
  }
}

/** A file on its way in for longer than this was left by a stop mid-send. */
const LEFTOVER_MS = 3_600_000;

/** A stored file's absolute URL: the base, /api/files/, the id, the name. */
export function fileUrl(base: string, row: { id: string; filename: string }): string {
  return `${base.replace(/\/+$/, '')}/api/files/${row.id}/${encodeURIComponent(row.filename)}`;
}

/**
 * A type the sender declared (`mime` of a file by URL) that the bytes contradict is refused
 * (415): it would be delivered as something it is not. Where the bytes say nothing (plain
 * text and the like), a declared image is refused too, since an image is what would be shown.
 */
function checkDeclared(
  declared: string | undefined,
  sniffed: string,
  index: number,
  uploads: number,
) {
  if (declared === undefined) return;
  const want = declared.split(';')[0].trim().toLowerCase();
  const unknown = sniffed === 'application/octet-stream';
  if ((unknown && want.startsWith('image/')) || (!unknown && want !== sniffed)) {
    throw new AppError(
      415,
      `attachments[${index - uploads}]: the file is ${unknown ? 'not a recognised image' : sniffed}, not ${want} as given`,
    );
  }
}
