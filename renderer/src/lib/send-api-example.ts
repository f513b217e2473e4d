/**
 * What a source's ready-to-run calls are filled with, for the Send API dialog and the panel a
 * source's first instance opens (FirstSendPanel): the same sample values in both.
 */
import type { Instance, Placeholder } from '@contract';

import { recipientExample } from '../components/channels/recipient-examples';
import type { ExampleInput } from './examples';

/** Each placeholder's default, else its label or key, as the sample value of a send. */
export function samplePlaceholders(
  placeholders: readonly Placeholder[] = [],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const p of placeholders) values[p.key] = p.default || p.label || p.key;
  return values;
}

/** A sample recipient of the kind, when an enabled instance takes recipients from the send. */
export function sampleRecipients(instances: readonly Instance[]): string[] | undefined {
  const dynamic = instances.find((i) => i.dynamicRecipients && i.enabled);
  return dynamic ? [recipientExample(dynamic.channel?.type)] : undefined;
}

/** The examples' input for a source's token, placeholders and instances. */
export function sendApiExampleInput(input: {
  origin: string;
  kind: 'task' | 'template';
  token: string;
  placeholders?: readonly Placeholder[];
  instances: readonly Instance[];
}): ExampleInput {
  return {
    origin: input.origin,
    api: input.kind === 'task' ? 'v1' : 'v2',
    token: input.token,
    placeholders: samplePlaceholders(input.placeholders),
    recipients: sampleRecipients(input.instances),
  };
}
