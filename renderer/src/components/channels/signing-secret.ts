/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes, made in the browser. */
export function generateSigningSecret(bytes = 32): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  let binary = '';
  for (const b of raw) binary += String.fromCharCode(b);
  return `whsec_${btoa(binary)}`;
}
