/**
 * The SDK's error classes as the core throws and recognises them, without evaluating the SDK
 * (activation must not: bench "startup load + activation, no server"). The SDK v2 recognises
 * its errors by a brand, not by class identity (`instanceof` reads the set of brand names an
 * error carries under `Symbol.for('mcp.sdk.errorBrands')`, made for separately bundled copies
 * of the SDK): these classes carry the same brands, so the SDK answers a thrown
 * {@link ProtocolError} with its code, and `instanceof` here recognises the SDK's own errors.
 * test/unit/core/base/protocolErrors.test.ts holds both directions against the SDK itself.
 */

const BRANDS = Symbol.for('mcp.sdk.errorBrands');

/** The SDK's local error codes (its `SdkErrorCode`, same values). */
export const SdkErrorCode = {
  NotConnected: 'NOT_CONNECTED',
  AlreadyConnected: 'ALREADY_CONNECTED',
  NotInitialized: 'NOT_INITIALIZED',
  CapabilityNotSupported: 'CAPABILITY_NOT_SUPPORTED',
  RequestTimeout: 'REQUEST_TIMEOUT',
  ConnectionClosed: 'CONNECTION_CLOSED',
  SendFailed: 'SEND_FAILED',
  InvalidResult: 'INVALID_RESULT',
  UnsupportedResultType: 'UNSUPPORTED_RESULT_TYPE',
  InputRequiredRoundsExceeded: 'INPUT_REQUIRED_ROUNDS_EXCEEDED',
  ListPaginationExceeded: 'LIST_PAGINATION_EXCEEDED',
} as const;
export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode];

/** The brand names of `ctor` and the classes it extends (each declares its own `mcpBrand`). */
function brandsOf(ctor: unknown): Set<string> {
  const brands = new Set<string>();
  for (let c = ctor; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    const brand = (c as { mcpBrand?: unknown }).mcpBrand;
    if (Object.prototype.hasOwnProperty.call(c, 'mcpBrand') && typeof brand === 'string') brands.add(brand);
  }
  return brands;
}

function stamp(error: Error, ctor: unknown): void {
  Object.defineProperty(error, BRANDS, { value: brandsOf(ctor), enumerable: false, configurable: true });
}

/** Whether `value` carries `cls`'s brand (an error of that class from any copy of the SDK, or from here), else plain `instanceof`. */
function hasBrand(cls: { mcpBrand?: unknown }, value: unknown): boolean {
  if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(cls, 'mcpBrand') && Object.prototype.hasOwnProperty.call(value, BRANDS)) {
    const carried = (value as Record<symbol, unknown>)[BRANDS];
    if (carried instanceof Set && carried.has(cls.mcpBrand)) return true;
  }
  return Function.prototype[Symbol.hasInstance].call(cls, value);
}

/** A JSON-RPC error: thrown in a request handler, the SDK answers with its `code`, `message` and `data`. */
export class ProtocolError extends Error {
  static readonly mcpBrand: string = 'mcp.ProtocolError';
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(this, value);
  }
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
    stamp(this, new.target);
  }
}

/** The SDK's local failures (not connected, timed out, closed, …), by {@link SdkErrorCode}. */
export class SdkError extends Error {
  static readonly mcpBrand: string = 'mcp.SdkError';
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(this, value);
  }
  constructor(
    readonly code: SdkErrorCode,
    message: string,
    readonly data?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SdkError';
    stamp(this, new.target);
  }
}

/** What the SDK's `SdkHttpError` carries: the status and the body's text when it read one. */
export interface SdkHttpErrorData {
  readonly status: number;
  readonly statusText?: string;
  readonly [key: string]: unknown;
}

/** An HTTP transport failure (a non-OK status): the SDK's `SdkHttpError`, read here for its status and body. */
export class SdkHttpError extends SdkError {
  static override readonly mcpBrand: string = 'mcp.SdkHttpError';
  declare readonly data: SdkHttpErrorData;
  get status(): number {
    return this.data.status;
  }
}

/** The `_meta` key that ties a message to its task (the SDK's `RELATED_TASK_META_KEY`), here so the ledger needs no SDK. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
