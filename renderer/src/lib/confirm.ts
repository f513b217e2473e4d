import { ElMessageBox } from 'element-plus';

export interface ConfirmOptions {
  message: string;
  title: string;
  confirmText: string;
  cancelText: string;
  /** Paints the confirm button red, for what cannot be undone from the console. */
  danger?: boolean;
}

/** Asks before a destructive or disruptive action; resolves false when the user backs out. */
export async function confirmAction(options: ConfirmOptions): Promise<boolean> {
  try {
    await ElMessageBox.confirm(options.message, options.title, {
      type: 'warning',
      confirmButtonText: options.confirmText,
      cancelButtonText: options.cancelText,
      ...(options.danger ? { confirmButtonClass: 'el-button--danger' } : {}),
    });
    return true;
  } catch {
    return false;
  }
}
