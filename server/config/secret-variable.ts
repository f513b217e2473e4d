import { readFileSync } from 'node:fs';

/**
 * A secret variable read as Docker and Kubernetes hand secrets over: `NAME` itself, or
 * `NAME_FILE` naming a file that holds it (as HERALD_SECRET_KEY_FILE does for the key).
 * `name` says where the value came from, for messages; no message ever carries the value.
 */
export interface SecretVariable {
  value: string | undefined;
  name: string;
}

/** The variables with a `_FILE` twin; HERALD_SECRET_KEY has its own (server-key-source.ts). */
export const SECRET_VARIABLES = [
  'HERALD_ADMIN_PASSWORD',
  'HERALD_DATABASE_URL',
  'HERALD_METRICS_TOKEN',
  'HERALD_OIDC_CLIENT_SECRET',
] as const;

export type SecretVariableName = (typeof SECRET_VARIABLES)[number];

/**
 * What to add to an unreadable secret file's message. Compose mounts a secret with the host
 * file's owner and mode, so a 0600 file of root's is unreadable to the image's `node` user: say
 * whom it must be readable by.
 */
export function readerHint(code: string | undefined): string {
  return code === 'EACCES' && process.getuid
    ? `; make it readable by the user Herald runs as (uid ${process.getuid()})`
    : '';
}

/**
 * `name`'s value, from the variable or from the file `name_FILE` names, with one trailing line
 * end taken off (what `echo` and editors add; anything else in the file is the secret). Both
 * set, an unreadable file or an empty one stops the start with the variables' names.
 */
export function readSecretVariable(
  env: NodeJS.ProcessEnv,
  name: SecretVariableName,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): SecretVariable {
  const fileName = `${name}_FILE`;
  const value = env[name];
  const path = env[fileName]?.trim() ?? '';
  const hasValue = value !== undefined && value !== '';
  if (hasValue && path !== '') {
    throw new Error(
      `${name} and ${fileName} are both set: give it one way only, so there is no doubt which one Herald uses`,
    );
  }
  if (path === '') return { value: hasValue ? value : undefined, name };
  const origin = `${fileName} (${path})`;
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `${origin} cannot be read (${code}): it must name a file holding ${name}${readerHint(code)}`,
    );
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new Error(`${origin} is empty: it must hold ${name}`);
  return { value: secret, name: fileName };
}

/** Whether `name` is given at all, as the variable or as its file (the file not read). */
export function secretVariableSet(env: NodeJS.ProcessEnv, name: SecretVariableName): boolean {
  return Boolean(env[name]) || Boolean(env[`${name}_FILE`]?.trim());
}
