import type { FastifyInstance } from 'fastify';

export interface RouteInfo {
  readonly path: string;
  readonly methods: readonly string[];
}

/** Every route of the app, read from Fastify's own route tree, so no endpoint escapes the suite. */
export function listRoutes(app: FastifyInstance): RouteInfo[] {
  const lines = app.printRoutes({ commonPrefix: false }).split('\n');
  const stack: Array<{ depth: number; path: string }> = [];
  const routes: RouteInfo[] = [];
  for (const line of lines) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const path = (stack[stack.length - 1]?.path ?? '') + match[2]!;
    stack.push({ depth, path });
    const methods = (match[3] ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
    if (methods.length > 0) routes.push({ path, methods });
  }
  return routes;
}
