"""What a Python command-line tool does before its OAuth library takes over: discovery (RFC 8414),
dynamic registration (RFC 7591) of a loopback redirect URI, and a one-shot loopback listener
(RFC 8252 §7.3) that receives the redirect. Shared by authlib_flow.py and requests_oauthlib_flow.py,
which print "AUTHORIZE <url>" for the person's part and "RESULT <json>" at the end."""
import http.server
import json
import sys

import requests


def discover(issuer):
    return requests.get(issuer + '/.well-known/oauth-authorization-server', timeout=10).json()


def register(metadata, name, auth_method, redirect_uri, scope):
    body = {
        'client_name': name,
        'redirect_uris': [redirect_uri],
        'token_endpoint_auth_method': auth_method,
        'scope': scope,
    }
    response = requests.post(metadata['registration_endpoint'], json=body, timeout=10)
    response.raise_for_status()
    return response.json()


class Listener(http.server.HTTPServer):
    """Answers the one redirect the browser brings back and keeps its URL."""

    def __init__(self):
        self.callback = None
        super().__init__(('127.0.0.1', 0), Handler)

    @property
    def port(self):
        return self.server_address[1]

    def wait(self):
        self.handle_request()
        return 'http://127.0.0.1:%d%s' % (self.port, self.callback)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.callback = self.path
        self.send_response(200)
        self.send_header('Content-Type', 'text/plain')
        self.end_headers()
        self.wfile.write(b'You can close this window.')

    def log_message(self, *args):
        pass


def say(kind, value):
    print(kind, value if isinstance(value, str) else json.dumps(value), flush=True)


def main(flow):
    try:
        flow(sys.argv[1])
    except Exception as error:  # the test prints it: the library's own words
        say('ERROR', '%s: %s' % (type(error).__name__, error))
        sys.exit(1)
