/**
 * How the console tells the user what went wrong: one rule for every page, dialog and drawer.
 *
 * 1. Loading what a page, drawer or card shows: the failure takes the content's place in
 *    PageState, with the server's msg and a Retry. Lists get this from ListPage, everything else
 *    from useLoad. (The share-link page talks to visitors, not administrators: it says what a
 *    link that failed means in its own words.)
 * 2. Submitting a form (a dialog, a settings card, sign-in): the refusal shows inside that form,
 *    under its fields, and the form keeps what was typed so the field the msg names can be fixed
 *    (useFormSubmit, useFormDialog with FormDialog). Checks the page makes itself show next to
 *    their field; live previews of what is being typed (cron runs, a template) show their error
 *    in the preview.
 * 3. Any other action on something shown (delete, a switch, run now, retry, rotate, copy): an
 *    error toast (toastError, runAction), and a success toast when the page would not show the
 *    result otherwise.
 * 4. Asking first, before what is destructive or disruptive: confirmAction() only; no other
 *    message boxes.
 * 5. Background refreshes and conveniences (the unread badge, the log's source filter) fail
 *    silently: the next refresh, or the page's own load, shows the truth.
 *
 * The text is the server's msg (errorText): it names the field and says what to change. The
 * console words the refusals it knows as sentences in the person's language (lib/error-wording,
 * installed by main.ts through setErrorWording) and shows any other as sent.
 */
import { ElMessage } from 'element-plus';

import { ApiError } from '../api/http-client';

/** Errors stay up longer than successes: they are longer and have to be read. */
const ERROR_TOAST_MS = 6000;

/**
 * Toasts start below the console's 56 px header, so that none covers the language picker or
 * the account while it shows.
 */
export const TOAST_OFFSET = 68;

let wording: ((msg: string) => string) | null = null;

/** Sets how a server's msg is worded for people (null: as sent, which tests rely on). */
export function setErrorWording(word: ((msg: string) => string) | null): void {
  wording = word;
}

/** The text to show for any error: the server's msg as worded for people, or the error's own message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return wording ? wording(err.msg) : err.msg;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The envelope code of a failed call (0: server unreachable), or null for any other error. */
export function errorCode(err: unknown): number | null {
  return err instanceof ApiError ? err.code : null;
}

/** Rule 3: says that an action worked. */
export function toastSuccess(text: string): void {
  ElMessage.success({ message: text, offset: TOAST_OFFSET });
}

/** Rule 3: says that an action failed, with the server's msg, after `context` when given. */
export function toastError(err: unknown, context?: string): void {
  const text = errorText(err);
  ElMessage.error({
    message: context ? `${context}: ${text}` : text,
    showClose: true,
    duration: ERROR_TOAST_MS,
    offset: TOAST_OFFSET,
  });
}

/**
 * Runs an action under rule 3: a success toast when `success` is given, an error toast when it
 * fails. Resolves whether it worked; never throws.
 */
export async function runAction(
  action: () => Promise<unknown>,
  success?: string,
): Promise<boolean> {
  try {
    await action();
    if (success) toastSuccess(success);
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}
