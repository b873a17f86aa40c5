/**
 * Storage uploads (storage:write): one file per multipart request, at most UPLOAD_MAX_BYTES
 * (413 beyond), written under DATA_DIR/uploads and answered with the URL that serves it.
 * Uploaded bytes are untrusted and share the authorization server's origin, so they are served
 * sandboxed (CSP `sandbox`) and, unless a plain image, as a download.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, notFound, WireError } from '../errors.js';
import { newId } from '../school/rows.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { whyUnavailable } from '../storage/unavailable.js';
import { isoTime } from './codec.js';
import { errorSchema, schoolParam } from './schemas.js';
import { loadSchool, requireWrite } from './school-access.js';

const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MIME = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/;

export function safeFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  return cleaned || 'file';
}

const uploadSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ format: 'uri', description: 'Where the file is served (no token needed)' }),
    filename: Type.String(),
    content_type: Type.String(),
    size: Type.Integer({ minimum: 0 }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { description: 'The stored file' },
);

const tooLarge = (max: number) =>
  new ApiError('payload_too_large', `the file is larger than ${max} bytes; send a smaller file`, 413);

/**
 * Runs a step that parses the multipart stream. The parser (busboy) reports a garbled body with
 * plain errors; those are the client's fault, so they answer 400, never 500. Errors that carry
 * a 4xx status (limits, wrong type) keep it, and a full disk under the file is no fault of the
 * request: it answers 503 (http/error-handler.ts).
 */
async function readUploadPart<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (error instanceof WireError || (status !== undefined && status >= 400 && status < 500)) throw error;
    if (whyUnavailable(error)) throw error;
    throw badRequest(
      'the multipart body could not be read; send one part named "file" between valid boundaries',
    );
  }
}

const uploadDir = (ctx: AppContext) => join(ctx.config.dataDir, 'uploads');

export async function uploadRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // In a scope of its own: the plugin adds two async hooks and a listener to every request of the
  // scope it is registered in, and only this route reads multipart bodies.
  await app.register(async (scope) => uploadRoute(scope, ctx));
}

async function uploadRoute(untyped: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(multipart, {
    limits: { fileSize: ctx.config.uploadMaxBytes, files: 1, fields: 5, parts: 6 },
  });
  app.post('/schools/:school/uploads', {
    config: { access: { scope: 'storage:write', anonymous: false } },
    // The body is a stream read in the handler; the schema below documents it only.
    validatorCompiler: () => () => true,
    schema: {
      tags: ['Storage'],
      summary: 'Upload a file',
      description: `multipart/form-data with one part named "file"; at most ${ctx.config.uploadMaxBytes} bytes (413 beyond). Owner or admin.`,
      consumes: ['multipart/form-data'],
      params: Type.Object({ school: schoolParam }),
      body: Type.Object(
        { file: Type.String({ format: 'binary', description: 'The file' }) },
        { required: ['file'] },
      ),
      response: {
        201: uploadSchema,
        413: {
          ...errorSchema,
          description: 'The file is larger than UPLOAD_MAX_BYTES (`payload_too_large`)',
        },
        415: { ...errorSchema, description: 'Not multipart/form-data (`unsupported_media_type`)' },
      },
    },
    handler: async (request, reply) => {
      const access = await loadSchool(ctx.store, request.params.school, request.principal);
      requireWrite(access, undefined, 'storage');
      if (!request.isMultipart()) {
        throw new ApiError(
          'unsupported_media_type',
          'send the file as multipart/form-data in a part named "file"',
          415,
        );
      }
      const part = await readUploadPart(() => request.file());
      if (part?.fieldname !== 'file')
        throw badRequest('field "file" is missing; send the file in a multipart part named "file"');
      const id = newId('upl');
      // Private to the service's user, like the database (src/storage/private-files.ts).
      await mkdir(uploadDir(ctx), { recursive: true, mode: PRIVATE_DIR_MODE });
      const path = join(uploadDir(ctx), id);
      try {
        const file = createWriteStream(path, { flags: 'wx', mode: PRIVATE_FILE_MODE });
        await readUploadPart(() => pipeline(part.file, file));
        if (part.file.truncated) throw tooLarge(ctx.config.uploadMaxBytes);
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      const size = part.file.bytesRead;
      const filename = safeFilename(part.filename);
      const contentType = MIME.test(part.mimetype) ? part.mimetype : 'application/octet-stream';
      const now = ctx.now();
      await ctx.store.school.insertUpload({
        id,
        school_id: access.school.id,
        account_id: (request.principal as { accountId: string }).accountId,
        filename,
        content_type: contentType,
        size,
        created_at: now,
        updated_at: now,
      });
      const url = `${ctx.config.issuer}/uploads/${id}/${encodeURIComponent(filename)}`;
      return reply
        .code(201)
        .send({ id, url, filename, content_type: contentType, size, created_at: isoTime(now) });
    },
  });
}

/** GET /uploads/{id}/{filename}: the stored file; public, like any published asset URL. */
export async function uploadFileRoute(untyped: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/uploads/:id/:filename', {
    schema: {
      tags: ['Storage'],
      summary: 'Download an uploaded file',
      description: 'The URL an upload answered with. Needs no token.',
      security: [],
      params: Type.Object({ id: Type.String({ pattern: '^upl_[0-9a-z]+$' }), filename: Type.String() }),
      response: {
        200: {
          description: 'The file',
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
      },
    },
    config: { validationErrorCode: 'not_found' },
    handler: async (request, reply) => {
      const { id, filename } = request.params;
      const row = await ctx.store.school.findUpload(id);
      if (!row || row.filename !== filename) throw notFound('file');
      const inline = INLINE_TYPES.has(row.content_type);
      return reply
        .headers({
          'content-type': row.content_type,
          'content-length': String(row.size),
          'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${row.filename}"`,
          'content-security-policy': "sandbox; default-src 'none'",
          'cache-control': 'private, max-age=300',
        })
        .send(createReadStream(join(uploadDir(ctx), row.id)));
    },
  });
}
