/**
 * Client credentials configured per server in mcp.json (`"oauth": { "clientCredentials": … }` or
 * `{ "privateKeyJwt": … }`): the values may be `${input:…}` variables, so the SDK provider can
 * only be made once the connection has resolved the transport ({@link ServerAuth.useResolved}).
 * From then on it is the plain {@link ClientCredentialsAuth}: a token without a browser on the
 * transport's first 401. Every token it receives goes to the log's redactor.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';
import type { TransportDefinition } from '../../config/config.js';
import { ClientCredentialsAuth, NonInteractiveAuth, SignInError } from './serverAuth.js';

export class ConfiguredClientCredentialsAuth extends NonInteractiveAuth {
  private _inner?: ClientCredentialsAuth;
  private _credentials?: string;

  constructor(private readonly _clientName: string) {
    super();
  }

  /** Makes (or keeps, when the resolved credentials did not change) the SDK provider. */
  useResolved(transport: TransportDefinition): void {
    if (transport.type !== 'http' || !transport.oauth) return;
    const credentials = transport.oauth;
    const key = JSON.stringify(credentials);
    if (this._inner && key === this._credentials) return;
    this._credentials = key;
    this._sink(['clientSecret' in credentials ? credentials.clientSecret : credentials.privateKey]);
    const provider =
      'clientSecret' in credentials
        ? new ClientCredentialsProvider({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, scope: credentials.scope, clientName: this._clientName, expectedIssuer: credentials.issuer })
        : new PrivateKeyJwtProvider({ clientId: credentials.clientId, privateKey: credentials.privateKey, algorithm: credentials.algorithm, scope: credentials.scope, clientName: this._clientName, expectedIssuer: credentials.issuer });
    const save = provider.saveTokens.bind(provider);
    provider.saveTokens = (tokens) => {
      this._sink([tokens.access_token, tokens.refresh_token ?? '']);
      save(tokens);
    };
    this._inner = new ClientCredentialsAuth(provider);
    this._inner.setSecretSink((values) => this._sink(values));
  }

  get provider(): OAuthClientProvider {
    if (!this._inner) throw new SignInError('failed', 'the client credentials of this server have not been resolved yet');
    return this._inner.provider;
  }

  async signIn(serverUrl: string): Promise<void> {
    if (!this._inner) throw new SignInError('failed', 'the client credentials of this server have not been resolved yet (start the server first)');
    await this._inner.signIn(serverUrl);
  }

  async signOut(): Promise<void> {
    await this._inner?.signOut();
  }
}
