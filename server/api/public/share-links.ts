import type { AppContext } from '../../context';
import { previewUrl } from '../../domain/preview-keys';

/** The address share links start with: the `publicBaseUrl` setting, else Herald's own. */
export function publicBaseUrl(ctx: AppContext): string {
  return ctx.settings.get().publicBaseUrl || ctx.listenUrl();
}

/** The absolute link that opens a hosted message by its key, without login. */
export function shareLinkOf(ctx: AppContext, key: string): string {
  return previewUrl(publicBaseUrl(ctx), key);
}
