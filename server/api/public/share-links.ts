import type { AppContext } from '../../context';
import { Delivery } from '../../db/models';
import { previewUrl } from '../../domain/preview-keys';

/** The address share links start with: the `publicBaseUrl` setting, else Herald's own. */
export function publicBaseUrl(ctx: AppContext): string {
  return ctx.settings.get().publicBaseUrl || ctx.listenUrl();
}

/** The absolute link that opens a hosted message by its key, without login. */
export function shareLinkOf(ctx: AppContext, key: string): string {
  return previewUrl(publicBaseUrl(ctx), key);
}

/**
 * The key a hosted delivery's message is stored with: chosen when the send was accepted and
 * answered as `hostMessageUrl`. Channel tests (no delivery) and rows from before share links
 * get none.
 */
export async function previewKeyOfDelivery(deliveryId: number | null): Promise<string | null> {
  if (deliveryId === null) return null;
  const row = await Delivery.findByPk(deliveryId, { attributes: ['id', 'previewKey'] });
  return row?.previewKey ?? null;
}
