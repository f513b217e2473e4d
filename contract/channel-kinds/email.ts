import { z } from 'zod';

import { declareChannelConfig } from './declare';

export const SMTP_SECURITY = ['tls', 'starttls', 'none'] as const;

// Deliberately loose (RFC 5322 is far wider): one @, no spaces or list separators, a dotted domain.
export const EMAIL_ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\.]+$/;

/** SMTP email: server, sign-in and sender. */
export const emailConfig = declareChannelConfig({
  schema: z
    .object({
      host: z.string().trim().min(1, 'host is required'),
      port: z.number().int().min(1).max(65_535),
      /** tls: implicit TLS (465); starttls: plain connect then STARTTLS, required (587); none: no TLS. */
      secure: z.enum(SMTP_SECURITY),
      /** Empty: no AUTH (an open relay on the LAN). */
      username: z.string().trim().default(''),
      password: z.string().default(''),
      from: z.string().trim().regex(EMAIL_ADDRESS, 'from must be an email address'),
      fromName: z.string().trim().max(200).default(''),
      /** Accept a self-signed or otherwise untrusted server certificate. Off by default. */
      allowSelfSigned: z.boolean().default(false),
    })
    .strict(),
  fields: {
    host: { placeholder: 'smtp.example.com', destination: true },
    // The API requires port and encryption; the form starts from the usual pair.
    port: { formDefault: 465, destination: true },
    secure: {
      formDefault: 'tls',
      help: 'channelHelp.emailSecure',
      options: [
        { value: 'tls', label: 'channelConfig.secureTls' },
        { value: 'starttls', label: 'channelConfig.secureStarttls' },
        { value: 'none', label: 'channelConfig.secureNone' },
      ],
    },
    username: { placeholder: 'bot@example.com', destination: true },
    password: {
      secret: true,
      help: 'channelHelp.emailPassword',
      dependsOn: { key: 'username', set: true },
    },
    from: { placeholder: 'bot@example.com' },
    fromName: { placeholder: 'Herald' },
    allowSelfSigned: {
      help: 'channelHelp.emailSelfSigned',
      advanced: true,
      // Without TLS there is no certificate to accept.
      dependsOn: { key: 'secure', noneOf: ['none'] },
    },
  },
});
