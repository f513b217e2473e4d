import { createHash } from 'node:crypto';

import type { Template } from '../../db/models';
import { parseInput } from '../../lib/validation';
import type { HeraldParts } from '../../parts';
import type { HookRequest, PreparedHook, SendCall, SendResponse } from '../sending/send-service';
import {
  isHookPreset,
  LIMITS,
  v2RequestSchema,
  type HookPresetName,
  type HookQuery,
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
 * A signed delivery id as an idempotency key: as sent when it is one a key may be (1 to 255
 * characters, trimmed), else its hash, so a signed id is never dropped for its length.
 */
function signedKeyOf(id: string): string {
  const trimmed = id.trim();
  if (trimmed && trimmed.length <= LIMITS.idempotencyKeyChars) return trimmed;
  return `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * Inbound hooks (issue 24, part 2): a payload becomes a V2 send of the template the token
 * opens, through the send service's hook pipeline (SendService.sendHook), so placeholders,
 * defaults, instances, the rate limit and every V2 refusal work as they do for a V2 call.
 * What is a hook's own stays here: the presets, the signature and the request a payload makes.
 */
export class HookService {
  constructor(private readonly deps: HookServiceDeps) {}

  /** The preset a path names; undefined for an unknown one. */
  preset(name: string): HookPreset | undefined {
    return isHookPreset(name) ? HOOK_PRESET_TABLE[name] : undefined;
  }

  /**
   * Sends the payload as V2 does, answering V2's envelope; a bad token or a deleted template
   * gets V2's answers before the signature is looked at.
   */
  receive(call: HookCall, send: SendCall): Promise<SendResponse> {
    return this.deps.sends.sendHook(call.token, send, (template): PreparedHook => {
      const signedId = this.checkSignature(call, template);
      const request = this.request(call, template);
      return signedId === undefined ? { request } : { request, signedKey: signedKeyOf(signedId) };
    });
  }

  /**
   * When the template has a hook secret, the request must be signed with it; without one,
   * the token alone authorises, as in V2. Answers the delivery id the signature covered, if any.
   */
  private checkSignature(call: HookCall, template: Template): string | undefined {
    const sealed = template.hookSecret;
    if (!sealed) return undefined;
    return verifyHookSignature({
      schemes: SCHEMES[call.preset.name],
      secret: this.deps.secrets.open(sealed),
      rawBody: call.rawBody,
      headers: call.headers,
      nowMs: this.deps.clock.now(),
    }).signedId;
  }

  /**
   * The V2 request the payload makes, checked by V2's schema; `{skip}` for a sender's check
   * that carries no message (GitHub's ping).
   */
  private request(call: HookCall, template: Template): HookRequest {
    const message = call.preset.toMessage(call.body, call.headers);
    if (message.skip !== undefined) return { skip: message.skip };
    // Only the template's own placeholders can fill anything (V2 replaces no other marker), so
    // the rest of a large payload is not stored with the send. An empty value counts as not
    // passed: the placeholder's default applies; without one, a field the preset itself fills
    // (GitHub's `action` on a push) renders empty instead of showing its marker.
    const own = new Set(message.ownFields);
    const placeholders: Record<string, string> = {};
    for (const definition of template.placeholders) {
      const value = message.placeholders[definition.key];
      if (value) placeholders[definition.key] = value;
      else if (own.has(definition.key) && !definition.default) placeholders[definition.key] = '';
    }
    const title = clip(message.title.trim() || template.name, LIMITS.titleChars);
    const { priority, dedupKey, dedupWindow, digestKey } = call.query;
    return parseInput(v2RequestSchema, {
      token: call.token,
      title,
      placeholders,
      priority,
      dedupKey: dedupKey ?? dedupKeyOf(message.dedupKey),
      dedupWindow,
      digestKey,
    });
  }
}
