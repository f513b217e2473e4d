import qrcode from 'qrcode-generator';

/** A QR code as SVG path data: `size` modules a side, each dark module a unit square. */
export interface QrPath {
  size: number;
  d: string;
}

/**
 * The QR code of `text` (error correction M, the smallest version that holds it), drawn as one
 * path that Vue renders like any other element: no generated markup goes through v-html. Each
 * row's runs of dark modules are one rectangle each, which keeps the path short.
 */
export function qrPath(text: string): QrPath {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const size = qr.getModuleCount();
  const parts: string[] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size;) {
      if (!qr.isDark(row, col)) {
        col += 1;
        continue;
      }
      let run = 1;
      while (col + run < size && qr.isDark(row, col + run)) run += 1;
      parts.push(`M${col} ${row}h${run}v1h-${run}z`);
      col += run;
    }
  }
  return { size, d: parts.join('') };
}
