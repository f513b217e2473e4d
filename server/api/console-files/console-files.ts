/**
 * The built console (renderer/dist) over HTTP: its files, compressed where the build wrote a
 * copy (scripts/precompress-assets.ts) and the request accepts it, cached for a year where the
 * name carries the content's hash, and index.html for every other path so the console's
 * history-mode routes load (docs/architecture.md, "The console's files").
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

import type { NextFunction, Request, RequestHandler, Response } from 'express';

import { sendEnvelope } from '../../lib/envelope';
import { pickCoding, type ContentCoding } from './content-coding';

/** The copies' suffixes, as the build names them; the order is the server's preference. */
const COPIES: readonly { coding: ContentCoding; suffix: string }[] = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
];

/**
 * A file the build named after its content (Vite's `assets/[name]-[hash][extname]`, set in
 * renderer/vite.config.ts): new content gets a new name, so a copy never goes stale.
 */
const HASHED_ASSET = /^\/assets\/[^/]+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$/;

/** For hashed names: any cache may keep it a year and never ask again. */
export const CACHE_FOREVER = 'public, max-age=31536000, immutable';
/**
 * For everything else, index.html first: kept, but asked about (a 304 when unchanged) on every
 * use, so the first load after an upgrade already gets the new console.
 */
export const CACHE_REVALIDATE = 'no-cache';

/**
 * The installable reader's files at the root (renderer/vite.config.ts, VitePWA): the service
 * worker and the web app manifest. Both are revalidated on each use like index.html (a
 * browser checks for a new worker on every navigation; a year-long copy would pin an old one),
 * and a missing one is a 404, never index.html, which a browser would refuse as a worker
 * script or a manifest only after registering it as one.
 */
const READER_FILES = new Set(['/sw.js', '/manifest.webmanifest']);

/** The Cache-Control of a file of the console at this URL path. */
export function cacheControlFor(urlPath: string): string {
  return HASHED_ASSET.test(urlPath) ? CACHE_FOREVER : CACHE_REVALIDATE;
}

async function fileStats(path: string): Promise<Stats | null> {
  try {
    const stats = await stat(path);
    return stats.isFile() ? stats : null;
  } catch {
    return null;
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await fileStats(path)) !== null;
}

/**
 * The file under `root` that a URL path names, or null: no escape from `root`, no dot-file or
 * dot-folder (the build writes none), and folders are not files.
 */
async function fileAt(root: string, urlPath: string): Promise<string | null> {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (relative.includes('\0') || relative.split(/[\\/]/).some((part) => part.startsWith('.'))) {
    return null;
  }
  const file = resolve(root, `.${relative}`);
  if (!file.startsWith(root + sep)) return null;
  return (await isFile(file)) ? file : null;
}

function notFound(req: Request, res: Response): void {
  res.setHeader('Cache-Control', CACHE_REVALIDATE);
  sendEnvelope(res, 404, `no such file: ${req.path}`, null);
}

/** Forgets what was set for the file, so that an error goes out as the plain envelope. */
function dropFileHeaders(res: Response): void {
  for (const name of ['Content-Encoding', 'Content-Type', 'Vary', 'Cache-Control', 'ETag']) {
    res.removeHeader(name);
  }
}

/**
 * Sends `file`, or its copy in the coding the request prefers. Every answer for a file that has
 * copies says `Vary: Accept-Encoding`, the plain one included, so that no shared cache hands
 * brotli to a client that cannot read it. HEAD, conditional requests (ETag, Last-Modified) and
 * Range are send's, applied to the representation chosen: a range of a compressed answer counts
 * bytes of the compressed copy, as RFC 9110 has it.
 */
async function sendConsoleFile(
  req: Request,
  res: Response,
  next: NextFunction,
  file: string,
  cacheControl: string,
): Promise<void> {
  const present = await Promise.all(COPIES.map((copy) => isFile(file + copy.suffix)));
  const copies = COPIES.filter((_, i) => present[i]);
  const coding = pickCoding(
    req.get('accept-encoding'),
    copies.map((copy) => copy.coding),
  );
  const copy = copies.find((c) => c.coding === coding);
  const chosen = copy ? file + copy.suffix : file;
  const stats = await fileStats(chosen);
  if (stats === null) {
    notFound(req, res);
    return;
  }
  if (copies.length > 0) res.vary('Accept-Encoding');
  res.setHeader('Cache-Control', cacheControl);
  // The type is the file's own, whatever the copy's name.
  res.type(extname(file));
  if (copy) res.setHeader('Content-Encoding', copy.coding);
  // The app turns Express's ETags off for the API's answers, and send follows that setting; a
  // file's validator is set here instead, one per representation, and send answers 304 by it.
  res.setHeader(
    'ETag',
    `W/"${coding ?? 'identity'}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
  );
  res.sendFile(
    chosen,
    // Dot-files were refused above; send's own check would look at every folder of the
    // absolute path, an install under ~/.local included.
    { dotfiles: 'allow', cacheControl: false },
    (err?: Error & { code?: string; status?: number }) => {
      if (!err || res.headersSent) return;
      dropFileHeaders(res);
      // Gone between the look and the read: a rebuild of the console under a running Herald.
      if (err.status === 404 || err.code === 'ENOENT') notFound(req, res);
      else next(err);
    },
  );
}

/**
 * The console's files and its history-mode fallback, for GET and HEAD; mounted after every API
 * route. A missing file under /assets/ is a 404: index.html in its place would reach a browser
 * holding an old page as a script it cannot run. So is a missing service worker or manifest.
 */
export function consoleFiles(rendererDir: string): RequestHandler {
  const root = resolve(rendererDir);
  const indexHtml = join(root, 'index.html');
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    void (async () => {
      const file = await fileAt(root, req.path);
      if (file !== null) {
        await sendConsoleFile(req, res, next, file, cacheControlFor(req.path));
      } else if (req.path.startsWith('/assets/') || READER_FILES.has(req.path)) {
        notFound(req, res);
      } else {
        await sendConsoleFile(req, res, next, indexHtml, CACHE_REVALIDATE);
      }
    })().catch(next);
  };
}
