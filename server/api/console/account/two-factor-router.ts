import { Router, type Request, type Response } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { AuthService } from '../../../features/auth/auth-service';
import {
  requiredByAdmin,
  wrongCode,
  type TwoFactorService,
} from '../../../features/auth/two-factor-service';
import { AppError } from '../../../lib/errors';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.twoFactor;

/** What the two-factor routes borrow from the sign-in routes: the throttle for typed secrets. */
export interface ThrottledCheck {
  throttledCheck(
    req: Request,
    res: Response,
    what: string,
    check: () => Promise<boolean>,
  ): Promise<boolean>;
}

/** The signed-in person's second factor (docs/security.md "Two-factor sign-in"). */
export function createTwoFactorRouter(
  twoFactor: TwoFactorService,
  auth: AuthService,
  parts: ThrottledCheck,
): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.status, (_input, req) => twoFactor.status(req.user!.id));
  serve(routes.setup, (_input, req) => twoFactor.setup(req.user!.id));
  // Confirming a secret just set up is not guessing anyone's factor: no throttle.
  serve(routes.enable, async ({ body }, req) => ({
    recoveryCodes: await twoFactor.enable(req.user!.id, body.code),
  }));
  serve(routes.disable, async ({ body }, req, res) => {
    if (twoFactor.required()) throw requiredByAdmin();
    const right = await parts.throttledCheck(req, res, 'wrong passwords', async () =>
      Boolean(await auth.verify(req.user!.username, body.password)),
    );
    if (!right) throw new AppError(400, 'password: is not correct');
    await twoFactor.disable(req.user!.id);
    return null;
  });
  // A session alone must not mint codes that outlive it: the factor itself is asked for.
  serve(routes.recoveryCodes, async ({ body }, req, res) => {
    const status = await twoFactor.status(req.user!.id);
    if (!status.enabled) throw new AppError(409, 'two-factor: it is off; turn it on first');
    const right = await parts.throttledCheck(req, res, 'wrong codes', () =>
      twoFactor.verify(req.user!.id, body.code),
    );
    if (!right) throw wrongCode();
    return { recoveryCodes: await twoFactor.regenerateRecoveryCodes(req.user!.id) };
  });
  return router;
}
