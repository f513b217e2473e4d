import { previewUrl } from '../../domain/preview-keys';
import type { HeraldParts } from '../../parts';

/** What building a share link reads: the `publicBaseUrl` setting and Herald's own address. */
export type ShareLinkDeps = Pick<HeraldParts, 'settings' | 'listenUrl'>;

/** The address share links start with: the `publicBaseUrl` setting, else Herald's own. */
export function publicBaseUrl(deps: ShareLinkDeps): string {
  return deps.settings.get().publicBaseUrl || deps.listenUrl();
}

/** The absolute link that opens a hosted message by its key, without login. */
export function shareLinkOf(deps: ShareLinkDeps, key: string): string {
  return previewUrl(publicBaseUrl(deps), key);
}
