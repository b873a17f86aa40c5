/**
 * `--soak`: mixed traffic against schoolauth for a long time (default 10 minutes), reading the
 * server's RSS (from /proc) and heap (through a preloaded probe) after the warm-up and after
 * every tenth of the soak. Refresh tokens sustain themselves: each rotation's new refresh and
 * access tokens feed the next refresh and revocation.
 */
import type { RequestSpec } from 'autocannon';
import { rssOf } from './child.js';
import { Fixture } from './fixture.js';
import { runLoad } from './load.js';
import { probe } from './measure.js';
import { DISCOVERY_PATH, FORM, refreshBody, type TokenSet, tokenRequestBody } from './oauth.js';
import type { BenchOptions } from './options.js';
import { REPORT_PATH, writeBlock } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { startSchoolauth } from './targets/schoolauth.js';

const SOAK_CONNECTIONS = 16;
const SEGMENTS = 10;
const MIB = 2 ** 20;

interface Snapshot {
  readonly at: string;
  readonly rps?: number;
  readonly rss: number | undefined;
  readonly heapUsed: number | undefined;
}

const fallback = { method: 'GET', path: DISCOVERY_PATH, body: undefined, headers: {} };

/** Refresh and revocation fed by the tokens the refreshes return. */
function tokenChain(fixture: Fixture): RequestSpec[] {
  const token = new URL(fixture.meta.token_endpoint).pathname;
  const revoke = new URL(fixture.meta.revocation_endpoint).pathname;
  return [
    {
      method: 'POST',
      path: token,
      headers: FORM,
      setupRequest: (request) => {
        const refresh = fixture.pools.refresh.pop();
        return refresh
          ? { ...request, body: refreshBody(fixture.client!, refresh) }
          : { ...request, ...fallback };
      },
      onResponse: (status, body) => {
        if (status !== 200 || !body.startsWith('{')) return;
        const tokens = JSON.parse(body) as TokenSet;
        if (tokens.refresh_token) fixture.pools.refresh.push(tokens.refresh_token);
        fixture.pools.access.push(tokens.access_token);
      },
    },
    {
      method: 'POST',
      path: revoke,
      headers: FORM,
      setupRequest: (request) => {
        const access = fixture.pools.access.pop();
        return access
          ? { ...request, body: tokenRequestBody(fixture.client!, access, 'access_token') }
          : { ...request, ...fallback };
      },
    },
  ];
}

/** Every available read and registration scenario once, plus the token chain when possible. */
async function mixedTraffic(fixture: Fixture): Promise<RequestSpec[]> {
  const requests: RequestSpec[] = [];
  for (const scenario of SCENARIOS.filter((s) => !s.pool)) {
    const plan = scenario.plan(fixture);
    if (typeof plan === 'string' || plan.kind !== 'static') continue;
    if (await probe(fixture.target.server.baseUrl, plan)) continue;
    requests.push({ ...plan.request });
  }
  if (fixture.reader?.refresh_token) {
    await fixture.ensure('refresh', SOAK_CONNECTIONS * 4);
    requests.push(...tokenChain(fixture));
  }
  return requests;
}

function row(s: Snapshot): string {
  const mib = (n: number | undefined) => (n === undefined ? '–' : (n / MIB).toFixed(1));
  return `| ${s.at} | ${s.rps === undefined ? '' : Math.round(s.rps)} | ${mib(s.rss)} | ${mib(s.heapUsed)} |`;
}

export async function runSoak(
  options: BenchOptions,
  dataDir: string,
  log: (line: string) => void,
): Promise<void> {
  const target = await startSchoolauth(dataDir, {
    logFile: options.serverLog,
    probe: true,
    rateLimits: options.rateLimits,
  });
  const { server } = target;
  const snapshot = async (at: string, rps?: number): Promise<Snapshot> => ({
    at,
    rps,
    rss: rssOf(server.pid),
    heapUsed: (await server.memory())?.heapUsed,
  });
  try {
    const fixture = await Fixture.prepare(target);
    const requests = await mixedTraffic(fixture);
    log(`soak: ${requests.length} request kinds, ${SOAK_CONNECTIONS} connections, ${options.soakSeconds} s`);
    const load = (seconds: number) =>
      runLoad({
        baseUrl: server.baseUrl,
        connections: SOAK_CONNECTIONS,
        seconds,
        plan: { kind: 'sequence', requests },
      });
    const warm = await load(Math.min(60, Math.max(options.warmup, options.soakSeconds / 10)));
    const snapshots = [await snapshot('after warm-up', warm.rps)];
    log(row(snapshots[0]!));
    for (let i = 1; i <= SEGMENTS; i++) {
      const m = await load(options.soakSeconds / SEGMENTS);
      snapshots.push(await snapshot(`${Math.round((options.soakSeconds * i) / SEGMENTS)} s`, m.rps));
      log(row(snapshots.at(-1)!));
    }
    report(snapshots, options, requests.length);
  } finally {
    await server.stop();
  }
  function report(snapshots: Snapshot[], options: BenchOptions, kinds: number): void {
    const start = snapshots[0]!.rss;
    const end = snapshots.at(-1)!.rss;
    const growth = start && end ? end / start - 1 : undefined;
    const verdict =
      growth === undefined
        ? 'not measured'
        : `${(growth * 100).toFixed(1)}% — ${growth <= 0.1 ? 'met' : 'NOT met'} (target: within 10%)`;
    const text = [
      `- ${new Date().toISOString()}: ${options.soakSeconds} s of mixed traffic (${kinds} request kinds in turn), ${SOAK_CONNECTIONS} connections, against schoolauth on SQLite, ${options.rateLimits ? 'rate limits on (raised above the load)' : 'RATE_LIMITS=off'}.`,
      '',
      '| Time | req/s | RSS MiB | heap used MiB |',
      '| --- | ---: | ---: | ---: |',
      ...snapshots.map(row),
      '',
      `RSS at the end against after warm-up: ${verdict}.`,
    ].join('\n');
    log(`\n${text}`);
    if (options.write) writeBlock(REPORT_PATH, options.rateLimits ? 'soak' : 'soak-no-rate-limits', text);
  }
}
