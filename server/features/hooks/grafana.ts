import { alertPlaceholders, alertTitle, readAlertGroup } from './alert-group';
import { at, presetValues, type HookPreset } from './hook-preset';

/**
 * Grafana's webhook contact point (unified alerting): Alertmanager's group with Grafana's own
 * `title` and `message`. Placeholders: status, title, message, count, url (externalURL),
 * alertname, severity, summary, and the Alertmanager preset's others (description, instance,
 * firing, resolved, alerts). The title is Grafana's (runs of spaces folded), else
 * Alertmanager's style. No dedup key of its own: Grafana's groupKey is often `{}:{}` for every
 * group, which would hold back unrelated alerts.
 */
export const grafanaPreset: HookPreset = {
  name: 'grafana',
  contentType: 'json',
  toMessage(body) {
    const group = readAlertGroup(body, 'Grafana');
    const title = at(body, 'title').replace(/\s+/g, ' ').trim();
    return {
      title: title || alertTitle(group, 'Grafana'),
      ...presetValues(body, {
        ...alertPlaceholders(group),
        title,
        message: at(body, 'message'),
      }),
    };
  },
};
