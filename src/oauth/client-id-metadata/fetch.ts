/**
 * Fetching a Client ID Metadata Document without being turned against the network it runs in
 * (draft-ietf-oauth-client-id-metadata-document §5, §8.6, §8.7; docs/security.md "Client ID
 * Metadata Documents"). The host is resolved once, here; every address it resolves to is judged
 * (one special-use address refuses the host), and the connection goes to exactly the address
 * judged — the socket's `lookup` answers with it, so no second resolution can swap it (DNS
 * rebinding). https only, no redirects followed, 200 only, JSON only, at most 5 KB read, and a
 * deadline for connecting (resolution, TCP and TLS) and another for reading the answer.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { CacheHeaders } from './cache-lifetime.js';
import { MAX_DOCUMENT_BYTES } from './document.js';
import { specialAddressProblem } from './special-addresses.js';

/** Resolves a host name to every address it has (dns.lookup with all: true by default). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface FetchSettings {
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
  /** Loopback addresses are allowed only for a loopback issuer (draft §8.6). */
  readonly allowLoopback: boolean;
  /** The PEM certificates to trust (Node's roots plus CLIENT_METADATA_CA_FILE); else Node's store. */
  readonly ca: readonly string[] | undefined;
  readonly resolve?: Resolver;
}

/** Why a fetch failed; also the `outcome` label of the fetch counter in /metrics. */
export type FetchFailure =
  | 'address_refused'
  | 'dns'
  | 'timeout'
  | 'tls'
  | 'network'
  | 'redirect'
  | 'status'
  | 'content_type'
  | 'too_large';

export type Fetched =
  | { readonly ok: true; readonly body: Buffer; readonly headers: CacheHeaders }
  | { readonly ok: false; readonly failure: FetchFailure; readonly reason: string };

const systemResolve: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A `lookup` that answers every query with the one address already judged. */
function pinnedLookup(chosen: LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (typeof options === 'object' && options?.all) {
      (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [chosen]);
    } else {
      callback(null, chosen.address, chosen.family);
    }
  };
}

/** Resolves and judges the host; the address to connect to, or why there is none. */
async function judgeHost(hostname: string, settings: FetchSettings): Promise<LookupAddress | Fetched> {
  let addresses: readonly LookupAddress[];
  const family = isIP(hostname);
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await (settings.resolve ?? systemResolve)(hostname);
    } catch {
      return { ok: false, failure: 'dns', reason: `the host name ${hostname} does not resolve` };
    }
  }
  if (addresses.length === 0) {
    return { ok: false, failure: 'dns', reason: `the host name ${hostname} has no address` };
  }
  for (const { address } of addresses) {
    const problem = specialAddressProblem(address, settings.allowLoopback);
    if (problem) {
      // An IP literal is the address itself: "10.1.2.3 is a special-use address: …"; a name
      // says what it resolved to: "x.example resolves to 10.1.2.3, which is a special-use …".
      const reason =
        family !== 0 ? problem : `${hostname} resolves to ${problem.replace(' is ', ', which is ')}`;
      return { ok: false, failure: 'address_refused', reason };
    }
  }
  return addresses[0]!;
}

function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  // Draft §4: application/json, or a more specific application/<name>+json.
  return type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

function tlsError(error: NodeJS.ErrnoException): boolean {
  const code = error.code ?? '';
  return /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code);
}

/** Judges the response head; undefined when the body may be read. */
function responseProblem(res: IncomingMessage): Fetched | undefined {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    // The target is not named: the error page shows no address the request did not.
    return {
      ok: false,
      failure: 'redirect',
      reason: `it answered ${status}, a redirect; redirects are not followed (draft §5)`,
    };
  }
  if (status !== 200) return { ok: false, failure: 'status', reason: `it answered HTTP ${status}, not 200` };
  if (!isJsonType(res.headers['content-type'])) {
    return {
      ok: false,
      failure: 'content_type',
      reason: `it answered Content-Type ${JSON.stringify(res.headers['content-type'] ?? '(none)')}, not application/json`,
    };
  }
  const length = Number(res.headers['content-length'] ?? 0);
  if (length > MAX_DOCUMENT_BYTES) return tooLarge();
  return undefined;
}

const tooLarge = (): Fetched => ({
  ok: false,
  failure: 'too_large',
  reason: `it is larger than ${MAX_DOCUMENT_BYTES} bytes`,
});

/** Resolves and judges the host within `ms`. */
function judgeHostWithin(
  hostname: string,
  settings: FetchSettings,
  ms: number,
): Promise<LookupAddress | Fetched> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Fetched>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, failure: 'timeout', reason: `${hostname} did not resolve within ${ms} ms` }),
      ms,
    );
  });
  return Promise.race([judgeHost(hostname, settings), timeout]).finally(() => clearTimeout(timer));
}

/** Fetches `url` (a valid client_id URL) under every rule above; never throws. */
export async function fetchDocument(url: string, settings: FetchSettings): Promise<Fetched> {
  const started = Date.now();
  const target = new URL(url);
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const judged = await judgeHostWithin(hostname, settings, settings.connectTimeoutMs);
  if ('ok' in judged) return judged;
  const remaining = Math.max(1, settings.connectTimeoutMs - (Date.now() - started));
  return exchange(target, hostname, judged, settings, remaining);
}

function exchange(
  target: URL,
  hostname: string,
  address: LookupAddress,
  settings: FetchSettings,
  connectTimeoutMs: number,
): Promise<Fetched> {
  return new Promise<Fetched>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const settle = (result: Fetched): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const deadline = (ms: number, what: string) => {
      clearTimeout(timer);
      timer = setTimeout(
        () => settle({ ok: false, failure: 'timeout', reason: `${what} within ${ms} ms` }),
        ms,
      );
    };
    const req = request({
      hostname,
      port: target.port || 443,
      path: target.pathname + target.search,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'schoolauth (client metadata fetch)' },
      agent: false,
      lookup: pinnedLookup(address),
      ...(settings.ca ? { ca: [...settings.ca] } : {}),
    });
    deadline(connectTimeoutMs, `no connection to ${hostname} was established`);
    req.once('socket', (socket) =>
      socket.once('secureConnect', () => deadline(settings.readTimeoutMs, 'the document was not received')),
    );
    // `on`, not `once`: destroying the request may emit a second error after the first settled.
    req.on('error', (error: NodeJS.ErrnoException) => settle(connectionFailure(error)));
    req.once('response', (res) => readBody(res, settle));
    req.end();
  });
}

function connectionFailure(error: NodeJS.ErrnoException): Fetched {
  if (tlsError(error)) {
    return { ok: false, failure: 'tls', reason: `its TLS certificate was not accepted (${error.code})` };
  }
  return { ok: false, failure: 'network', reason: `the connection failed (${error.code ?? error.message})` };
}

function readBody(res: IncomingMessage, settle: (result: Fetched) => void): void {
  const problem = responseProblem(res);
  if (problem) {
    settle(problem);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    // Draft §8.7: stop reading at the limit, whatever Content-Length claimed.
    if (size > MAX_DOCUMENT_BYTES) settle(tooLarge());
    else chunks.push(chunk);
  });
  res.once('end', () =>
    settle({
      ok: true,
      body: Buffer.concat(chunks),
      headers: {
        cacheControl: res.headers['cache-control'],
        expires: res.headers.expires,
        date: res.headers.date,
      },
    }),
  );
  const cut = () => settle({ ok: false, failure: 'network', reason: 'the answer was cut off' });
  res.on('error', cut);
  res.once('close', cut);
}
