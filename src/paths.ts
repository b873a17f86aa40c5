/**
 * Where every endpoint is served. A leaf module: the authorization server, the pages, the
 * resource server and the generated documents all name URLs from here, so none of them has to
 * import another's route module to learn a path.
 */
export const PATHS = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  deviceAuthorization: '/api/oauth/device_authorization',
  /** The page where a person types a device's user code (RFC 8628 verification_uri). */
  device: '/device',
  registration: '/api/oauth/register',
  userinfo: '/api/oauth/userinfo',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  jwks: '/.well-known/jwks.json',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  openapi: '/openapi.json',
  authMd: '/auth.md',
  connectedApps: '/account/apps',
  /** The school API: every family, upload, school and account route is under it. */
  schoolApi: '/api/v1',
} as const;
