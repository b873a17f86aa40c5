/**
 * One server process per SQLite file (server-lock.ts), and the CLI is its only other writer:
 * "alone" means alone in this process, where the callers of one name take turns; the keys'
 * change is seen by the server's periodic reload.
 */
import type { Instances } from '../contract/instances.js';
import type { Scope } from '../store.js';

export function sqliteInstances(scope: () => Scope): Instances<Scope> {
  const running = new Set<string>();
  /** The last turn taken of each name; the next caller waits for it. */
  const turns = new Map<string, Promise<unknown>>();
  return {
    async tryAlone(name, job) {
      if (running.has(name)) return { ran: false };
      running.add(name);
      try {
        return { ran: true, result: await job() };
      } finally {
        running.delete(name);
      }
    },
    alone(name, work) {
      const before = turns.get(name) ?? Promise.resolve();
      const turn = before.catch(() => undefined).then(() => work(scope()));
      const settled = turn.catch(() => undefined);
      turns.set(name, settled);
      void settled.then(() => {
        if (turns.get(name) === settled) turns.delete(name);
      });
      return turn;
    },
    announceKeysChanged: async () => undefined,
    watchKeys: () => ({ stop: async () => undefined }),
  };
}
