import { defineStore } from 'pinia';

import { messagesApi } from '../api/messages-api';
import { publicApi } from '../api/public-api';

/**
 * Share links of hosted messages: creating and revoking one in the reader, and opening one as
 * anybody does (the preview page), without a session and without a sign-in redirect.
 */
export const useShareLinksStore = defineStore('shareLinks', () => {
  /** The message's link, created if it has none (the same link again if it has one). */
  const create = (messageId: number) => messagesApi.createLink(messageId);
  const revoke = (messageId: number) => messagesApi.revokeLink(messageId);
  /** The message a link's key opens. */
  const open = (key: string) => publicApi.preview(key);

  return { create, revoke, open };
});
