import type { PruneRun } from '../../growth-report.js';
import type { Measurement } from '../../load.js';

/** A one-second load run of 100 answers, all 200, with the p99 given: for the bench's report tests. */
export function oneSecondRun(p99: number): Measurement {
  return {
    rps: 100,
    p50: 1,
    p99,
    ok: 100,
    nonOk: 0,
    errors: 0,
    seconds: 1,
    exhausted: false,
    statusCodes: { '200': 100 },
    serverCpuSeconds: undefined,
  };
}

/** A prune of 9 access tokens in one second under introspection, before and during at `p99`; `rest` as given. */
export function pruneRun(p99: number, rest: Pick<PruneRun, 'wholeWindow'> & Partial<PruneRun>): PruneRun {
  const second = oneSecondRun(p99);
  return {
    scenario: 'introspection',
    connections: 16,
    before: second,
    during: [second],
    beforeLoop: undefined,
    duringLoop: undefined,
    pruneSeconds: 1,
    pruned: { accessTokens: 9 },
    ...rest,
  };
}
