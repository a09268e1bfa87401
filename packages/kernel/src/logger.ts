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

/**
 * The logger a plugin gets as `ctx.logger`: each line begins with the plugin's name
 * (`[memory-service] warn: my-notes-plugin: ...`), as the kernel's own lines about a plugin do, so
 * an operator can tell which plugin wrote it. It writes through `logger` at each call.
 */
export function pluginLogger(logger: Logger, plugin: string): Logger {
  return Object.freeze({
    info: (m: string) => logger.info(`${plugin}: ${m}`),
    warn: (m: string) => logger.warn(`${plugin}: ${m}`),
    error: (m: string) => logger.error(`${plugin}: ${m}`),
  });
}
