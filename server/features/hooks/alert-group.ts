import { AppError } from '../../lib/errors';
import { isRecord, text } from './hook-preset';

/**
 * A notification of Alertmanager's webhook_config (version 4) and of Grafana's webhook contact
 * point, which sends the same group with a few fields more: one group of alerts, each with its
 * status, labels and annotations.
 */
export interface AlertGroup {
  status: string;
  alerts: Alert[];
  groupLabels: Record<string, string>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  externalURL: string;
  groupKey: string;
  receiver: string;
}

export interface Alert {
  status: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const labels = (value: unknown): Record<string, string> =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, text(v)])) : {};

/** Reads the group, tolerating missing maps; refuses a body that is no notification at all. */
export function readAlertGroup(body: unknown, sender: string): AlertGroup {
  if (!isRecord(body) || (body.alerts !== undefined && !Array.isArray(body.alerts))) {
    throw new AppError(
      400,
      `request body is not ${sender}'s webhook notification: expected an object with an "alerts" array`,
    );
  }
  const alerts = ((body.alerts as unknown[] | undefined) ?? []).filter(isRecord).map((a) => ({
    status: text(a.status),
    labels: labels(a.labels),
    annotations: labels(a.annotations),
  }));
  return {
    status: text(body.status),
    alerts,
    groupLabels: labels(body.groupLabels),
    commonLabels: labels(body.commonLabels),
    commonAnnotations: labels(body.commonAnnotations),
    externalURL: text(body.externalURL),
    groupKey: text(body.groupKey),
    receiver: text(body.receiver),
  };
}

/** The distinct non-empty values of a label across the alerts, in order, comma-separated. */
function distinct(group: AlertGroup, pick: (a: Alert) => string | undefined): string {
  return [...new Set(group.alerts.map(pick).filter((v): v is string => !!v))].join(', ');
}

/** A label: the group's common value, else each alert's distinct values. */
export const label = (group: AlertGroup, name: string) =>
  group.commonLabels[name] || distinct(group, (a) => a.labels[name]);

/** An annotation: the group's common value, else the first alert's. */
export const annotation = (group: AlertGroup, name: string) =>
  group.commonAnnotations[name] ||
  (group.alerts.find((a) => a.annotations[name])?.annotations[name] ?? '');

/** The alert name: the group's, else the common label's, else each alert's. */
export const alertName = (group: AlertGroup) =>
  group.groupLabels.alertname || label(group, 'alertname');

/** How many alerts have a status. */
export const countOf = (group: AlertGroup, status: string) =>
  group.alerts.filter((a) => a.status === status).length;

/**
 * Alertmanager's own subject, `[FIRING:2] DiskFull`: the status upper-cased with the number of
 * alerts in it, then the alert name (or the group's label values, as Alertmanager's default
 * template writes them).
 */
export function alertTitle(group: AlertGroup, fallback: string): string {
  const status = group.status || 'unknown';
  const name =
    alertName(group) ||
    Object.values(group.groupLabels).filter(Boolean).join(' ') ||
    group.receiver ||
    fallback;
  return `[${status.toUpperCase()}:${countOf(group, status)}] ${name}`;
}

/** One line per alert: `[firing] DiskFull on db-1: Disk is 95% full`. */
export function alertLines(group: AlertGroup): string {
  return group.alerts
    .map((a) => {
      const name = a.labels.alertname || alertName(group) || 'alert';
      const where = a.labels.instance ? ` on ${a.labels.instance}` : '';
      const what = a.annotations.summary || a.annotations.description;
      return `[${a.status || group.status}] ${name}${where}${what ? `: ${what}` : ''}`;
    })
    .join('\n');
}

/** The placeholders both alert presets fill the same way. */
export function alertPlaceholders(group: AlertGroup): Record<string, string> {
  return {
    status: group.status,
    alertname: alertName(group),
    severity: label(group, 'severity'),
    summary: annotation(group, 'summary'),
    description: annotation(group, 'description'),
    instance: label(group, 'instance'),
    count: String(group.alerts.length),
    firing: String(countOf(group, 'firing')),
    resolved: String(countOf(group, 'resolved')),
    url: group.externalURL,
    alerts: alertLines(group),
  };
}
