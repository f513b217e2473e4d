import { alertPlaceholders, alertTitle, readAlertGroup } from './alert-group';
import { presetValues, type HookPreset } from './hook-preset';

/**
 * Prometheus Alertmanager's webhook_config (payload version 4): one notification per alert
 * group. Placeholders: status, alertname, severity, summary, description, instance, count,
 * firing, resolved, url (externalURL), alerts (one line per alert); title `[FIRING:2] DiskFull`.
 * Alertmanager repeats a group's notification while it stays the same, so the group and its
 * status are the dedup key unless the query names one.
 */
export const alertmanagerPreset: HookPreset = {
  name: 'alertmanager',
  contentType: 'json',
  toMessage(body) {
    const group = readAlertGroup(body, 'Alertmanager');
    return {
      title: alertTitle(group, 'Alertmanager'),
      ...presetValues(body, alertPlaceholders(group)),
      dedupKey: group.groupKey ? `${group.groupKey}:${group.status}` : undefined,
    };
  },
};
