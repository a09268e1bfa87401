/** zod's mini API, from the same bundled core as zod.ts (see there); the server's bundle of the MCP SDK imports it. */
export * from 'zod/v4-mini';
