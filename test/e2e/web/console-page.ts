import type { Browser, Locator, Page } from 'playwright-core';

/** The little of the page's DOM the predicates use (this file is compiled without the DOM lib). */
interface PageGlobals {
  document: {
    getAnimations(): { playState: string }[];
    querySelector(selector: string): { complete?: boolean } | null;
  };
}

/**
 * Locators and actions of the Herald console, by the data-testid names listed in
 * docs/console.md, so the scenario reads as steps and a renamed control is fixed in one place.
 */
export class ConsolePage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  byTestId(id: string): Locator {
    return this.page.getByTestId(id);
  }

  async goto(path = '/'): Promise<void> {
    await this.page.goto(`${this.baseUrl}${path}`);
  }

  /** Opens an Element Plus select and picks the visible option with this text (or test id). */
  async choose(selectTestId: string, option: { text?: string; testId?: string }): Promise<void> {
    await this.byTestId(selectTestId).click();
    const item = option.testId
      ? this.byTestId(option.testId)
      : this.page.locator('.el-select-dropdown__item:visible', { hasText: option.text ?? '' });
    await item.first().click();
  }

  /** Creates the first administrator, typing the setup code Herald printed at start. */
  async setup(username: string, password: string, setupCode: string): Promise<void> {
    await this.byTestId('setup-form').waitFor();
    await this.byTestId('login-username').fill(username);
    await this.byTestId('login-password').fill(password);
    await this.byTestId('login-password-confirm').fill(password);
    await this.byTestId('setup-code').fill(setupCode);
    await this.byTestId('login-submit').click();
    await this.byTestId('page-dashboard').waitFor();
  }

  async signIn(username: string, password: string): Promise<void> {
    await this.byTestId('login-form').waitFor();
    await this.byTestId('login-username').fill(username);
    await this.byTestId('login-password').fill(password);
    await this.byTestId('login-submit').click();
    await this.byTestId('page-dashboard').waitFor();
  }

  async signOut(): Promise<void> {
    await this.byTestId('sign-out').click();
    await this.byTestId('login-form').waitFor();
  }

  async nav(
    name:
      | 'dashboard'
      | 'channels'
      | 'tasks'
      | 'templates'
      | 'logs'
      | 'messages'
      | 'settings'
      | 'users'
      | 'audit'
      | 'account',
  ) {
    await this.byTestId(`nav-${name}`).click();
    await this.byTestId(`page-${name}`).waitFor();
  }

  /** A table row (Element Plus renders rows as tr.el-table__row) holding this text. */
  row(tableTestId: string, text: string): Locator {
    return this.byTestId(tableTestId).locator('tr.el-table__row', { hasText: text });
  }

  async createChannel(
    name: string,
    type: string,
    fill: Record<string, string> = {},
  ): Promise<void> {
    await this.byTestId('channel-create').click();
    const dialog = this.byTestId('channel-dialog');
    await dialog.waitFor();
    // The kind first, from the grid; then its form.
    await this.byTestId(`channel-kind-${type}`).click();
    await this.byTestId('channel-name').fill(name);
    for (const [key, value] of Object.entries(fill)) {
      await this.byTestId(`channel-config-${key}`).fill(value);
    }
    await this.byTestId('channel-save').click();
    await this.expectClosed(dialog, 'channel-error');
    await this.row('channel-table', name).waitFor();
  }

  /** Adds an instance in the open instances drawer. */
  async addInstance(channelName: string, contentType: 'text' | 'html' | 'markdown'): Promise<void> {
    await this.byTestId('instance-add').click();
    const dialog = this.byTestId('instance-dialog');
    await dialog.waitFor();
    await this.choose('instance-channel', { text: channelName });
    await this.byTestId(`instance-content-type-${contentType}`).click();
    await this.byTestId('instance-save').click();
    await this.expectClosed(dialog, 'instance-error');
    await this.row('instance-table', channelName).waitFor();
  }

  /** Waits for a dialog to close after saving; fails with the server's msg when it shows one. */
  async expectClosed(dialog: Locator, errorTestId: string): Promise<void> {
    const error = this.byTestId(errorTestId);
    await Promise.race([dialog.waitFor({ state: 'hidden' }), error.waitFor()]);
    if (await error.isVisible()) throw new Error(`save refused: ${await error.textContent()}`);
  }

  /**
   * Waits until no CSS animation or transition runs (drawers and dialogs slide in). A function,
   * not a string: the console's CSP has no 'unsafe-eval', so string predicates cannot run.
   */
  async settled(): Promise<void> {
    await this.page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document
        .getAnimations()
        .every((a) => a.playState !== 'running'),
    );
  }

  /** Waits until the image matched by `selector` finished loading or failing. */
  async imageDone(selector: string): Promise<void> {
    await this.page.waitForFunction(
      (sel) =>
        (globalThis as unknown as PageGlobals).document.querySelector(sel)?.complete === true,
      selector,
    );
  }

  /** Closes the top-most drawer or dialog with Escape, as a keyboard user would. */
  async closeOverlay(locator: Locator): Promise<void> {
    await this.page.keyboard.press('Escape');
    await locator.waitFor({ state: 'hidden' });
  }
}

/** How a page opened by {@link signedInConsole} looks to the console: size, language and zone. */
export interface ConsoleContextOptions {
  viewport?: { width: number; height: number };
  locale?: string;
  timezoneId?: string;
}

/**
 * A new browser context on Herald's console, signed in as `user`, and the page errors it meets
 * (a test checks they stay empty). Defaults: 1440 × 900, en-US, UTC.
 */
export async function signedInConsole(
  browser: Browser,
  baseUrl: string,
  user: { username: string; password: string },
  options: ConsoleContextOptions = {},
): Promise<{ ui: ConsolePage; pageErrors: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1440, height: 900 },
    locale: options.locale ?? 'en-US',
    timezoneId: options.timezoneId ?? 'UTC',
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  const ui = new ConsolePage(page, baseUrl);
  await ui.goto('/');
  await ui.signIn(user.username, user.password);
  return { ui, pageErrors };
}
