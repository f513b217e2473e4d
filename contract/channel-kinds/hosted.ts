import { z } from 'zod';

import { declareChannelConfig } from './declare';

/** Hosted messages: stored on Herald and read in the console; nothing to set. */
export const hostedConfig = declareChannelConfig({
  schema: z.object({}).strict(),
  fields: {},
  notes: [{ id: 'hosted', text: 'channelHelp.hosted', tone: 'info' }],
});
