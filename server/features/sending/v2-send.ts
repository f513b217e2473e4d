import type { ContentType, Mentions } from '../../channels/channel-adapter';
import type { Template } from '../../db/models';
import { hasAnyBody, type Bodies } from '../../domain/content-format';
import { splitList } from '../../domain/lists';
import { placeholderWarnings } from '../../domain/placeholder-warnings';
import {
  fillPlaceholders,
  normalisePlaceholderValues,
  withRepeats,
} from '../../domain/placeholders';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { ResolvedSource } from './credential-resolver';
import { checkFilledSize, checkRecipients, hostMessageUrl, planDeliveries } from './delivery-plan';
import { dedupOf, redact, type SendFiles, type SendOrigin } from './send-rows';
import type { SendResponse } from './send-service';
import type { V2Request } from '../../../contract';
import { storeSend, type RenderWithRepeats, type StoreSendDeps } from './store-send';
import { textUse, textWarning } from './v2-text';

/** The contract's V2 msg strings, verbatim. */
export const V2_MSG = {
  tokenParseFailed: 'token解析失败',
  templateNotFound: '模板不存在',
  templateDisabled: '模板已禁用',
  noInstances: '模板没有配置发送实例',
  noEnabledInstances: '模板没有启用的发送实例',
} as const;

/** What a V2 send uses of the composed parts. */
export type V2SendDeps = Pick<HeraldParts, 'deliveries' | 'dispatcher' | 'settings' | 'listenUrl'> &
  Pick<StoreSendDeps, 'digests'>;

/**
 * A V2 send of the template its token opened, filled with the request's placeholder values;
 * answered once stored, never waiting for an attempt.
 */
export async function sendV2(
  deps: V2SendDeps,
  req: V2Request,
  resolved: ResolvedSource<Template>,
  origin?: SendOrigin,
  files?: SendFiles,
): Promise<SendResponse> {
  // The contract's processing order: token, template (resolveTemplate), enabled,
  // placeholders, instances.
  const { source: template, targets } = resolved;
  if (!template.enabled) throw new AppError(400, V2_MSG.templateDisabled);
  const given = normalisePlaceholderValues(req.placeholders ?? {});
  const dedup = dedupOf(req);
  const definitions = withRepeats(template.placeholders);
  const { text, html, markdown } = template;
  // The request's `text` (herald send's): {{text}}'s value, or the content itself (v2-text.ts).
  const use = textUse({ text, html, markdown }, req.text, given);
  const values = use.kind === 'placeholder' ? { ...given, text: use.text } : given;
  const asContent = use.kind === 'content' ? use.bodies : null;
  if (!asContent) checkFilledSize({ text, html, markdown, placeholders: definitions }, values);
  const textWarned = textWarning(use, template.name);
  const warnings = [
    // The template's markers are not sent when the text replaced them: nothing to warn about.
    ...(asContent
      ? []
      : placeholderWarnings(
          { name: template.name, text, html, markdown, placeholders: definitions },
          values,
        )),
    ...(textWarned ? [textWarned] : []),
  ];
  const fillAll = (filled: Record<string, string>): Bodies => {
    if (asContent) return asContent;
    const fill = (body: string | null, format: ContentType) =>
      body ? fillPlaceholders(body, definitions, filled, format) : null;
    return {
      text: fill(template.text, 'text'),
      html: fill(template.html, 'html'),
      markdown: fill(template.markdown, 'markdown'),
    };
  };
  const bodies = fillAll(values);
  if (targets.all === 0) throw new AppError(400, V2_MSG.noInstances);
  if (targets.enabled.length === 0) throw new AppError(400, V2_MSG.noEnabledInstances);
  if (!hasAnyBody(bodies)) {
    throw new AppError(
      400,
      `template "${template.name}" has no content: fill its text, HTML or Markdown body`,
    );
  }
  const recipients = checkRecipients(targets.enabled, req.recipients);
  const templateMentions: Mentions = {
    mobiles: splitList(template.atMobiles),
    userIds: splitList(template.atUserIds),
    all: template.atAll,
  };
  const planned = planDeliveries(targets.enabled, bodies, recipients, templateMentions);
  // The count of sends the key suppressed is known inside the accept: the bodies are filled
  // again with it there (the same targets, so the same plan and share link), inside the write
  // transaction: only when the count changes what was filled (usually it is 0, as filled).
  const filledRepeats = values.repeats ?? definitions.find((d) => d.key === 'repeats')?.default;
  const render: RenderWithRepeats = (repeats) => {
    if (asContent || filledRepeats === String(repeats)) return { bodies, planned };
    const again = fillAll({ ...values, repeats: String(repeats) });
    return {
      bodies: again,
      planned: planDeliveries(targets.enabled, again, recipients, templateMentions).map((p, i) => ({
        ...p,
        previewKey: planned[i].previewKey,
      })),
    };
  };
  const digest = await deps.digests?.planFor(
    { templateId: template.id },
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
  const stored = await storeSend(
    deps,
    {
      api: 'v2',
      taskId: null,
      templateId: template.id,
      sourceName: template.name,
      title: req.title,
      bodies,
      url: req.url ?? null,
      request: redact(req),
      planned,
      origin,
      credential: resolved.credentialKind,
      priority: req.priority ?? null,
      dedup,
      warnings,
      ...(files && { files }),
      ...(digest && { digest }),
    },
    render,
  );
  // Only when there are any: the contract's answer is `{token, count}`, and a script that
  // compares it whole keeps working until a send of its goes wrong.
  const warned = warnings.length > 0 && { warnings: warnings.map((w) => w.message) };
  if (stored.suppressedBy !== null) {
    return {
      code: 200,
      msg: 'success',
      data: {
        token: req.token,
        count: 0,
        deduplicated: true,
        firstSendId: stored.suppressedBy,
        ...warned,
      },
    };
  }
  if (stored.collectedUntil !== undefined) {
    // `count`: the instances it was queued to now; those that collect it deliver it later.
    return {
      code: 200,
      msg: 'success',
      data: {
        token: req.token,
        count: collecting
          ? targets.enabled.filter((t) => !collecting.has(t.instance.id)).length
          : 0,
        ...(collecting && host),
        ...(dedup && { deduplicated: false }),
        digest: { until: new Date(stored.collectedUntil).toISOString() },
        ...warned,
      },
    };
  }
  return {
    code: 200,
    msg: 'success',
    data: {
      token: req.token,
      count: targets.enabled.length,
      ...host,
      ...(dedup && { deduplicated: false }),
      ...warned,
    },
  };
}
