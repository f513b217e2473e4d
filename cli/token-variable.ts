import { readFileSync } from 'node:fs';

/**
 * HERALD_TOKEN, or the file HERALD_TOKEN_FILE names (a Docker or Kubernetes secret), read as
 * the server reads its `_FILE` variables (server/config/secret-variable.ts; cli/ imports no
 * server code): one trailing line end taken off; both set, an unreadable or empty file is an
 * error naming the variables, never the token.
 */
export function tokenFromEnv(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { token: string | undefined } | { error: string } {
  const value = env.HERALD_TOKEN;
  const path = env.HERALD_TOKEN_FILE?.trim() ?? '';
  const hasValue = value !== undefined && value.trim() !== '';
  if (hasValue && path !== '') {
    return {
      error: 'HERALD_TOKEN and HERALD_TOKEN_FILE are both set: give the token one way only',
    };
  }
  if (path === '') return { token: hasValue ? value : undefined };
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return { error: `HERALD_TOKEN_FILE (${path}) cannot be read (${code})` };
  }
  const token = text.replace(/\r?\n$/, '');
  if (token.trim() === '') return { error: `HERALD_TOKEN_FILE (${path}) is empty` };
  return { token };
}
