import { z } from 'zod';

import {
  CONSOLE_BASE,
  contentTypeSchema,
  idParams,
  named,
  nothing,
  pageOf,
  pagingQuery,
  queryFlag,
  timestampSchema,
} from '../common';
import { route } from '../route';

/** A message's priority, 1 (min) … 5 (max); the reader marks 4 and 5. */
export const messagePrioritySchema = z.number().int().min(1).max(5);

/** The list's orders: newest first, or priority 5, then 4, then the rest, each newest first. */
export const MESSAGE_SORTS = ['newest', 'priority'] as const;
export type MessageSort = (typeof MESSAGE_SORTS)[number];

/** A hosted message, as the console lists it. */
export const hostedMessageSchema = named(
  'HostedMessage',
  z.strictObject({
    id: z.number().int().positive(),
    /** Null when the hosted channel is gone. */
    channelId: z.number().int().positive().nullable(),
    title: z.string(),
    content: z.string(),
    format: contentTypeSchema,
    /**
     * The body as one line of the text its reader sees (Markdown rendered, HTML read as text),
     * at most 200 characters: what a list shows. Made here, so the console never parses a
     * stranger's HTML to show a line of it.
     */
    excerpt: z.string(),
    url: z.string().nullable(),
    /** 1 … 5 as the sender gave it; null when none was given. */
    priority: messagePrioritySchema.nullable(),
    /**
     * The share link (opens the message without login); null: none, revoked, or the caller's
     * role may not share (a viewer: only the roles that may create a link are shown one).
     */
    previewUrl: z.string().nullable(),
    read: z.boolean(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
);
export type HostedMessage = z.infer<typeof hostedMessageSchema>;

/**
 * A file of a hosted message (issue 43 §2): `url` is a path on Herald that serves it; an
 * `inline` one is an image the reader shows, any other a download.
 */
export const hostedAttachmentSchema = named(
  'HostedAttachment',
  z.strictObject({
    name: z.string(),
    type: z.string(),
    size: z.number().int().min(0),
    inline: z.boolean(),
    url: z.string(),
  }),
);
export type HostedAttachment = z.infer<typeof hostedAttachmentSchema>;

/** One message with its content rendered to sanitised HTML. */
export const hostedMessageDetailSchema = named(
  'HostedMessageDetail',
  hostedMessageSchema.extend({
    safeHtml: z.string(),
    /** The files sent with it that are still stored, in the order sent. */
    attachments: z.array(hostedAttachmentSchema),
    /**
     * Whether the reader loads its remote images (through the image proxy) without asking: the
     * signed-in person's "always", else the administrator's `showRemoteImages`, or their choice
     * for this message or its source (`remoteImages`).
     */
    showRemoteImages: z.boolean(),
    /** The signed-in person's choices that apply to this message (docs/reader.md "Remote images"). */
    remoteImages: z
      .strictObject({
        message: z.boolean(),
        source: z
          .strictObject({
            kind: z.enum(['task', 'template']),
            id: z.number().int().positive(),
            chosen: z.boolean(),
          })
          .nullable(),
        always: z.boolean().nullable(),
      })
      .nullable(),
  }),
);
export type HostedMessageDetail = z.infer<typeof hostedMessageDetailSchema>;

export const messagePageSchema = pageOf(hostedMessageSchema).extend({
  totalIsCapped: z.boolean(),
  unreadCount: z.number().int().min(0),
});
export type MessagePage = z.infer<typeof messagePageSchema>;

export const messageQuery = pagingQuery.extend({
  /** Searches title and content (docs/console-api.md, "Search"). */
  q: z.string().optional(),
  unread: queryFlag,
  /** `priority`: 5, then 4, then the rest, each newest first; default `newest`. */
  sort: z.enum(MESSAGE_SORTS).optional(),
});
export type MessageQuery = z.input<typeof messageQuery>;

export const messageReadBody = z
  .object({ read: z.boolean({ error: 'must be true or false' }) })
  .strict();

export const shareLinkSchema = z.strictObject({ previewUrl: z.string() });

export const messageRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/messages`,
    summary: 'List hosted messages, newest first or priority 4-5 first (q, unread, sort)',
    query: messageQuery,
    response: messagePageSchema,
  }),
  unreadCount: route({
    method: 'get',
    path: `${CONSOLE_BASE}/messages/unread-count`,
    summary: 'How many hosted messages are unread',
    response: z.strictObject({ count: z.number().int().min(0) }),
  }),
  readAll: route({
    method: 'post',
    path: `${CONSOLE_BASE}/messages/read-all`,
    summary: 'Mark every hosted message read',
    response: z.strictObject({ updated: z.number().int().min(0) }),
  }),
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/messages/{id}`,
    summary: 'One hosted message with sanitised HTML',
    params: idParams,
    response: hostedMessageDetailSchema,
  }),
  setRead: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/messages/{id}`,
    summary: 'Mark a hosted message read or unread',
    params: idParams,
    body: messageReadBody,
    response: hostedMessageSchema,
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/messages/{id}`,
    summary: 'Delete a hosted message',
    params: idParams,
    response: nothing,
  }),
  createLink: route({
    method: 'post',
    path: `${CONSOLE_BASE}/messages/{id}/link`,
    summary: 'Create (or return) the share link of a message',
    params: idParams,
    response: shareLinkSchema,
  }),
  revokeLink: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/messages/{id}/link`,
    summary: 'Revoke the share link of a message; it answers 404 from now on',
    params: idParams,
    response: nothing,
  }),
};
