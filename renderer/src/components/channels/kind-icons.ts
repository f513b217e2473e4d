/**
 * The icon each channel kind shows in the new-channel grid, by the icon name GET /channel-types
 * serves (contract/channel-kinds/kind-groups.ts), and the order of the grid's groups. Typed by
 * the contract's names, so a new icon or group is a compile error here until it is drawn.
 */
import {
  Bell,
  ChatDotSquare,
  ChatLineRound,
  Iphone,
  Link,
  Message,
  MessageBox,
  OfficeBuilding,
  Postcard,
} from '@element-plus/icons-vue';
import type { Component } from 'vue';

import type { ChannelGroup, ChannelIcon, ChannelType } from '@contract';

export const KIND_ICONS: Readonly<Record<ChannelIcon, Component>> = {
  robot: ChatDotSquare,
  app: OfficeBuilding,
  'official-account': Postcard,
  sms: Iphone,
  chat: ChatLineRound,
  push: Bell,
  mail: Message,
  webhook: Link,
  inbox: MessageBox,
};

const GROUP_ORDER: Readonly<Record<ChannelGroup, number>> = {
  chinese: 0,
  chat: 1,
  push: 2,
  email_webhook: 3,
  hosted: 4,
};

/** The kinds by group, groups in the grid's order and kinds as the server lists them. */
export function kindsByGroup(
  kinds: readonly ChannelType[],
): { group: ChannelGroup; kinds: ChannelType[] }[] {
  const groups = new Map<ChannelGroup, ChannelType[]>();
  for (const kind of kinds) groups.set(kind.group, [...(groups.get(kind.group) ?? []), kind]);
  return [...groups.entries()]
    .sort(([a], [b]) => GROUP_ORDER[a] - GROUP_ORDER[b])
    .map(([group, list]) => ({ group, kinds: list }));
}
