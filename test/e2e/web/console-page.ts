import type { Locator, Page } from 'playwright-core';

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

  async setup(username: string, password: string): Promise<void> {
    await this.byTestId('setup-form').waitFor();
    await this.byTestId('login-username').fill(username);
    await this.byTestId('login-password').fill(password);
    await this.byTestId('login-password-confirm').fill(password);
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

  async nav(name: 'dashboard' | 'channels' | 'tasks' | 'templates' | 'logs' | 'messages' | 'settings') {
    await this.byTestId(`nav-${name}`).click();
    await this.byTestId(`page-${name}`).waitFor();
  }

  /** A table row (Element Plus renders rows as tr.el-table__row) holding this text. */
  row(tableTestId: string, text: string): Locator {
    return this.byTestId(tableTestId).locator('tr.el-table__row', { hasText: text });
  }

  async createChannel(name: string, type: string, fill: Record<string, string> = {}): Promise<void> {
    await this.byTestId('channel-create').click();
    const dialog = this.byTestId('channel-dialog');
    await dialog.waitFor();
    await this.byTestId('channel-name').fill(name);
    await this.choose('channel-type', { testId: `channel-type-option-${type}` });
    for (const [key, value] of Object.entries(fill)) {
      await this.byTestId(`channel-config-${key}`).fill(value);
    }
    await this.byTestId('channel-save').click();
    await dialog.waitFor({ state: 'hidden' });
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
    await dialog.waitFor({ state: 'hidden' });
    await this.row('instance-table', channelName).waitFor();
  }

  /** Closes the top-most drawer or dialog with Escape, as a keyboard user would. */
  async closeOverlay(locator: Locator): Promise<void> {
    await this.page.keyboard.press('Escape');
    await locator.waitFor({ state: 'hidden' });
  }
}
