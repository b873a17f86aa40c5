"""authlib (python3-authlib) with its defaults: a client that holds a secret authenticates with
HTTP Basic (client_secret_basic) - even though this one registered client_secret_post - at the
token, introspection and revocation endpoints. PKCE S256, offline_access requested."""
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

from oauth_cli import Listener, discover, main, register, say

SCOPE = 'openid profile offline_access'


def flow(issuer):
    metadata = discover(issuer)
    listener = Listener()
    redirect_uri = 'http://127.0.0.1:%d/callback' % listener.port
    client = register(metadata, 'authlib', 'client_secret_post', 'http://127.0.0.1/callback', SCOPE)
    session = OAuth2Session(client['client_id'], client['client_secret'], scope=SCOPE,
                            redirect_uri=redirect_uri, code_challenge_method='S256')
    verifier = generate_token(48)
    url, _state = session.create_authorization_url(metadata['authorization_endpoint'], code_verifier=verifier)
    say('AUTHORIZE', url)
    token = session.fetch_token(metadata['token_endpoint'], authorization_response=listener.wait(),
                                code_verifier=verifier)
    userinfo = session.get(metadata['userinfo_endpoint']).json()
    refreshed = session.refresh_token(metadata['token_endpoint'])
    introspection = session.introspect_token(metadata['introspection_endpoint'],
                                             token=refreshed['access_token']).json()
    revoked = session.revoke_token(metadata['revocation_endpoint'], token=refreshed['refresh_token'],
                                   token_type_hint='refresh_token')
    say('RESULT', {
        'auth_method': session.token_endpoint_auth_method,
        'scope': token['scope'],
        'userinfo_sub': userinfo.get('sub'),
        'refreshed_scope': refreshed['scope'],
        'rotated': refreshed['refresh_token'] != token['refresh_token'],
        'introspection': introspection,
        'revocation_status': revoked.status_code,
    })


main(flow)
