import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';

import busboy from 'busboy';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { LIMITS } from '../../../contract';
import type { AttachmentLimits } from '../../config/settings-schema';
import { ensureAttachmentDirs, stagingPath } from '../../features/attachments/attachment-files';
import { fileTooLarge, type StagedUpload } from '../../features/attachments/attachment-service';
import { AppError } from '../../lib/errors';

const MB = 1024 * 1024;

/** The uploads a multipart send carried, staged; read by the send routes. */
const uploadsOf = new WeakMap<Request, StagedUpload[]>();
/** The payload_json part's bytes (a hook's signature is computed over them). */
const payloadBytesOf = new WeakMap<Request, Buffer>();

export const stagedUploads = (req: Request): StagedUpload[] => uploadsOf.get(req) ?? [];
export const payloadBytes = (req: Request): Buffer | undefined => payloadBytesOf.get(req);

/** `files[]`, `files[0]`, `files`, `file`: Discord's names and the obvious ones. */
const FILE_FIELD = /^(files(\[\d*\])?|file)$/;

export interface MultipartSendDeps {
  dataDir: string;
  settings: { get(): { attachments: AttachmentLimits } };
}

/**
 * A send as `multipart/form-data` (issue 43 §2, Discord's shape): a `payload_json` part with
 * the JSON body the route takes anyway, and `files[]` parts. The files stream into the staging
 * folder with the limits enforced as they arrive (a file past maxFileMb, or a part past
 * maxFiles, stops the upload with 413); the JSON becomes `req.body`, so everything after runs
 * unchanged. Anything else than multipart passes through untouched. The staged files are
 * removed when the answer is sent: those the send stored were moved away by then.
 */
export function multipartSend(deps: MultipartSendDeps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    const limits = deps.settings.get().attachments;
    const maxFileBytes = limits.maxFileMb * MB;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fileSize: maxFileBytes,
          files: limits.maxFiles,
          fields: 20,
          fieldSize: LIMITS.bodyBytes,
          parts: limits.maxFiles + 20,
        },
      });
    } catch (err) {
      next(new AppError(400, `the multipart body cannot be read: ${(err as Error).message}`));
      return;
    }
    const uploads: StagedUpload[] = [];
    const writes: Array<Promise<void>> = [];
    const open: Array<{ from: Readable; to: Writable }> = [];
    let payload: string | undefined;
    let failed: AppError | null = null;
    let done = false;

    res.on('close', () => {
      for (const upload of uploads) void rm(upload.path, { force: true });
    });

    const fail = (err: AppError): void => {
      if (failed || done) return;
      failed = err;
      req.unpipe(parser);
      for (const { from, to } of open) {
        from.unpipe(to);
        from.resume();
        to.destroy();
      }
      // The rest of the body is not read: the connection closes after the answer.
      res.setHeader('Connection', 'close');
      next(err);
    };

    parser.on('field', (name, value, info) => {
      if (name !== 'payload_json') return;
      if (info.valueTruncated) {
        fail(new AppError(413, `payload_json is larger than ${LIMITS.bodyBytes / MB} MiB`));
        return;
      }
      payload = value;
    });

    parser.on('file', (name, stream, info) => {
      if (failed) {
        stream.resume();
        return;
      }
      if (!FILE_FIELD.test(name)) {
        stream.resume();
        fail(
          new AppError(400, `unexpected file part "${name.slice(0, 60)}": send files as files[]`),
        );
        return;
      }
      try {
        ensureAttachmentDirs(deps.dataDir);
      } catch (err) {
        stream.resume();
        fail(new AppError(500, `the upload could not be staged: ${(err as Error).message}`));
        return;
      }
      const upload: StagedUpload = {
        path: stagingPath(deps.dataDir),
        filename: info.filename ?? 'file',
        size: 0,
      };
      uploads.push(upload);
      const out = createWriteStream(upload.path, { mode: 0o600 });
      open.push({ from: stream, to: out });
      // busboy ends a part it cannot finish (a cut body) with an error on its stream too; the
      // parser's own error answers the request.
      stream.on('error', () => undefined);
      stream.on('data', (chunk: Buffer) => {
        upload.size += chunk.length;
      });
      stream.on('limit', () => fail(fileTooLarge(upload.filename, limits.maxFileMb)));
      const written = new Promise<void>((resolve, reject) => {
        out.on('finish', resolve);
        out.on('error', reject);
        out.on('close', resolve);
      });
      // Awaited only when the body was read whole; a refused upload's write may fail unheard.
      written.catch(() => undefined);
      writes.push(written);
      stream.pipe(out);
    });

    parser.on('filesLimit', () =>
      fail(
        new AppError(
          413,
          `too many files: at most ${limits.maxFiles} per send (attachments.maxFiles)`,
        ),
      ),
    );
    parser.on('partsLimit', () => fail(new AppError(413, 'too many parts in the multipart body')));
    parser.on('fieldsLimit', () =>
      fail(new AppError(400, 'too many fields in the multipart body')),
    );

    parser.on('error', (err: Error) =>
      fail(new AppError(400, `the multipart body cannot be read: ${err.message}`)),
    );
    req.on('aborted', () => fail(new AppError(400, 'the multipart body ended early')));

    parser.on('close', () => {
      if (failed) return;
      void Promise.all(writes).then(
        () => {
          if (failed) return;
          if (payload === undefined) {
            fail(
              new AppError(
                400,
                'a multipart send needs a payload_json part holding the JSON body (and files[] parts for the files)',
              ),
            );
            return;
          }
          let body: unknown;
          try {
            body = JSON.parse(payload);
          } catch (err) {
            fail(new AppError(400, `payload_json is not valid JSON: ${(err as Error).message}`));
            return;
          }
          done = true;
          req.body = body;
          uploadsOf.set(req, uploads);
          payloadBytesOf.set(req, Buffer.from(payload, 'utf8'));
          next();
        },
        (err: unknown) => fail(new AppError(500, `a file could not be staged: ${String(err)}`)),
      );
    });

    req.pipe(parser);
  };
}
