"""A local OpenID Connect provider for the sign-in tests, and a Streamlit server that signs in with it.

The provider is ``oidc-provider-mock`` (built on Authlib) served by a thread of the test process on a free
loopback port: its authorisation page has one button per predefined person (their ``sub``), and it accepts any
client id and secret. Nothing leaves the machine, so ``.ci/run`` needs no service for it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import werkzeug.serving
from conftest import SHARED_SECRET, start_app, stop_app
from oidc_provider_mock import User
from oidc_provider_mock import app as provider_app


@contextlib.contextmanager
def oidc_provider(people: Mapping[str, Mapping[str, str]]) -> Iterator[str]:
    """Serve a provider knowing ``people`` (``sub`` → ID-token claims); yield its issuer URL."""
    insecure = os.environ.get("AUTHLIB_INSECURE_TRANSPORT")
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # plain http on loopback (Authlib insists on https otherwise)
    users = [User(sub=sub, claims=dict(claims)) for sub, claims in people.items()]
    server = werkzeug.serving.make_server("127.0.0.1", 0, provider_app(user_claims=users, require_nonce=True),
                                          threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()
        if insecure is None:
            os.environ.pop("AUTHLIB_INSECURE_TRANSPORT", None)
        else:
            os.environ["AUTHLIB_INSECURE_TRANSPORT"] = insecure


def auth_secrets(issuer: str) -> str:
    """The ``[auth]`` section of ``secrets.toml`` for the app on 127.0.0.1 (Streamlit fills in its port)."""
    return ('[auth]\nredirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            f'cookie_secret = "{secrets.token_hex(32)}"\nclient_id = "dp-dashboard"\n'
            f'client_secret = "{secrets.token_hex(16)}"\n'
            f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n')


@contextlib.contextmanager
def signin_app(issuer: str, folder: Path, access: str) -> Iterator[str]:
    """``streamlit run app.py`` with sign-in through ``issuer`` and the ``[access]`` table ``access``."""
    data_dir = folder / "data"
    data_dir.mkdir(parents=True)
    (data_dir / "dpcore.toml").write_text(access)
    secrets_file = folder / "secrets.toml"
    secrets_file.write_text(auth_secrets(issuer))
    secrets_file.chmod(0o600)
    proc, url = start_app(data_dir, extra_env={"STREAMLIT_SECRETS_FILES": str(secrets_file),
                                               "AUTHLIB_INSECURE_TRANSPORT": "1",
                                               # sign-in makes it shared: its ledger secret kept outside the data
                                               "DPCORE_LEDGER_SECRET": SHARED_SECRET.hex()})
    try:
        yield url
    finally:
        stop_app(proc)
