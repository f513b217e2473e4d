import { describe, expect, it } from 'vitest';

import {
  APPARMOR_PROFILE_NAME,
  isSandboxFailure,
  sandboxFailureAdvice,
} from '../../../main/sandbox-failure';

/** Chromium's fatal lines, verbatim as users report them. */
const SUID_HELPER_LINE =
  '[77996:0908/150845.938417:FATAL:sandbox/linux/suid/client/setuid_sandbox_host.cc:166] The SUID ' +
  'sandbox helper binary was found, but is not configured correctly. Rather than run without ' +
  "sandboxing I'm aborting now. You need to make sure that " +
  '/home/u/app/node_modules/electron/dist/chrome-sandbox is owned by root and has mode 4755.';
const NO_USABLE_SANDBOX_LINE =
  '[1:2:FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! Update your kernel or see ' +
  'https://chromium.googlesource.com/chromium/src/+/main/docs/linux/suid_sandbox_development.md ' +
  'for more information on developing with the SUID sandbox. If you want to live dangerously and ' +
  'need an immediate workaround, you can try using --no-sandbox.';

/** Another checkout than the one in SUID_HELPER_LINE, to tell which path the advice used. */
const ELECTRON = '/home/u/herald/node_modules/electron/dist/electron';

describe('isSandboxFailure', () => {
  it('isSandboxFailure() recognises both fatal sandbox lines', () => {
    expect(isSandboxFailure(SUID_HELPER_LINE)).toBe(true);
    expect(isSandboxFailure(NO_USABLE_SANDBOX_LINE)).toBe(true);
  });

  it('isSandboxFailure() finds the line among the rest of Electron’s stderr', () => {
    expect(
      isSandboxFailure(`Some earlier output\n${SUID_HELPER_LINE}\nTrace/breakpoint trap\n`),
    ).toBe(true);
  });

  it('isSandboxFailure() is false for other failures, including sandbox warnings', () => {
    expect(isSandboxFailure('Segmentation fault (core dumped)')).toBe(false);
    expect(
      isSandboxFailure(
        '[12345:0908/150845.938417:ERROR:gpu_process_host.cc(991)] GPU process exited unexpectedly: exit_code=139',
      ),
    ).toBe(false);
    expect(
      isSandboxFailure(
        '[1:2:WARNING:sandbox_linux.cc(400)] InitializeSandbox() called with multiple threads in process gpu-process.',
      ),
    ).toBe(false);
  });
});

describe('sandboxFailureAdvice', () => {
  it('sandboxFailureAdvice() makes the helper Chromium named setuid root', () => {
    const helper = '/home/u/app/node_modules/electron/dist/chrome-sandbox';
    const advice = sandboxFailureAdvice(`${SUID_HELPER_LINE}\n`, ELECTRON);

    expect(advice).toContain(`sudo chown root:root ${helper} && sudo chmod 4755 ${helper}`);
    // Chromium's path wins over the one beside the binary.
    expect(advice).not.toContain('/home/u/herald/node_modules/electron/dist/chrome-sandbox');
  });

  it('sandboxFailureAdvice() uses chrome-sandbox beside the binary when Chromium named none', () => {
    const helper = '/home/u/herald/node_modules/electron/dist/chrome-sandbox';
    const advice = sandboxFailureAdvice(NO_USABLE_SANDBOX_LINE, ELECTRON);

    expect(advice).toContain(`sudo chown root:root ${helper} && sudo chmod 4755 ${helper}`);
  });

  it('sandboxFailureAdvice() writes an AppArmor profile allowing user namespaces for the binary', () => {
    const electron = '/home/u/My Projects/herald/node_modules/electron/dist/electron';
    const lines = (sandboxFailureAdvice(NO_USABLE_SANDBOX_LINE, electron) ?? '').split('\n');

    expect(lines).toContain('abi <abi/4.0>,');
    expect(lines).toContain('  userns,');
    // Quoted, or a path with a space would break the profile.
    expect(lines).toContain(`profile ${APPARMOR_PROFILE_NAME} "${electron}" flags=(unconfined) {`);
    expect(lines).toContain(
      `     sudo tee /etc/apparmor.d/${APPARMOR_PROFILE_NAME} >/dev/null <<'EOF'`,
    );
    expect(lines).toContain(
      `     sudo apparmor_parser -r /etc/apparmor.d/${APPARMOR_PROFILE_NAME}`,
    );
    // The here-document ends on a line of its own, or the shell would swallow the rest.
    expect(lines).toContain('EOF');
  });

  it('sandboxFailureAdvice() is null for any other stderr', () => {
    expect(sandboxFailureAdvice('', ELECTRON)).toBeNull();
    expect(sandboxFailureAdvice('Segmentation fault (core dumped)\n', ELECTRON)).toBeNull();
    expect(
      sandboxFailureAdvice(
        '[12345:0908/150845.938417:ERROR:gpu_process_host.cc(991)] GPU process exited unexpectedly: exit_code=139\n',
        ELECTRON,
      ),
    ).toBeNull();
  });
});
