import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createChannelRegistry } from '../../../../server/channels/registry';

describe('destinationFields', () => {
  const adapters = Object.values(createChannelRegistry());

  it.each(adapters.map((a) => [a.type, a] as const))(
    '%s names only keys of its own config schema',
    (_type, adapter) => {
      const schema = adapter.configSchema as unknown as z.ZodObject;
      const keys = Object.keys(schema.shape);
      for (const field of adapter.destinationFields) expect(keys).toContain(field);
    },
  );

  it('every kind that sends somewhere declares where', () => {
    const undeclared = adapters
      .filter((a) => a.type !== 'hosted' && a.destinationFields.length === 0)
      .map((a) => a.type);
    expect(undeclared).toEqual([]);
  });
});
