import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { InstanceService } from '../../../features/sources/instance-service';
import type { TemplateService } from '../../../features/sources/template-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.templates;

/** What an unsaved template starts from: no placeholders, no bodies. */
const UNSAVED = { placeholders: [], text: null, html: null, markdown: null };

export function createTemplateRouter(
  templates: TemplateService,
  instances: InstanceService,
): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) => templates.list(query.name, pagingOf(query)));
  serve(routes.create, ({ body }) => templates.create(body));
  // Before /templates/:id, which would read "preview" as an id.
  serve(routes.previewUnsaved, ({ body }) => templates.preview(UNSAVED, body));
  serve(routes.get, ({ params }) => templates.detail(params.id));
  serve(routes.update, ({ params, body }) => templates.update(params.id, body));
  serve(routes.patch, ({ params, body }) => templates.update(params.id, body));
  serve(routes.remove, async ({ params }) => {
    await templates.remove(params.id);
    return null;
  });
  serve(routes.token, async ({ params }) => ({ token: await templates.token(params.id) }));
  serve(routes.rotateToken, async ({ params }) => ({
    token: await templates.rotateToken(params.id),
  }));
  serve(routes.preview, async ({ params, body }) =>
    templates.preview(await templates.get(params.id), body),
  );
  serve(routes.instances, async ({ params }) => {
    await templates.get(params.id);
    return instances.listFor({ kind: 'template', id: params.id });
  });
  serve(routes.addInstance, async ({ params, body }) => {
    await templates.get(params.id);
    return instances.create({ kind: 'template', id: params.id }, body);
  });
  return router;
}
