import type { FastifyInstance } from 'fastify';
import { SERVICE_VERSION, surfaceCallStats } from '@memory-service/kernel';
import { METRICS_CONTENT_TYPE, ServiceMetrics, type RecordCountsReading } from './metrics.js';
import type { Service } from './service.js';

/** What the stores register in the kernel's container for /metrics (stores kernel-binding.ts). */
interface RecordCountSource {
  read(): RecordCountsReading;
}
interface BreakerSource {
  list(): { name: string; state: string }[];
}

/** The metrics of a service: its kernel's tools and the surfaces' own (the catalogue, dispatchers' lists), and the stores' record counts and breakers when registered. */
export function serviceMetrics(service: Service): ServiceMetrics {
  const { kernel } = service;
  const resolve = <T>(name: string): T | null => (kernel.container.hasRegistration(name) ? kernel.container.resolve<T>(name) : null);
  const records = resolve<RecordCountSource>('recordCounts');
  const breakers = resolve<BreakerSource>('breakers');
  return new ServiceMetrics({
    version: SERVICE_VERSION,
    startedAt: service.startedAt,
    tools: () => [...kernel.tools(), ...surfaceCallStats(kernel)],
    records: records ? () => records.read() : undefined,
    breakers: breakers ? () => breakers.list() : undefined,
    warn: (message) => kernel.logger.warn(message),
  });
}

/** GET /metrics: the Prometheus text format (behind the API key as every route but /health and /alive). */
export function registerMetrics(app: FastifyInstance, service: Service): void {
  const metrics = serviceMetrics(service);
  app.get('/metrics', async (_req, reply) => reply.type(METRICS_CONTENT_TYPE).send(metrics.render()));
}
