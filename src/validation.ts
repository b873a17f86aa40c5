/**
 * Schema validation: request bodies are validated strictly (no type coercion: `"1"` is not a
 * number and a repeated form field is an error, RFC 6749 §3.1); query strings and path
 * parameters are text on the wire, so there scalars are coerced (but never arrays).
 */
import AjvModule, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const Ajv = AjvModule.default;

function makeAjv(coerceTypes: boolean): InstanceType<typeof Ajv> {
  const options: Options = {
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  };
  const ajv = new Ajv(options);
  addFormats.default(ajv);
  return ajv;
}

export function installValidation(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
