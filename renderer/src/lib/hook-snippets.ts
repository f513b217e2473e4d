/**
 * Ready-to-paste inbound hook URLs and sender configurations (docs/hooks.md), filled with a
 * template's token and Herald's URL.
 */
import type { HookPresetName } from '@contract';

/**
 * The presets in the order the console lists them. A Record over the contract's names, so a
 * preset added there and not here fails the type check (the list itself is zod-side, which
 * the browser bundle does not load).
 */
const ORDER: Record<HookPresetName, number> = {
  alertmanager: 0,
  grafana: 1,
  github: 2,
  'uptime-kuma': 3,
  generic: 4,
};
export const HOOK_PRESET_NAMES = (Object.keys(ORDER) as HookPresetName[]).sort(
  (a, b) => ORDER[a] - ORDER[b],
);

export interface HookSnippetInput {
  /** Herald's origin as the browser sees it, e.g. http://127.0.0.1:8765. */
  origin: string;
  token: string;
  /** Whether the template has a hook secret (the console only knows that, never the secret). */
  hasSecret: boolean;
}

const base = (origin: string) => `${origin.replace(/\/+$/, '')}/api/hooks`;

/** POST /api/hooks/{preset}/{token}. */
export function hookUrl(origin: string, preset: HookPresetName, token: string): string {
  return `${base(origin)}/${preset}/${encodeURIComponent(token)}`;
}

/** POST /api/hooks/{preset}, with the token in `Authorization: Bearer`. */
export function bearerHookUrl(origin: string, preset: HookPresetName): string {
  return `${base(origin)}/${preset}`;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A YAML string in single quotes (a quote inside is doubled). */
const yamlQuote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The sender's configuration for one preset, as its own documentation writes it. */
export function hookSnippet(preset: HookPresetName, input: HookSnippetInput): string {
  const url = hookUrl(input.origin, preset, input.token);
  switch (preset) {
    case 'alertmanager':
      return [
        '# alertmanager.yml',
        'receivers:',
        '  - name: herald',
        '    webhook_configs:',
        `      - url: ${yamlQuote(url)}`,
        '        send_resolved: true',
      ].join('\n');
    case 'grafana':
      return [
        '# Grafana provisioning (alerting/contact-points.yaml), or Contact points → Webhook → URL',
        'apiVersion: 1',
        'contactPoints:',
        '  - orgId: 1',
        '    name: herald',
        '    receivers:',
        '      - uid: herald-webhook',
        '        type: webhook',
        '        settings:',
        `          url: ${yamlQuote(url)}`,
        '          httpMethod: POST',
      ].join('\n');
    case 'github':
      return [
        '# GitHub: repository → Settings → Webhooks → Add webhook',
        `Payload URL:  ${url}`,
        'Content type: application/json',
        `Secret:       ${input.hasSecret ? "the template's hook secret" : '(empty: the token in the URL authorises)'}`,
        'Events:       the ones to hear about (push, pull requests, issues, releases, workflow runs)',
      ].join('\n');
    case 'uptime-kuma':
      return [
        '# Uptime Kuma: Settings → Notifications → Setup Notification',
        'Notification Type: Webhook',
        `Post URL:          ${url}`,
        'Request Body:      Preset - application/json',
      ].join('\n');
    case 'generic':
      return [
        ...(input.hasSecret
          ? ['# The template has a hook secret: sign the body too (docs/hooks.md, "Signatures").']
          : []),
        `curl -sS -X POST ${shellQuote(url)} \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d ${shellQuote(JSON.stringify({ title: 'Deploy finished', deploy: { env: 'production' } }))}`,
      ].join('\n');
  }
}
