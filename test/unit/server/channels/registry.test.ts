import { describe, expect, it } from 'vitest';

import {
  CHANNEL_TYPES,
  assertRegistry,
  createChannelRegistry,
} from '../../../../server/channels/registry';

describe('assertRegistry()', () => {
  it('accepts the real registry', () => {
    expect(() => assertRegistry(createChannelRegistry())).not.toThrow();
  });

  it('refuses a key that holds another kind of adapter', () => {
    expect(() =>
      assertRegistry({ ...createChannelRegistry(), hosted: { type: 'webhook' } }),
    ).toThrow('channel registry: "hosted" holds the adapter of "webhook"');
  });

  it('refuses a registry that lacks a channel kind', () => {
    const registry: Record<string, { type: string }> = { ...createChannelRegistry() };
    delete registry[CHANNEL_TYPES[0]];
    expect(() => assertRegistry(registry)).toThrow(
      `channel registry: missing adapter for "${CHANNEL_TYPES[0]}"`,
    );
  });
});
