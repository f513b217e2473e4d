import { describe, expect, it } from 'vitest';

import { consoleRoutes, type RouteSpec } from '../../../../../contract';
import { routeAuditTable } from '../../../../../server/api/console/audit/route-audit';
import type { AuditStates } from '../../../../../server/features/audit/audit-states';

/**
 * Changes the table leaves out on purpose, with why: the auth router records sign-ins, sign-outs,
 * setup and password changes itself (the account router the first sign-in of an invite); a two-factor secret awaiting its first code changes nothing yet; the rest change nothing of Herald's configuration.
 */
const NOT_RECORDED_BY_THE_TABLE = new Set([
  'auth.setup',
  'auth.login',
  'auth.logout',
  'auth.password',
  'account.password',
  'account.acceptInvite',
  'twoFactor.setup',
  'channels.testUnsaved',
  'channels.test',
  'templates.previewUnsaved',
  'templates.preview',
  'messages.readAll',
  'messages.setRead',
  'imageProxy.setAlways',
  'imageProxy.setMessage',
  'imageProxy.setSource',
  // The sign-in router records Settings → Sign-in itself: the table's diff would show the secret.
  'signIn.updateSettings',
]);

describe('the route audit table', () => {
  const table = routeAuditTable({} as AuditStates) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  const routes = Object.entries(consoleRoutes).flatMap(([feature, specs]) =>
    Object.entries(specs as Record<string, RouteSpec>).map(([name, spec]) => ({
      key: `${feature}.${name}`,
      spec,
      rule: table[feature]?.[name],
    })),
  );

  it('has an entry for every console route, and none for a route that does not exist', () => {
    for (const { key, rule } of routes) expect(rule, key).not.toBeUndefined();
    const known = new Set(routes.map((r) => r.key));
    for (const [feature, rules] of Object.entries(table))
      for (const name of Object.keys(rules))
        expect(known, `${feature}.${name}`).toContain(`${feature}.${name}`);
  });

  it('records every route that changes something, and no read', () => {
    for (const { key, spec, rule } of routes) {
      if (spec.method === 'get') expect(rule, key).toBeNull();
      else if (NOT_RECORDED_BY_THE_TABLE.has(key)) expect(rule, key).toBeNull();
      else expect(rule, key).toMatchObject({ action: expect.stringMatching(/^[a-z]+\.[a-z-]+$/) });
    }
  });
});
