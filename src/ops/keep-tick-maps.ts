/**
 * Keeps one `process.nextTick` queue entry alive for the life of the server, so that V8 keeps the
 * hidden classes ("maps") of Node's tick objects. Imported first by main.ts, for its side effect.
 *
 * Why (docs/performance.md, "nextTick gone megamorphic"): nextTick builds every queue entry with
 * an object literal whose first keys are symbols (`{ [async_id_symbol], [trigger_async_id_symbol],
 * callback, args }`). V8 holds the map transitions such a literal walks only weakly. Start-up
 * compiles several hundred schemas, and the full garbage collections that come with it run while
 * no tick object is alive: each one drops those maps, the next nextTick builds new ones, and after
 * four different maps the literal's property definitions in nextTick turn megamorphic for good.
 * From then on every nextTick (several per HTTP request) defines its properties in the V8
 * runtime: a fifth of the CPU of a metadata GET. One live entry keeps the chain of maps alive
 * (each map holds its parent), so the transitions are never dropped.
 *
 * A tick object is reachable only through an async hook's `init`; the hook is enabled for one
 * nextTick and disabled at once, so no request ever runs with a hook installed.
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject' && kept === undefined) kept = resource;
  },
});
hook.enable();
process.nextTick(() => undefined);
hook.disable();

/** The entry kept alive (exported so that it is visibly reachable; tests check it was caught). */
export function keptTickObject(): object | undefined {
  return kept;
}
