// Preloaded with `--import` after tsx: every module under src/ writes "evaluating <path>" to
// stderr as its body begins, so a test sees the order in which the entry point evaluates them.
import { register } from 'node:module';

register(new URL('./evaluation-order-hooks.mjs', import.meta.url));
