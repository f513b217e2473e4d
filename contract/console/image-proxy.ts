import { z } from 'zod';

import { CONSOLE_BASE, idParams, named } from '../common';
import { route } from '../route';

/** The path a hosted message's remote images are rewritten to (docs/reader.md "Remote images"). */
export const IMAGE_PROXY_PATH = `${CONSOLE_BASE}/image-proxy`;

/**
 * A proxied image's address as Herald signs it when it serves a message: the remote URL, when
 * the signature stops being good (Unix seconds) and the signature over both. Only the server
 * holds the key, so a signed address can only come from a message Herald served.
 */
export const imageProxyQuery = z.object({
  url: z.string({ error: 'is required: the remote image address, as Herald signed it' }).max(4096),
  exp: z.coerce
    .number<number | string>({ error: 'is required: the expiry Herald signed' })
    .int()
    .positive(),
  sig: z
    .string({ error: 'is required: Herald signs every proxied image address' })
    .regex(/^[A-Za-z0-9_-]{43}$/, { error: 'is not a signature Herald makes' }),
});
export type ImageProxyQuery = z.input<typeof imageProxyQuery>;

/** Where a message came from, as far as a reader's "always for this source" can name it. */
export const SOURCE_KINDS = ['task', 'template'] as const;
export const sourceKindSchema = z.enum(SOURCE_KINDS);
export type SourceKind = z.infer<typeof sourceKindSchema>;

/**
 * One person's remote-image choices: `always` null follows the install's default (the
 * administrator's `showRemoteImages`), true or false overrides it for this person alone.
 */
export const remoteImageChoicesSchema = named(
  'RemoteImageChoices',
  z.strictObject({
    always: z.boolean().nullable(),
    /** The administrator's `showRemoteImages`: what `always: null` follows. */
    installDefault: z.boolean(),
    /** The sources whose messages this person has chosen to always show images for. */
    sources: z.array(z.strictObject({ kind: sourceKindSchema, id: z.number().int().positive() })),
  }),
);
export type RemoteImageChoices = z.infer<typeof remoteImageChoicesSchema>;

export const remoteImagesAlwaysBody = z
  .object({
    always: z.boolean({ error: 'must be true, false or null (follow the install)' }).nullable(),
  })
  .strict();

export const remoteImagesShowBody = z
  .object({ show: z.boolean({ error: 'must be true or false' }) })
  .strict();

export const remoteImageSourceParams = z.object({ kind: sourceKindSchema, id: idParams.shape.id });

export const imageProxyRoutes = {
  image: route({
    method: 'get',
    path: IMAGE_PROXY_PATH,
    summary:
      "A hosted message's remote image, fetched by Herald (signed address only; images only, no SVG)",
    query: imageProxyQuery,
    answers: 'image',
    refusals: {
      400: 'the address is not one Herald signed, the signature has expired, or the remote server could not be reached or answered an error',
      403: 'the address is on a private network and the settings do not allow private addresses',
      413: 'the image is larger than the cap (5 MiB)',
      415: 'the remote answer is not an image Herald passes on (SVG and HTML never are)',
    },
  }),
  choices: route({
    method: 'get',
    path: `${CONSOLE_BASE}/remote-images`,
    summary: "The signed-in person's remote-image choices",
    response: remoteImageChoicesSchema,
  }),
  setAlways: route({
    method: 'put',
    path: `${CONSOLE_BASE}/remote-images`,
    summary:
      'Always (true), never (false) or as the install says (null) show remote images, for me',
    body: remoteImagesAlwaysBody,
    response: remoteImageChoicesSchema,
  }),
  setMessage: route({
    method: 'put',
    path: `${CONSOLE_BASE}/remote-images/messages/{id}`,
    summary: "Show (or stop showing) one hosted message's remote images, for me",
    params: idParams,
    body: remoteImagesShowBody,
    response: z.strictObject({ show: z.boolean() }),
  }),
  setSource: route({
    method: 'put',
    path: `${CONSOLE_BASE}/remote-images/sources/{kind}/{id}`,
    summary: "Always show (or stop showing) a task's or template's remote images, for me",
    params: remoteImageSourceParams,
    body: remoteImagesShowBody,
    response: remoteImageChoicesSchema,
  }),
};
