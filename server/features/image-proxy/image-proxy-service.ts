import { join } from 'node:path';

import { AppError } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { fetchRemote, RemoteFetchError, type RemoteFetchOptions } from '../../lib/remote-fetch';
import type { HeraldParts } from '../../parts';
import type { MessageImages } from '../hosted/message-service';
import { IMAGE_CACHE_FOLDER, ImageCache, type CachedImage } from './image-cache';
import { ImageSigner } from './image-signing';
import { sniffImageType } from './image-sniff';
import { RemoteImageChoiceService } from './remote-image-choices';

const log = createLogger('image-proxy');

/** The largest image the proxy passes on. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** What the cache in the data folder may hold in all. */
export const IMAGE_CACHE_BYTES = 50 * 1024 * 1024;
/** One image's whole fetch, redirects and body included. */
const FETCH_TIMEOUT_MS = 15_000;

/** What ImageProxyService uses of the composed parts, and the server key it signs with. */
export type ImageProxyDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'settings' | 'clock' | 'dataDir'
> & {
  masterKey: Buffer;
  /** The guarded fetch (server/lib/remote-fetch.ts) unless given. */
  fetch?: (url: string, options: RemoteFetchOptions) => ReturnType<typeof fetchRemote>;
  cacheBytes?: number;
};

/**
 * The image proxy: a hosted message's remote images are fetched by Herald, never by the
 * reader's browser, so the sender learns neither when the message was read nor from where.
 * Only addresses Herald signed pass (see ImageSigner); only images (by their bytes, SVG never)
 * up to MAX_IMAGE_BYTES are passed on and cached.
 */
export class ImageProxyService {
  readonly signer: ImageSigner;
  /** Each person's choices: which messages' images their reader shows without asking. */
  readonly choices: RemoteImageChoiceService;
  private readonly cache: ImageCache;
  /** One fetch per address at a time: a message with the same image twice fetches it once. */
  private readonly inFlight = new Map<string, Promise<CachedImage>>();

  constructor(private readonly deps: ImageProxyDeps) {
    const nowMs = () => deps.clock.now();
    this.signer = new ImageSigner(deps.masterKey, nowMs);
    this.choices = new RemoteImageChoiceService(deps);
    this.cache = new ImageCache(
      join(deps.dataDir, IMAGE_CACHE_FOLDER),
      deps.cacheBytes ?? IMAGE_CACHE_BYTES,
      nowMs,
    );
  }

  /** What the hosted messages' service needs: signed addresses and each person's choice. */
  messageImages(): MessageImages {
    return {
      proxied: (src) => this.signer.proxied(src),
      forMessage: (userId, messageId) => this.choices.forMessage(userId, messageId),
    };
  }

  /** The image a signed address names, from the cache or the remote server. */
  async image(query: { url: string; exp: number; sig: string }): Promise<CachedImage> {
    this.signer.check(query.url, query.exp, query.sig);
    const cached = this.cache.get(query.url);
    if (cached) return cached;
    const running = this.inFlight.get(query.url);
    if (running) return running;
    const fetching = this.fetchImage(query.url).finally(() => this.inFlight.delete(query.url));
    this.inFlight.set(query.url, fetching);
    return fetching;
  }

  private async fetchImage(url: string): Promise<CachedImage> {
    let body: Buffer;
    try {
      ({ body } = await (this.deps.fetch ?? fetchRemote)(url, {
        maxBytes: MAX_IMAGE_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
        allowPrivateAddresses: this.deps.settings.get().allowPrivateAddresses,
        // Only what any image request carries: no cookie, no Referer, no client address.
        headers: { accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/*;q=0.8' },
      }));
    } catch (err) {
      if (!(err instanceof RemoteFetchError)) throw err;
      throw new AppError(
        remoteFailureStatus(err),
        `the image could not be fetched: ${err.message}`,
      );
    }
    const type = sniffImageType(body);
    if (type === null) {
      throw new AppError(
        415,
        'the remote answer is not an image Herald passes on (PNG, JPEG, GIF, WebP, AVIF, BMP or ICO; never SVG or HTML)',
      );
    }
    const image = { type, body };
    try {
      this.cache.put(url, image);
    } catch (err) {
      // A full or unwritable data folder costs the cache, not the reader's image.
      log.warn(`an image could not be kept in the cache: ${String(err)}`);
    }
    return image;
  }
}

function remoteFailureStatus(err: RemoteFetchError): 400 | 403 | 413 {
  if (err.failure === 'blocked-address') return 403;
  return err.status;
}
