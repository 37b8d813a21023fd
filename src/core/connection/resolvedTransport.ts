/**
 * A connection's definition resolved for a connect or a sign-in: its `${…}` variables filled in
 * (secrets from the environment and inputs), every secret met handed to the log's redactor, the
 * auth told what its credentials resolved to, and the URL an HTTP server was last dialled at.
 */
import { isSecretName, type RedactingLog } from '../base/redact.js';
import { resolveTransportWithSecrets, type ServerDefinition, type TransportDefinition, type VariableContext } from '../config/config.js';
import type { ServerAuth } from './auth/serverAuth.js';

export class TransportResolver {
  private _dialled?: string;

  constructor(
    private readonly _definition: ServerDefinition,
    private readonly _variables: VariableContext,
    private readonly _log: RedactingLog,
    private readonly _auth: ServerAuth | undefined,
  ) {}

  /** The URL the HTTP server was last dialled at (variables resolved), if it was. */
  get dialledUrl(): string | undefined {
    return this._dialled;
  }

  /** The transport of a connect. Throws naming what could not be resolved. */
  async resolve(): Promise<TransportDefinition> {
    const transport = await this._resolve();
    // The environment's own secrets (GITHUB_TOKEN…): a server that got them some way still cannot log them here.
    this._log.redactor.add(Object.entries(this._variables.env).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
    return transport;
  }

  /** The transport was made: an HTTP one is where a sign-in goes. */
  dialled(transport: TransportDefinition): void {
    if (transport.type === 'http') this._dialled = transport.url;
  }

  /** The URL of an HTTP server as last dialled, or resolved now (a sign-in before any connect). */
  async httpUrl(): Promise<string> {
    if (this._dialled) return this._dialled;
    const transport = await this._resolve();
    if (transport.type !== 'http') throw new Error(`"${this._definition.name}" is not an HTTP server`);
    return transport.url;
  }

  private async _resolve(): Promise<TransportDefinition> {
    const resolved = await resolveTransportWithSecrets(this._definition, this._variables);
    this._log.redactor.add(resolved.secrets);
    this._auth?.useResolved?.(resolved.transport);
    return resolved.transport;
  }
}
