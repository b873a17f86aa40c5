/**
 * Per-server fixtures, made through the real endpoints before a run: a registered public client,
 * a signed-in browser session with remembered consent, an access token for the read scenarios,
 * and pools of single-use values — codes minted through the authorize path, refresh and access
 * tokens from exchanging them.
 */
import { DpopKey } from './dpop.js';
import { CookieJar, HttpError, inParallel, withFreshJarRetries } from './http-client.js';
import {
  authorizeUrl,
  type BenchClient,
  discover,
  exchangeCode,
  followToCode,
  isDpopTokenSet,
  type Metadata,
  newPkce,
  type Pkce,
  registerClient,
  type TokenSet,
} from './oauth.js';
import { PoolAges } from './pool-ages.js';
import type { OAuthTarget } from './targets/target.js';

const MINT_CONCURRENCY = 16;
const MINT_ATTEMPTS = 3;
/** An access token's life when the token response leaves out `expires_in` (both servers' default). */
const DEFAULT_TOKEN_LIFE_S = 3600;

export type FixtureStep = 'registration' | 'authorize' | 'token';

/**
 * Single-use values: codes of an agent grant (API scope only, no ID token), codes of an OpenID
 * grant (an RS256 ID token per exchange), codes of an OpenID grant of a second client registered
 * with `id_token_signed_response_alg: ES256` (an ES256 ID token per exchange), and refresh and
 * access tokens of agent grants, and refresh tokens of agent grants bound to the run's DPoP key
 * (RFC 9449 §5: a public client's refresh token is bound to the key of the proof that got it).
 */
export type PoolKind = 'codes' | 'oidc-codes' | 'oidc-es256-codes' | 'refresh' | 'access' | 'dpop-refresh';

const CODE_POOLS: ReadonlySet<PoolKind> = new Set(['codes', 'oidc-codes', 'oidc-es256-codes']);

export class Fixture {
  readonly pools: Record<PoolKind, string[]> = {
    codes: [],
    'oidc-codes': [],
    'oidc-es256-codes': [],
    refresh: [],
    access: [],
    'dpop-refresh': [],
  };
  /** Why the authorization path (and so every token scenario) cannot run, if it cannot: short. */
  readonly problems = new Map<FixtureStep, string>();
  /** The full story behind each problem, for the log. */
  readonly details = new Map<FixtureStep, string>();
  client: BenchClient | undefined;
  /** The client registered with ES256 ID tokens: made at the first use of its pool. */
  es256Client: BenchClient | undefined;
  /** Tokens of the OpenID grant, for userinfo, introspection and the protected API. */
  reader: TokenSet | undefined;
  /** The reader's twin bound to `dpop` (token_type DPoP), for the DPoP protected GET. */
  dpopReader: TokenSet | undefined;
  /** The run's DPoP key (one per run), when the server advertises DPoP; else why not. */
  dpop: DpopKey | string = 'no dpop_signing_alg_values_supported in its discovery document';
  /** When `reader` was issued (ms), for `freshReader`. */
  private readerIssuedAt = 0;
  readonly pkce: Pkce = newPkce();
  /** Authorizations that failed and were tried again (see mintCode). */
  mintRetries = 0;
  /** Codes dropped unused because they had grown too old (pool-ages.ts). */
  staleCodes = 0;
  private readonly ages = new PoolAges<PoolKind>(CODE_POOLS);
  /**
   * One cookie jar, so one signed-in session, per minting lane (`inParallel`): a lane mints one
   * code at a time. node-oidc-provider gives its session a new identifier at every resume of an
   * authorization (actions/authorization/resume.js `resetIdentifier`), so authorizations in
   * flight together on one session race: one resumes with the identifier another has just
   * replaced, finds no session, and answers 400 ("interaction session and authentication session
   * mismatch") — 45–110 authorizations a full run were tried again while 16 lanes shared a jar,
   * and once all three attempts at one code failed and stopped the run (07:07Z, 2026-11-27).
   * Every caller awaits `ensure` before it calls it again, so lane n is one mint at a time.
   */
  private readonly jars = Array.from({ length: MINT_CONCURRENCY }, () => new CookieJar());

  private constructor(
    readonly target: OAuthTarget,
    readonly meta: Metadata,
  ) {}

  static async prepare(target: OAuthTarget): Promise<Fixture> {
    const fixture = new Fixture(target, await discover(target.server.baseUrl));
    if (fixture.meta.dpop_signing_alg_values_supported?.includes('ES256'))
      fixture.dpop = await DpopKey.generate();
    await fixture.setUp();
    return fixture;
  }

  private async setUp(): Promise<void> {
    this.client = await this.step('registration', () => registerClient(this.meta));
    if (!this.client) return;
    await this.mintReader();
  }

  /**
   * The reader's tokens again once half of the access token's life has passed: a full run takes
   * longer than the hour both servers give an access token, and the reader scenarios come last
   * (2026-11-28: the protected GET of a 10-second-run `npm run bench` answered 401 "expired").
   * Called before every load of a scenario that presents the reader's token (Scenario.reader).
   */
  async freshReader(): Promise<void> {
    if (!this.reader) return;
    const lifeMs = (this.reader.expires_in ?? DEFAULT_TOKEN_LIFE_S) * 1000;
    if (Date.now() - this.readerIssuedAt >= lifeMs / 2) await this.mintReader();
  }

