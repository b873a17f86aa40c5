/**
 * Steady load for fault-injection tests: agents that sign in, allow, exchange the code, call the
 * protected API and refresh, over and over, spread across server instances. Every request's
 * answer is recorded (status, error code, Retry-After, how long it took), and so is every token
 * answered and every exchange or refresh left without an answer, so a test can judge what a
 * fault did to each request and send the unanswered ones again.
 */
import { Browser, pkcePair, readForm } from './flow.js';
import { postForm } from './remote-client.js';

export interface Outcome {
  readonly kind: 'authorize' | 'signin' | 'consent' | 'token' | 'refresh' | 'api';
  readonly url: string;
  /** Date.now() when sent and when answered (or failed). */
  readonly start: number;
  readonly end: number;
  /** 0 when no HTTP answer came (the connection failed). */
  readonly status: number;
  readonly error?: string | undefined;
  readonly retryAfter?: string | null | undefined;
  readonly contentType?: string | null | undefined;
}

export interface Issued {
  /** A code exchange's refresh token is rotated in the same round; a refresh's is the chain's newest. */
  readonly kind: 'token' | 'refresh';
  /** When the answer arrived. */
  readonly at: number;
  readonly clientId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** A code exchange or refresh that got no success: the exact request, to send again. */
export interface Unanswered {
  readonly url: string;
  readonly form: Record<string, string>;
  readonly outcome: Outcome;
}

export interface LoadOptions {
  /** Base URLs; agent i starts at target i and moves on round robin. */
  readonly targets: readonly string[];
  readonly clientId: string;
  readonly redirectUri: string;
  readonly person: { readonly email: string; readonly password: string };
  readonly agents: number;
  /** Pause after a failed step, so a fault is not a busy loop. */
  readonly pauseMs?: number;
}

export class Load {
  readonly outcomes: Outcome[] = [];
  readonly issued: Issued[] = [];
  readonly unanswered: Unanswered[] = [];
  private stopping = false;
  private running: Promise<void>[] = [];

  constructor(private readonly options: LoadOptions) {}

  start(): this {
    this.running = Array.from({ length: this.options.agents }, (_, i) => this.agent(i));
    return this;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
  }

  /** Answers counted by kind, status and error, for failure messages. */
  summary(): string {
    const counts = new Map<string, number>();
    for (const o of this.outcomes) {
      const key = `${o.kind} ${o.status}${o.error ? ` ${o.error.slice(0, 80)}` : ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, n]) => `${n}× ${key}`).join('; ');
  }

  /** Sends one request and records its answer; undefined when no answer came. */
  private async send(
    kind: Outcome['kind'],
    url: string,
    request: () => Promise<Response>,
  ): Promise<{ response: Response; body: string } | undefined> {
    const start = Date.now();
    try {
      const response = await request();
      const body = await response.text();
      const contentType = response.headers.get('content-type');
      let error: string | undefined;
      if (response.status >= 400 && contentType?.startsWith('application/json')) {
        error = (JSON.parse(body) as { error?: string }).error;
      }
      this.outcomes.push({
        kind,
        url,
        start,
        end: Date.now(),
        status: response.status,
        error,
        retryAfter: response.headers.get('retry-after'),
        contentType,
      });
      return { response, body };
    } catch (error) {
      this.outcomes.push({ kind, url, start, end: Date.now(), status: 0, error: String(error) });
      return undefined;
    }
  }

  private async agent(index: number): Promise<void> {
    const { targets } = this.options;
    for (let round = 0; !this.stopping; round++) {
      const here = targets[(index + round) % targets.length]!;
      const there = targets[(index + round + 1) % targets.length]!;
      const ok = await this.round(here, there);
      if (!ok) await new Promise((r) => setTimeout(r, this.options.pauseMs ?? 100));
    }
  }

  /** One agent's round: sign in and allow at `here`, exchange and refresh at `there`. */
  private async round(here: string, there: string): Promise<boolean> {
    const { clientId, redirectUri } = this.options;
    const browser = new Browser(here);
    const pkce = pkcePair();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid profile account:read',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'load',
    });
    const code = await this.authorize(browser, here, `${here}/oauth/authorize?${query}`);
    if (!code) return false;
    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: pkce.verifier,
    };
    const tokens = await this.tokenRequest('token', there, exchange);
    if (!tokens) return false;
    const api = await this.send('api', here, () =>
      fetch(`${here}/api/v1/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
    );
    if (api?.response.status !== 200) return false;
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId };
    return (await this.tokenRequest('refresh', here, refresh)) !== undefined;
  }

  /**
   * Through the pages: sign in when asked, allow when asked, follow the server's own redirects;
   * answers the code of the redirect to the client, or undefined when a step failed.
   */
  private async authorize(browser: Browser, here: string, url: string): Promise<string | undefined> {
    const { person } = this.options;
    let answer = await this.send('authorize', here, () => browser.get(url));
    for (let step = 0; answer && step < 6; step++) {
      const location = answer.response.headers.get('location');
      if (answer.response.status === 302 || answer.response.status === 303) {
        const next = new URL(location ?? '', here);
        if (next.origin !== new URL(here).origin) return next.searchParams.get('code') ?? undefined;
        answer = await this.send('authorize', here, () => browser.get(next.href));
        continue;
      }
      if (answer.response.status !== 200) return undefined;
      const form = readForm(answer.body);
      answer =
        form.fields.step === 'signin'
          ? await this.send('signin', here, () =>
              browser.post(form.action, { ...form.fields, email: person.email, password: person.password }),
            )
          : await this.send('consent', here, () =>
              browser.post(form.action, { ...form.fields, decision: 'allow' }),
            );
    }
    return undefined;
  }

  private async tokenRequest(
    kind: 'token' | 'refresh',
    at: string,
    form: Record<string, string>,
  ): Promise<{ access_token: string; refresh_token: string } | undefined> {
    const url = `${at}/api/oauth/token`;
    const answer = await this.send(kind, url, () => postForm(url, form));
    if (answer?.response.status === 200) {
      const tokens = JSON.parse(answer.body) as { access_token: string; refresh_token: string };
      this.issued.push({
        kind,
        at: Date.now(),
        clientId: this.options.clientId,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
      });
      return tokens;
    }
    this.unanswered.push({ url, form, outcome: this.outcomes.at(-1)! });
    return undefined;
  }
}
