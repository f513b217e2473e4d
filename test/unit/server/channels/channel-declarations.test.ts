import { describe, expect, it } from 'vitest';
import type { z } from 'zod';

import { CHANNEL_CONFIGS, describeChannelConfig } from '../../../../contract';
import { createChannelRegistry } from '../../../../server/channels/registry';
import { CHANNEL_SAMPLES } from '../../../fixtures/channel-samples';

const registry = createChannelRegistry();
const adapters = Object.values(registry);

describe('each adapter’s config is its kind’s declaration', () => {
  it.each(adapters.map((a) => [a.type, a] as const))(
    '%s: the console’s fields are exactly the keys its schema parses',
    (type, adapter) => {
      const keys = Object.keys((adapter.configSchema as unknown as z.ZodObject).shape);
      const fields = describeChannelConfig(adapter.declaration).fields.map((f) => f.key);

      expect(fields).toEqual(keys);
      expect(adapter.declaration).toBe(CHANNEL_CONFIGS[type]);
      expect(adapter.secretFields).toEqual(CHANNEL_CONFIGS[type].secretFields);
      expect(adapter.destinationFields).toEqual(CHANNEL_CONFIGS[type].destinationFields);
    },
  );

  it.each(adapters.map((a) => [a.type, a] as const))(
    '%s: parsing what it stored again changes nothing (so a saved channel saves the same)',
    (type, adapter) => {
      const stored = adapter.configSchema.parse(CHANNEL_SAMPLES[type]);
      expect(adapter.configSchema.parse(stored)).toEqual(stored);
    },
  );

  it('the webhook adapter adds its JSON body check to the declared schema, and only that', () => {
    const config = { url: 'https://example.com/hook', body: '{"a": {{title}' };
    expect(CHANNEL_CONFIGS.webhook.schema.safeParse(config).success).toBe(true);
    const refused = registry.webhook.configSchema.safeParse(config);
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message.split(':')[0]])).toEqual([
      ['body', 'body is not valid JSON once filled in'],
    ]);
  });
});
