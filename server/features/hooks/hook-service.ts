import { createHash } from 'node:crypto';

import type { Template } from '../../db/models';
import { AppError } from '../../lib/errors';
import { parseInput } from '../../lib/validation';
import type { HeraldParts } from '../../parts';
import type { ResolvedSource, SendResponse } from '../sending/send-service';
import { V2_MSG } from '../sending/v2-messages';
import {
  isHookPreset,
  LIMITS,
  v2RequestSchema,
  type HookPresetName,
  type HookQuery,
  type V2Request,
} from '../../../contract';
import { clip, type HookHeaders, type HookPreset } from './hook-preset';
import { verifyHookSignature, type SignatureScheme } from './hook-signature';
import { HOOK_PRESET_TABLE } from './presets';

/** What HookService uses of the composed parts. */
export type HookServiceDeps = Pick<HeraldParts, 'sends' | 'secrets' | 'clock'>;

/** One hook request as the route read it. */
export interface HookCall {
  preset: HookPreset;
  token: string;
  body: unknown;
  /** The body's bytes as received (decompressed), which signatures are computed over. */
  rawBody: Buffer;
  headers: HookHeaders;
  query: HookQuery;
}

/**
 * The signatures each preset accepts when its template has a secret. GitHub signs one way;
 * the senders that cannot sign at all (Alertmanager, Grafana's webhook, Uptime Kuma) accept
 * what generic senders may use, for a signing proxy in front of them (docs/hooks.md).
 */
const SCHEMES: Record<HookPresetName, readonly SignatureScheme[]> = {
  github: ['hub'],
  generic: ['standard', 'hub'],
  alertmanager: ['standard', 'hub'],
  grafana: ['standard', 'hub'],
  'uptime-kuma': ['standard', 'hub'],
};

/** A preset's dedup key as V2 takes it: a key longer than V2 allows is hashed, not refused. */
function dedupKeyOf(key: string | undefined): string | undefined {
  const trimmed = key?.trim();
  if (!trimmed) return undefined;
  if (trimmed.length <= LIMITS.dedupKeyChars) return trimmed;
  return `sha256:${createHash('sha256').update(trimmed).digest('hex')}`;
}

/**
 * Inbound hooks (issue 24, part 2): a payload becomes a V2 send of the template the token
 * opens, through the send service's own steps (resolveTemplate, sendV2), so placeholders,
 * defaults, instances and every V2 refusal work as they do for a V2 call.
 */
export class HookService {
  constructor(private readonly deps: HookServiceDeps) {}

  /** The preset a path names; undefined for an unknown one. */
  preset(name: string): HookPreset | undefined {
    return isHookPreset(name) ? HOOK_PRESET_TABLE[name] : undefined;
  }

  /**
   * Opens the template the token names (V2's answers for a bad token or a deleted template),
   * then checks the signature when the template has a hook secret: without one, the token
   * alone authorises, as in V2.
   */
  async open(call: HookCall): Promise<ResolvedSource<Template>> {
    const resolved = await this.deps.sends.resolveTemplate({ token: call.token });
    const sealed = resolved.source.hookSecret;
    if (sealed) {
      verifyHookSignature({
        schemes: SCHEMES[call.preset.name],
        secret: this.deps.secrets.open(sealed),
        rawBody: call.rawBody,
        headers: call.headers,
        nowMs: this.deps.clock.now(),
      });
    }
    return resolved;
  }

  /**
   * The V2 request the payload makes, checked by V2's schema; `{skip}` for a sender's check
   * that carries no message (GitHub's ping).
   */
  request(call: HookCall, template: Template): V2Request | { skip: string } {
    const message = call.preset.toMessage(call.body, call.headers);
    if (message.skip !== undefined) {
      // A sender's check should fail where its messages would: it is how its owner finds out.
      if (!template.enabled) throw new AppError(400, V2_MSG.templateDisabled);
      return { skip: message.skip };
    }
    // Only the template's own placeholders can fill anything (V2 replaces no other marker), so
    // the rest of a large payload is not stored with the send. An empty value counts as not
    // passed: the placeholder's default applies.
    const placeholders: Record<string, string> = {};
    for (const { key } of template.placeholders) {
      const value = message.placeholders[key];
      if (value) placeholders[key] = value;
    }
    const title = clip(message.title.trim() || template.name, LIMITS.titleChars);
    const { priority, dedupKey, dedupWindow } = call.query;
    return parseInput(v2RequestSchema, {
      token: call.token,
      title,
      placeholders,
      priority,
      dedupKey: dedupKey ?? dedupKeyOf(message.dedupKey),
      dedupWindow,
    });
  }

  /** Sends as V2 does, answering V2's envelope. */
  send(request: V2Request, resolved: ResolvedSource<Template>): Promise<SendResponse> {
    return this.deps.sends.sendV2(request, resolved);
  }
}
