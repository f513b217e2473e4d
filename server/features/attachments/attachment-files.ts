import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a send's files live: `<data folder>/attachments/<id>`, and, on their way in, the
 * staging folder beside them (`attachments/.staging/`), on the same disk so that committing a
 * file is a rename. The id is 144 random bits (base64url, 24 characters): it is the secret
 * part of the file's URL, so it must not be guessable.
 */
export function attachmentsDir(dataDir: string): string {
  return join(dataDir, 'attachments');
}

export function stagingDir(dataDir: string): string {
  return join(attachmentsDir(dataDir), '.staging');
}

/** Makes both folders, owner-only; called before a file is staged. */
export function ensureAttachmentDirs(dataDir: string): void {
  mkdirSync(stagingDir(dataDir), { recursive: true, mode: 0o700 });
}

export function newAttachmentId(): string {
  return randomBytes(18).toString('base64url');
}

/** A stored file's path; the id is checked first, so a path never leaves the folder. */
export function attachmentPath(dataDir: string, id: string): string {
  if (!isAttachmentId(id)) throw new Error(`not an attachment id: ${id.slice(0, 40)}`);
  return join(attachmentsDir(dataDir), id);
}

export const isAttachmentId = (id: string): boolean => /^[A-Za-z0-9_-]{24}$/.test(id);

/** A new staging path for an incoming file. */
export function stagingPath(dataDir: string): string {
  return join(stagingDir(dataDir), randomBytes(12).toString('hex'));
}
