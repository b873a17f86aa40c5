// The part of node-oidc-provider 9's API the benchmark peer uses (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id?: string; scope?: string };
    session?: { accountId?: string };
    grantId?: string;
  }

  export class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export interface Client {
    grantTypeAllowed(type: string): boolean;
  }

  export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly Grant: typeof Grant;
    proxy: boolean;
    callback(): Handler;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
