// The module hooks of evaluation-order.mjs: after tsx has compiled a module under src/, one
// statement is put before its code (imports are hoisted, so it runs once its imports have run).
const SRC = new URL('../../src/', import.meta.url).href;

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.startsWith(SRC) || result.format !== 'module' || result.source == null) return result;
  const line = JSON.stringify(`evaluating ${url.slice(SRC.length)}\n`);
  return { ...result, source: `process.stderr.write(${line});\n${String(result.source)}` };
}
