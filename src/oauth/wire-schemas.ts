/**
 * JSON schemas shared by the OAuth endpoints (they feed /openapi.json).
 */
import { Type } from '@sinclair/typebox';

/** RFC 6749 §5.2 error body. */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Error code (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 6750 §3.1)' }),
    error_description: Type.String({ description: 'What went wrong and what to send instead' }),
  },
  { description: 'OAuth 2.0 error response' },
);

/** Headers every response carrying a token or secret gets (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * OpenAPI security of the endpoints that authenticate clients: none (client_id and, for
 * client_secret_post, client_secret in the body) or HTTP Basic (client_secret_basic).
 */
export const CLIENT_AUTH_SECURITY: Array<Record<string, string[]>> = [{}, { clientSecretBasic: [] }];
