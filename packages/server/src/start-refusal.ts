import { toMemoryError } from '@memory-service/kernel';

/** The catalogue code (KERNEL_ERR_*) of a coded error, whichever copy of the kernel made it; else undefined. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('KERNEL_ERR_') ? code : undefined;
}

/**
 * The line a start the server refuses prints on stderr: the message, then the catalogue code the
 * README quotes (`KERNEL_ERR_PLUGIN_KERNEL_RANGE`), and the code of its cause when that says more (a
 * setup stopped by `KERNEL_ERR_CONFIG`). An error that is not coded (a file system error) has none.
 */
export function startRefusal(err: unknown): string {
  const message = toMemoryError(err).message;
  const code = codeOf(err);
  const cause = codeOf((err as { cause?: unknown } | null)?.cause);
  const codes = code ? (cause && cause !== code ? `${code}, caused by ${cause}` : code) : undefined;
  return `memory-service: cannot start: ${message}${codes ? ` (${codes})` : ''}\n`;
}
