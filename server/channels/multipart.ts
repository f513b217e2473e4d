import { randomBytes } from 'node:crypto';

/** A form field, or a file part when it has `data`. */
export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Buffer };

/** A quoted-string parameter value: quotes and line breaks would end the header early. */
function quoted(value: string): string {
  return value.replace(/[\r\n"]/g, (c) => (c === '"' ? '%22' : ' '));
}

/**
 * A multipart/form-data body (RFC 7578) built whole in memory: attachments are bounded by the
 * intake's size limit, and a Buffer lets the request carry an exact Content-Length.
 * Non-ASCII file names go as UTF-8 inside `filename`, as browsers send them and as Telegram
 * and Discord read them.
 */
export function multipartBody(parts: readonly MultipartPart[]): {
  contentType: string;
  body: Buffer;
} {
  const boundary = `----herald${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"`;
    if ('data' in part) {
      head += `; filename="${quoted(part.filename)}"\r\nContent-Type: ${part.contentType}`;
    }
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'));
    chunks.push('data' in part ? part.data : Buffer.from(part.value, 'utf8'));
    chunks.push(Buffer.from('\r\n', 'utf8'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}
