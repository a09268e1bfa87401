/**
 * Stands in for the MCP SDK's validation/ajv-provider.js inside the server's bundle
 * (scripts/bundle.mjs points the SDK's imports of it here).
 *
 * Every SDK Server builds an AjvJsonSchemaValidator at construction, but only uses it to check
 * the answers to elicitation requests. The real provider brings ajv (two copies of it, and
 * ajv-formats): about half a megabyte of source, parsed at every start if it were in the bundle
 * even when never run. Here the SDK's CommonJS build of the real provider is required from
 * node_modules on the first getValidator() call, built with the same arguments, and delegated to.
 */
import { createRequire } from 'node:module';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/** The SDK entry of the real provider; the `require` condition of its exports gives the CommonJS build. */
export const REAL_PROVIDER = '@modelcontextprotocol/sdk/validation/ajv';

interface Provider {
  AjvJsonSchemaValidator: new (ajv?: unknown) => jsonSchemaValidator;
}

let provider: Provider | undefined;

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  private real?: jsonSchemaValidator;

  /** `ajv`: an Ajv instance to use, as the SDK's provider takes; by default the SDK builds its own. */
  constructor(private readonly ajv?: unknown) {}

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    provider ??= createRequire(import.meta.url)(REAL_PROVIDER) as Provider;
    this.real ??= new provider.AjvJsonSchemaValidator(this.ajv);
    return this.real.getValidator<T>(schema);
  }
}
