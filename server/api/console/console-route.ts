import type { Router } from 'express';

import { CONSOLE_BASE } from '../../../contract';
import { contractRoutes } from '../contract-route';
import { accessGuard } from './route-access';

/**
 * Registers console routes on a router: each is parsed from the contract and, before that,
 * checked against ROUTE_ACCESS, so no console route can be served without a role decided.
 */
export function consoleRoutesOn(router: Router) {
  return contractRoutes(router, CONSOLE_BASE, accessGuard);
}
