import type { Mentions } from '../../channels/channel-adapter';
import type { Task } from '../../db/models';
import { hasAnyBody, type Bodies } from '../../domain/content-format';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { AttemptResult } from '../../queue/dispatcher';
import type { ResolvedSource } from './credential-resolver';
import { checkRecipients, hostMessageUrl, planDeliveries } from './delivery-plan';
import type { SendResponse } from './send-service';
import { dedupOf, redact, type SendFiles, type SendOrigin } from './send-rows';
import type { V1Request } from '../../../contract';
import { storeSend, type StoreSendDeps } from './store-send';
import { summariseV1 } from './v1-answer';

/** What a V1 send uses of the composed parts. */
export type V1SendDeps = Pick<HeraldParts, 'deliveries' | 'dispatcher' | 'settings' | 'listenUrl'> &
  Pick<StoreSendDeps, 'digests'>;

/**
 * A V1 send to the task its credential opened: the request's own content and mentions,
 * stored, then answered at once (`mode: async`) or once the attempts are known.
 */
export async function sendV1(
  deps: V1SendDeps,
  req: V1Request,
  resolved: ResolvedSource<Task>,
  origin?: SendOrigin,
  files?: SendFiles,
): Promise<SendResponse> {
  const { source: task, targets } = resolved;
  const bodies: Bodies = { text: req.text, html: req.html, markdown: req.markdown };
  if (!hasAnyBody(bodies))
    throw new AppError(400, 'text, html, markdown: at least one must be given');
  if (targets.all === 0)
    throw new AppError(400, `task "${task.name}" has no instances; add one in the console`);
  if (targets.enabled.length === 0)
    throw new AppError(400, `task "${task.name}" has no enabled instances`);
  const recipients = checkRecipients(targets.enabled, req.recipients);
  const dedup = dedupOf(req);
  const requestMentions: Mentions = {
    mobiles: req.at_mobiles ?? [],
    userIds: [...(req.at_userids ?? []), ...(req.at_user_ids ?? [])],
    all: req.at_all ?? false,
  };
  const planned = planDeliveries(targets.enabled, bodies, recipients, requestMentions);
  const digest = await deps.digests?.planFor(
    { taskId: task.id },
    targets.enabled.map((t) => t.instance.id),
    req.priority ?? null,
    req.digestKey,
  );
  // A share link only for a hosted instance that stores the message now, not in a digest.
  const collecting = digest?.instanceIds;
  const host = hostMessageUrl(
    deps,
    collecting ? planned.filter((p) => !collecting.has(p.target.instance.id)) : planned,
  );
  const { send, deliveries, suppressedBy, collectedUntil } = await storeSend(deps, {
    api: 'v1',
    taskId: task.id,
    templateId: null,
    sourceName: task.name,
    title: req.title,
    bodies,
    url: req.url ?? null,
    request: redact(req),
    planned,
    origin,
    credential: resolved.credentialKind,
    priority: req.priority ?? null,
    dedup,
    ...(files && { files }),
    ...(digest && { digest }),
  });
  if (suppressedBy !== null) {
    return {
      code: 200,
      msg: 'success',
      data: {
        status: 'suppressed',
        sendId: send.id,
        deduplicated: true,
        firstSendId: suppressedBy,
      },
    };
  }
  const dedupAnswer = dedup && { deduplicated: false };
  const digestAnswer = collectedUntil !== undefined && {
    digest: { until: new Date(collectedUntil).toISOString() },
  };
  if (collectedUntil !== undefined && deliveries.length === 0) {
    return {
      code: 200,
      msg: 'success',
      data: {
        status: 'collected',
        sendId: send.id,
        ...dedupAnswer,
        ...digestAnswer,
      },
    };
  }
  if (req.mode === 'async') {
    return {
      code: 200,
      msg: 'success',
      data: { status: 'queued', sendId: send.id, ...host, ...dedupAnswer, ...digestAnswer },
    };
  }
  const waiting = deliveries.filter((d) => !d.stored);
  const results =
    waiting.length > 0
      ? await deps.dispatcher.waitForAttempts(
          waiting.map((d) => d.id),
          deps.settings.get().v1WaitMs,
        )
      : new Map<number, AttemptResult>();
  for (const d of deliveries) if (d.stored) results.set(d.id, d.stored);
  const answer = summariseV1(send.id, deliveries, results);
  return answer.code === 200
    ? { ...answer, data: { ...(answer.data as object), ...host, ...dedupAnswer, ...digestAnswer } }
    : answer;
}
