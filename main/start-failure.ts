/**
 * The dialog shown when the desktop app cannot start. It says what happened in words a user
 * can act on and where the log file is; the stack trace goes to the log file only.
 */

export interface StartFailureText {
  title: string;
  content: string;
}

/** startFailureDialog() words the failure `err`, pointing at `logFile` for the details. */
export function startFailureDialog(err: unknown, logFile: string): StartFailureText {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  const details = `The details are in Herald's log file:\n${logFile}`;
  if (name === 'DataDirLockedError') {
    return { title: 'Herald is already running', content: `${message}\n\n${details}` };
  }
  const native = nativeModuleFailure(err);
  if (native) {
    const part = native.module ? `its ${native.module} module` : 'one of its native modules';
    return {
      title: 'Herald could not start',
      content:
        `Herald could not load ${part}, a part built for this kind of computer: ` +
        `${firstLine(message)}\n\n` +
        'Install Herald again from its download page. If security software quarantined a ' +
        "file of Herald's, restore it or allow Herald, then start Herald again.\n\n" +
        details,
    };
  }
  return { title: 'Herald could not start', content: `${firstLine(message)}\n\n${details}` };
}

/**
 * nativeModuleFailure() recognises a native addon that did not load, as Node and the loaders
 * native packages use report it: `process.dlopen`'s ERR_DLOPEN_FAILED (a binary for a newer
 * glibc, another ABI, "invalid ELF header", "not a valid Win32 application", a macOS code
 * signature refused), node-gyp-build's "No native build was found" and bindings' "Could not
 * locate the bindings file" (the file removed). The module is named from the path in the
 * message when it holds one.
 */
export function nativeModuleFailure(err: unknown): { module: string | null } | null {
  if (!(err instanceof Error)) return null;
  const code = (err as NodeJS.ErrnoException).code;
  const message = err.message;
  const looksNative =
    code === 'ERR_DLOPEN_FAILED' ||
    /No native build was found/.test(message) ||
    /Could not locate the bindings file/.test(message) ||
    /\.node(?=['")\s,:]|$)/m.test(message);
  if (!looksNative) return null;
  const module =
    /node_modules[\\/]((?:@[^\\/\s]+[\\/])?[^\\/\s]+)(?:[\\/\s]|$)/m.exec(message)?.[1] ?? null;
  return { module: module?.replace(/\\/g, '/') ?? null };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim();
  return line || 'An unexpected error stopped the start.';
}
