"""requests-oauthlib (python3-requests-oauthlib) with its defaults: fetch_token sends client_id and
client_secret as HTTP Basic (client_secret_basic). PKCE by hand (1.3.0 has no helper). Its only
non-default is OAUTHLIB_INSECURE_TRANSPORT=1, set by the test: the test server is plain http."""
import base64
import hashlib
import secrets

from requests_oauthlib import OAuth2Session

from oauth_cli import Listener, discover, main, register, say

# Without offline_access: oauthlib raises "Scope has changed" when the granted scope differs from
# the requested one (docs/interop.md).
SCOPE = ['openid', 'profile']


def flow(issuer):
    metadata = discover(issuer)
    listener = Listener()
    redirect_uri = 'http://127.0.0.1:%d' % listener.port
    client = register(metadata, 'requests-oauthlib', 'client_secret_basic', 'http://127.0.0.1', ' '.join(SCOPE))
    session = OAuth2Session(client['client_id'], scope=SCOPE, redirect_uri=redirect_uri)
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b'=').decode()
    url, _state = session.authorization_url(metadata['authorization_endpoint'], code_challenge=challenge,
                                            code_challenge_method='S256')
    say('AUTHORIZE', url)
    token = session.fetch_token(metadata['token_endpoint'], authorization_response=listener.wait(),
                                client_secret=client['client_secret'], code_verifier=verifier)
    userinfo = session.get(metadata['userinfo_endpoint']).json()
    refreshed = session.refresh_token(metadata['token_endpoint'],
                                      auth=(client['client_id'], client['client_secret']))
    say('RESULT', {
        'scope': ' '.join(token['scope']),
        'userinfo_sub': userinfo.get('sub'),
        'rotated': refreshed['refresh_token'] != token['refresh_token'],
    })


main(flow)
