/**
 * Errors raised on purpose by the stores. The shape mirrors the kernel's coded errors (`code`,
 * `type`, `field`, `accepted`) so a tool layer can turn one into a tool error that names the
 * field at fault and what it accepts.
 */
export type StoreErrorCode = 'STORES_ERR_VALIDATION' | 'STORES_ERR_NOT_FOUND' | 'STORES_ERR_PATH' | 'STORES_ERR_CONFLICT' | 'STORES_ERR_VALUE';

const TYPES: Record<StoreErrorCode, string> = {
  STORES_ERR_VALIDATION: 'ValidationError',
  STORES_ERR_NOT_FOUND: 'NotFoundError',
  STORES_ERR_PATH: 'PathError',
  STORES_ERR_CONFLICT: 'ConflictError',
  STORES_ERR_VALUE: 'ValueError',
};

export interface StoreErrorOptions {
  field?: string;
  accepted?: unknown;
  details?: unknown;
}

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly type: string;
  readonly field?: string;
  readonly accepted?: unknown;
  readonly details?: unknown;

  constructor(code: StoreErrorCode, message: string, opts: StoreErrorOptions = {}) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
    this.type = TYPES[code];
    this.field = opts.field;
    this.accepted = opts.accepted;
    this.details = opts.details;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      type: this.type,
      message: this.message,
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.accepted !== undefined ? { accepted: this.accepted } : {}),
    };
  }
}

export function validationError(field: string, message: string, accepted?: unknown): StoreError {
  return new StoreError('STORES_ERR_VALIDATION', message, { field, accepted });
}

export function notFound(what: string, id: string, field?: string): StoreError {
  return new StoreError('STORES_ERR_NOT_FOUND', `${what} not found: ${id}`, { field, details: { id } });
}

/** The spec's raised ValueError (a hostile or unknown standing query): a bad value, naming the field and what it accepts. */
export function valueError(field: string, message: string, accepted?: unknown): StoreError {
  return new StoreError('STORES_ERR_VALUE', message, { field, accepted });
}
