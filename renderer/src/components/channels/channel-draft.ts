import type { Channel, ChannelConfig } from '@contract';

/**
 * The channel dialog's form as it stands, for "Send test" before saving: its kind and config,
 * its name, and the channel it edits (null: a new one).
 */
export interface ChannelDraft {
  id: number | null;
  name: string;
  type: Channel['type'];
  config: ChannelConfig;
}
