#!/usr/bin/env node
/**
 * The entry point: `memory-service-compose` answers MCP on stdio; `memory-service-compose --http
 * [port]` on streamable HTTP at 127.0.0.1 (default port 8000, 0 for any free one). Logs go to
 * stderr: under stdio, stdout carries nothing but protocol.
 */
import { serveHttp, serveStdio } from '@memory-service/server';
import { composeService } from './service.js';

function usage(message: string): never {
  process.stderr.write(`memory-service-compose: ${message}\nUsage: memory-service-compose [--http [port]]\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let http: number | undefined;
  if (argv[0] === '--http') {
    http = argv[1] === undefined ? 8000 : Number(argv[1]);
    if (!Number.isInteger(http) || http < 0 || http > 65535) usage('the port must be an integer from 0 to 65535');
    if (argv.length > 2) usage(`unexpected argument ${argv[2]}`);
  } else if (argv.length > 0) {
    usage(`unknown argument ${argv[0]}`);
  }

  const service = await composeService();
  const log = service.kernel.logger;
  let stop: () => Promise<void> = async () => {};
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping (${why})`);
    await stop().catch((err: Error) => log.error(`while stopping: ${err.message}`));
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (http === undefined) {
    const serving = await serveStdio(service);
    stop = () => serving.close();
    void serving.ended.then(shutdown);
    log.info(`ready on stdio (${service.surface.tools.length} tools: ${service.surface.tools.map((t) => t.name).join(', ')})`);
  } else {
    const serving = await serveHttp(service, { port: http }).catch(async (err: NodeJS.ErrnoException) => {
      await service.close();
      usage(err.code === 'EADDRINUSE' ? `port ${http} is in use` : err.message);
    });
    stop = () => serving.close();
    log.info(`listening on ${serving.address} (MCP at /mcp)`);
  }
}

main(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`memory-service-compose: cannot start: ${err.message}\n`);
  process.exit(1);
});
