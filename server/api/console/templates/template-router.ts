import { Router } from 'express';

import { ok } from '../../../lib/envelope';
import { parsePaging } from '../../../lib/paging';
import { parseId, parseInput } from '../../../lib/validation';
import { instanceCreateSchema } from '../../../features/targets/instance-schemas';
import type { InstanceService } from '../../../features/targets/instance-service';
import { previewSchema, templateCreateSchema, templatePatchSchema } from '../../../features/targets/template-schemas';
import type { TemplateService } from '../../../features/targets/template-service';

export function createTemplateRouter(
  templates: TemplateService,
  instances: InstanceService,
): Router {
  const router = Router();
  router.get('/templates', async (req, res) => {
    const name = typeof req.query.name === 'string' && req.query.name ? req.query.name : undefined;
    ok(res, await templates.list(name, parsePaging(req.query)));
  });
  router.post('/templates', async (req, res) =>
    ok(res, await templates.create(parseInput(templateCreateSchema, req.body))),
  );
  router.post('/templates/preview', (req, res) => {
    ok(
      res,
      templates.preview(
        { placeholders: [], text: null, html: null, markdown: null },
        parseInput(previewSchema, req.body),
      ),
    );
  });
  router.get('/templates/:id', async (req, res) =>
    ok(res, await templates.detail(parseId(req.params.id))),
  );
  const update = async (req: import('express').Request, res: import('express').Response) =>
    ok(
      res,
      await templates.update(parseId(req.params.id), parseInput(templatePatchSchema, req.body)),
    );
  router.put('/templates/:id', update);
  router.patch('/templates/:id', update);
  router.delete('/templates/:id', async (req, res) => {
    await templates.remove(parseId(req.params.id));
    ok(res, null);
  });
  router.get('/templates/:id/token', async (req, res) =>
    ok(res, { token: await templates.token(parseId(req.params.id)) }),
  );
  router.post('/templates/:id/token/rotate', async (req, res) =>
    ok(res, { token: await templates.rotateToken(parseId(req.params.id)) }),
  );
  router.post('/templates/:id/preview', async (req, res) => {
    const t = await templates.get(parseId(req.params.id));
    ok(res, templates.preview(t, parseInput(previewSchema, req.body ?? {})));
  });
  router.get('/templates/:id/instances', async (req, res) => {
    const id = parseId(req.params.id);
    await templates.get(id);
    ok(res, await instances.listFor({ kind: 'template', id }));
  });
  router.post('/templates/:id/instances', async (req, res) => {
    const id = parseId(req.params.id);
    await templates.get(id);
    ok(
      res,
      await instances.create({ kind: 'template', id }, parseInput(instanceCreateSchema, req.body)),
    );
  });
  return router;
}
