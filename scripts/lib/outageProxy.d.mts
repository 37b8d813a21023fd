export interface OutageProxy {
  /** The proxy's URL (same path as the target's). */
  readonly url: string;
  /** Its control URL: POST `${control}/down?ms=N` takes the proxy's port down for N ms. */
  readonly control: string;
  stop(): void;
}
export declare function startOutageProxy(target: string): Promise<OutageProxy>;
