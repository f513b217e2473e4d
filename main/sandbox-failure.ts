import path from 'node:path';

/**
 * Recognising Chromium's sandbox refusing to start on Linux, and the exact fix. Ubuntu 23.10
 * and later (AppArmor's `kernel.apparmor_restrict_unprivileged_userns`) stop the unprivileged
 * user namespaces Chromium's sandbox needs; Chromium then falls back to the setuid helper
 * `chrome-sandbox` beside the binary, which npm installs without root and mode 4755, so Electron
 * aborts before any of Herald's code runs. `npm start` reads Electron's stderr for it, prints
 * the fix, and runs Herald headless instead.
 */

/** The two fatal lines Chromium prints for this (setuid_sandbox_host.cc, zygote_host_impl_linux.cc). */
const SUID_HELPER = /The SUID sandbox helper binary was found, but is not configured correctly/;
const NO_USABLE_SANDBOX = /No usable sandbox!/;
/** Chromium names the helper it found: "…make sure that /path/chrome-sandbox is owned by root…". */
const HELPER_PATH = /make sure that (\S+chrome-sandbox) is owned by root/;

/** The AppArmor profile name the advice creates (for the development Electron binary). */
export const APPARMOR_PROFILE_NAME = 'herald-electron';

/** isSandboxFailure() is true when Electron's stderr holds either fatal sandbox line. */
export function isSandboxFailure(stderr: string): boolean {
  return SUID_HELPER.test(stderr) || NO_USABLE_SANDBOX.test(stderr);
}

/**
 * sandboxFailureAdvice() returns what to print when `stderr` shows the sandbox failure, else
 * null: both fixes, with the real paths filled in. The helper path is Chromium's own when it
 * named one, else `chrome-sandbox` beside `electronBinary`.
 */
export function sandboxFailureAdvice(stderr: string, electronBinary: string): string | null {
  if (!isSandboxFailure(stderr)) return null;
  const helper =
    HELPER_PATH.exec(stderr)?.[1] ?? path.join(path.dirname(electronBinary), 'chrome-sandbox');
  const profile = `/etc/apparmor.d/${APPARMOR_PROFILE_NAME}`;
  return [
    'Electron could not start its sandbox. On Ubuntu 23.10 and later AppArmor restricts the user',
    "namespaces Chromium's sandbox uses, and the fallback helper chrome-sandbox is not set up.",
    'Fix it once, with either of these (both need sudo):',
    '',
    '  1. Let AppArmor allow this Electron binary (survives reinstalling node_modules):',
    '',
    `     sudo tee ${profile} >/dev/null <<'EOF'`,
    'abi <abi/4.0>,',
    'include <tunables/global>',
    `profile ${APPARMOR_PROFILE_NAME} "${electronBinary}" flags=(unconfined) {`,
    '  userns,',
    `  include if exists <local/${APPARMOR_PROFILE_NAME}>`,
    '}',
    'EOF',
    `     sudo apparmor_parser -r ${profile}`,
    '',
    '  2. Or make the helper setuid root (redo it after every `npm ci`):',
    '',
    `     sudo chown root:root ${helper} && sudo chmod 4755 ${helper}`,
    '',
    'The installed app is not affected when installed from the .deb, which adds its own AppArmor',
    'profile (docs/desktop.md says what to do with the AppImage).',
    'Starting Herald headless instead: the same server and console, at the URL below.',
  ].join('\n');
}