  private async mintReader(): Promise<void> {
    // The reader's tokens come from a session of their own, which nothing later signs in to: a
    // node-oidc-provider access token is valid only while its session's grant for the client is
    // the one it was issued under (expiresWithSession, models/token_helpers.js), and a later
    // consent in a shared session (a pool's authorization tried again) replaced that grant and
    // answered userinfo 401 for the rest of a full run. The pools' authorizations sign in with
    // their lanes' `jars`; schoolauth shows its consent page to a public client every time
    // (RFC 8252 §8.6; docs/decisions.md "Authorization endpoint"), which mintCode answers, while node-oidc-provider's remembered
    // grant answers with a code at once.
    const client = this.client!;
    const code = await this.step('authorize', () =>
      followToCode(
        this.authorizeUrl(this.target.readerScope),
        client,
        new CookieJar(),
        this.target.answerPage,
      ),
    );
    if (code === undefined) return;
    const issuedAt = Date.now();
    const reader = await this.step('token', () => exchangeCode(this.meta, client, code, this.pkce));
    if (reader === undefined) return;
    this.reader = reader;
    this.readerIssuedAt = issuedAt;
    if (typeof this.dpop !== 'string') {
      const dpopCode = await followToCode(
        this.authorizeUrl(this.target.readerScope),
        client,
        new CookieJar(),
        this.target.answerPage,
      );
      this.dpopReader = await this.exchangeWithProof(dpopCode);
    }
  }

  /** A code exchanged with a proof of the run's key: DPoP-bound tokens, or an error. */
  private async exchangeWithProof(code: string): Promise<TokenSet> {
    const key = this.dpop as DpopKey;
    const proof = key.proof('POST', this.meta.token_endpoint);
    const tokens = await exchangeCode(this.meta, this.client!, code, this.pkce, { dpop: proof });
    if (!isDpopTokenSet(tokens))
      throw new Error(`a code exchange with a DPoP proof answered token_type ${tokens.token_type}`);
    return tokens;
  }

  private async step<T>(step: FixtureStep, run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      const notLanded = error instanceof HttpError && error.status === 404;
      this.problems.set(step, notLanded ? `not available yet (${step} 404)` : `${step} fails`);
      this.details.set(step, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  private authorizeUrl(scope: string, client = this.client!): string {
    return authorizeUrl(this.meta, client, scope, this.pkce);
  }

  /** Registers the ES256 client once; its first authorization answers the consent page. */
  private async es256(): Promise<BenchClient> {
    this.es256Client ??= await registerClient(this.meta, { id_token_signed_response_alg: 'ES256' });
    return this.es256Client;
  }

  /**
   * One code through the authorize path on minting lane `lane`'s session, for the bench's client
   * or `client` (the ES256 one). A failed path is tried again from an empty cookie jar, which then
   * becomes the lane's (MINT_ATTEMPTS in all, `withFreshJarRetries`); each retry is counted in
   * `mintRetries`. Pages on the way are answered as a person would: the sign-in (a lane's first
   * code) and schoolauth's consent page, shown to a public client with a loopback redirect every
   * time (RFC 8252 §8.6); minting is preparation, never measured.
   */
  private mintCode(scope: string, lane: number, client = this.client!): Promise<string> {
    return withFreshJarRetries(
      this.jars[lane]!,
      MINT_ATTEMPTS,
      (jar) => followToCode(this.authorizeUrl(scope, client), client, jar, this.target.answerPage),
      (fresh) => {
        this.mintRetries++;
        this.jars[lane] = fresh;
      },
    );
  }

  /** Makes sure the pool holds at least `count` unused values. */
  async ensure(kind: PoolKind, count: number): Promise<void> {
    const pool = this.pools[kind];
    if (this.ages.stale(kind, pool.length, Date.now())) {
      this.staleCodes += pool.length;
      pool.length = 0;
    }
    const missing = count - pool.length;
    if (missing <= 0) return;
    this.ages.minting(kind, Date.now());
    const { agentScope, readerScope } = this.target;
    if (kind === 'oidc-es256-codes') {
      const client = await this.es256();
      for (const code of await inParallel(missing, MINT_CONCURRENCY, (_, lane) =>
        this.mintCode(readerScope, lane, client),
      )) {
        this.pools[kind].push(code);
      }
      return;
    }
    if (kind === 'codes' || kind === 'oidc-codes') {
      const scope = kind === 'codes' ? agentScope : readerScope;
      // A loop, not push(...codes): a pool for a fast server outgrows the argument limit of a call.
      for (const code of await inParallel(missing, MINT_CONCURRENCY, (_, lane) =>
        this.mintCode(scope, lane),
      )) {
        this.pools[kind].push(code);
      }
      return;
    }
    if (kind === 'dpop-refresh') {
      const sets = await inParallel(missing, MINT_CONCURRENCY, async (_, lane) =>
        this.exchangeWithProof(await this.mintCode(agentScope, lane)),
      );
      for (const set of sets) if (set.refresh_token) this.pools[kind].push(set.refresh_token);
      return;
    }
    const pairs = await inParallel(missing, MINT_CONCURRENCY, async (_, lane) =>
      exchangeCode(this.meta, this.client!, await this.mintCode(agentScope, lane), this.pkce),
    );
    for (const pair of pairs) {
      this.pools.access.push(pair.access_token);
      if (pair.refresh_token) this.pools.refresh.push(pair.refresh_token);
    }
  }
}
