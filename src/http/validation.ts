/**
 * Schema validation: request bodies are validated strictly (no type coercion: `"1"` is not a
 * number and a repeated form field is an error, RFC 6749 §3.1); query strings and path
 * parameters are text on the wire, so there scalars are coerced (but never arrays).
 */
import AjvModule, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { urlFormats } from '../school/url-fields.js';

const Ajv = AjvModule.default;

function makeAjv(coerceTypes: boolean, allowHttpUrls: boolean): InstanceType<typeof Ajv> {
  const options: Options = {
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  };
  const ajv = new Ajv(options);
  addFormats.default(ajv);
  for (const [name, validate] of Object.entries(urlFormats(allowHttpUrls))) {
    ajv.addFormat(name, { type: 'string', validate });
  }
  return ajv;
}

/**
 * `allowHttpUrls`: the issuer itself is http (only ever on a loopback host), so URL fields accept
 * http as well as https (url-fields.ts) — local upload URLs are http there.
 */
export function installValidation(app: FastifyInstance, allowHttpUrls: boolean): void {
  const strict = makeAjv(false, allowHttpUrls);
  const coercing = makeAjv(true, allowHttpUrls);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
