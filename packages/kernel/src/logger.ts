/** Logs go to stderr only: under stdio, stdout carries nothing but the protocol. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function stderrLogger(prefix = 'memory-service', quiet = false): Logger {
  const write = (level: string, message: string) => {
    if (!quiet || level !== 'info') process.stderr.write(`[${prefix}] ${level}: ${message}\n`);
  };
  return {
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}

export function silentLogger(): Logger {
  return { info: () => {}, warn: () => {}, error: () => {} };
}
