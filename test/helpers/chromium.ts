/** Chromium for browser suites (test/run.mjs sets SCHOOLAUTH_TEST_CHROMIUM when it finds one). */
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.SCHOOLAUTH_TEST_CHROMIUM;

/**
 * A headless Chromium without background traffic (every request stays on this machine).
 * `extraArgs`: more switches, e.g. `--host-resolver-rules=MAP name 127.0.0.1` for a page origin
 * with a non-loopback name that still loads from this machine.
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}
