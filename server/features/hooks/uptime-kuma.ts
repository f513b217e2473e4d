import { at, isRecord, presetValues, type HookPreset } from './hook-preset';
import { AppError } from '../../lib/errors';

/** Uptime Kuma's heartbeat statuses (server/model/heartbeat.js: 0 down, 1 up, 2 pending, 3 maintenance). */
const STATUSES: Record<string, string> = {
  '0': 'down',
  '1': 'up',
  '2': 'pending',
  '3': 'maintenance',
};

/**
 * Uptime Kuma's webhook notification (server/notification-providers/webhook.js, JSON body):
 * `{heartbeat, monitor, msg}`, both null for the "Test" button. Placeholders: name (the
 * monitor's), status (up, down, pending or maintenance; empty for a test), msg (Uptime
 * Kuma's own line, `[name] [🔴 Down] reason`), url (the monitor's URL, else its host name).
 * The title is that line.
 */
export const uptimeKumaPreset: HookPreset = {
  name: 'uptime-kuma',
  contentType: 'json',
  toMessage(body) {
    if (!isRecord(body) || typeof body.msg !== 'string') {
      throw new AppError(
        400,
        'request body is not an Uptime Kuma webhook notification: expected {heartbeat, monitor, msg} (set its Request Body to "Preset - application/json")',
      );
    }
    const status = STATUSES[at(body, 'heartbeat.status')] ?? '';
    const url = at(body, 'monitor.url');
    const name = at(body, 'monitor.name');
    return {
      title: body.msg || name || 'Uptime Kuma',
      ...presetValues(body, {
        name,
        status,
        msg: body.msg,
        // Uptime Kuma's own notifiers skip a URL that is only a scheme (monitors without one).
        url: url && !/^https?:\/\/$/.test(url) ? url : at(body, 'monitor.hostname'),
      }),
    };
  },
};
