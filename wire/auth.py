"""Server side of password authentication: cleartext, MD5 and SCRAM-SHA-256.

Each method is a small exchange object: ``start()`` gives the first server
message, ``step(data)`` consumes a client PasswordMessage / SASL response and
gives the next server message, with ``done`` set once the client is proven.
No I/O here. SCRAM follows RFC 5802/7677 as PostgreSQL implements it
(no channel binding; the user name inside the SCRAM message is ignored: libpq
sends an empty one and pgjdbc sends ``*``, the startup message has the user).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from wire import messages

SCRAM_ITERATIONS = 4096


class AuthenticationFailed(Exception):
    """Wrong password or a malformed exchange (FATAL 28P01)."""


class AuthExchange:
    done: bool = False

    def start(self) -> bytes:
        raise NotImplementedError

    def step(self, data: bytes) -> bytes:
        raise NotImplementedError


def _constant_time_equal(a: bytes, b: bytes) -> bool:
    return hmac.compare_digest(a, b)


def md5_password_hash(user: str, password: str) -> str:
    """PostgreSQL's stored MD5 form: ``'md5' + md5(password || user)``."""
    return "md5" + hashlib.md5((password + user).encode()).hexdigest()


class MD5Exchange(AuthExchange):
    def __init__(self, stored: str) -> None:
        self._stored = stored.removeprefix("md5").encode()
        self._salt = secrets.token_bytes(4)

    def start(self) -> bytes:
        return messages.authentication_md5(self._salt)

    def step(self, data: bytes) -> bytes:
        expected = b"md5" + hashlib.md5(self._stored + self._salt).hexdigest().encode()
        if not _constant_time_equal(data.rstrip(b"\0"), expected):
            raise AuthenticationFailed
        self.done = True
        return b""


@dataclass(frozen=True, slots=True)
class ScramVerifier:
    """What a server needs to check a SCRAM client (PostgreSQL's rolpassword
    form is ``SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>``)."""

    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    @classmethod
    def from_password(
        cls, password: str, salt: bytes | None = None, iterations: int = SCRAM_ITERATIONS
    ) -> ScramVerifier:
        salt = salt or secrets.token_bytes(16)
        salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
        client_key = hmac.new(salted, b"Client Key", "sha256").digest()
        server_key = hmac.new(salted, b"Server Key", "sha256").digest()
        return cls(salt, iterations, hashlib.sha256(client_key).digest(), server_key)

    @classmethod
    def parse(cls, text: str) -> ScramVerifier | None:
        """The verifier stored as ``text``; None when it is not one."""
        match = _SCRAM_TEXT.match(text)
        if match is None:
            return None
        iterations, salt, stored, server = match.groups()
        try:
            return cls(base64.b64decode(salt, validate=True), int(iterations),
                       base64.b64decode(stored, validate=True),
                       base64.b64decode(server, validate=True))
        except ValueError:
            return None

    def text(self) -> str:
        encode = base64.b64encode
        return (f"SCRAM-SHA-256${self.iterations}:{encode(self.salt).decode()}$"
                f"{encode(self.stored_key).decode()}:{encode(self.server_key).decode()}")

    def check(self, password: str) -> bool:
        """Whether ``password`` is the one this verifier was made from."""
        computed = ScramVerifier.from_password(password, self.salt, self.iterations)
        return _constant_time_equal(computed.stored_key, self.stored_key)


_SCRAM_TEXT = re.compile(r"^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$")


def _parse_attributes(text: str) -> dict[str, str]:
    attributes: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or len(key) != 1:
            raise AuthenticationFailed
        attributes[key] = value
    return attributes


class ScramExchange(AuthExchange):
    MECHANISM = "SCRAM-SHA-256"

    def __init__(self, verifier: ScramVerifier) -> None:
        self._verifier = verifier
        self._server_nonce = base64.b64encode(secrets.token_bytes(18)).decode()
        self._client_first_bare = ""
        self._server_first = ""
        self._nonce = ""

    def start(self) -> bytes:
        return messages.authentication_sasl([self.MECHANISM])

    def step(self, data: bytes) -> bytes:
        if not self._server_first:
            return self._client_first(data)
        return self._client_final(data)

    def _client_first(self, data: bytes) -> bytes:
        # SASLInitialResponse: mechanism\0, int32 length, client-first-message
        mechanism, sep, rest = data.partition(b"\0")
        if not sep or mechanism.decode(errors="replace") != self.MECHANISM or len(rest) < 4:
            raise AuthenticationFailed
        message = rest[4:].decode(errors="replace")
        gs2_flag, _, rest_text = message.partition(",")
        if gs2_flag not in ("n", "y"):
            raise AuthenticationFailed  # channel binding ("p=") is not offered
        _authzid, _, bare = rest_text.partition(",")
        attributes = _parse_attributes(bare)
        client_nonce = attributes.get("r")
        if not client_nonce:
            raise AuthenticationFailed
        self._client_first_bare = bare
        self._nonce = client_nonce + self._server_nonce
        salt = base64.b64encode(self._verifier.salt).decode()
        self._server_first = f"r={self._nonce},s={salt},i={self._verifier.iterations}"
        return messages.authentication_sasl_continue(self._server_first.encode())

    def _client_final(self, data: bytes) -> bytes:
        final = data.decode(errors="replace")
        without_proof, sep, proof_text = final.rpartition(",p=")
        if not sep:
            raise AuthenticationFailed
        attributes = _parse_attributes(without_proof)
        if attributes.get("r") != self._nonce:
            raise AuthenticationFailed
        auth_message = f"{self._client_first_bare},{self._server_first},{without_proof}".encode()
        client_signature = hmac.new(self._verifier.stored_key, auth_message, "sha256").digest()
        try:
            proof = base64.b64decode(proof_text, validate=True)
        except ValueError as exc:
            raise AuthenticationFailed from exc
        if len(proof) != len(client_signature):
            raise AuthenticationFailed
        client_key = bytes(a ^ b for a, b in zip(proof, client_signature, strict=True))
        if not _constant_time_equal(hashlib.sha256(client_key).digest(),
                                    self._verifier.stored_key):
            raise AuthenticationFailed
        server_signature = hmac.new(self._verifier.server_key, auth_message, "sha256").digest()
        self.done = True
        return messages.authentication_sasl_final(
            b"v=" + base64.b64encode(server_signature)
        )


def _password_matches(stored: str, user: str, password: str) -> bool:
    verifier = ScramVerifier.parse(stored)
    if verifier is not None:
        return verifier.check(password)
    return _constant_time_equal(md5_password_hash(user, password).encode(), stored.encode())


class CleartextCheck(AuthExchange):
    """Method 'password': the client sends the password itself (over TLS,
    one hopes), checked against the stored verifier."""

    def __init__(self, user: str, stored: str | None) -> None:
        self._user = user
        self._stored = stored

    def start(self) -> bytes:
        return messages.authentication_cleartext()

    def step(self, data: bytes) -> bytes:
        password = data.rstrip(b"\0").decode(errors="replace")
        if self._stored is None or not _password_matches(self._stored, self._user, password):
            raise AuthenticationFailed
        self.done = True
        return b""


def exchange_for(method: str, user: str, stored: str | None) -> AuthExchange | None:
    """The exchange for a configured method and the user's stored verifier
    (None: the user has no password, or does not exist). As in PostgreSQL,
    md5 falls back to SCRAM for a SCRAM verifier, and a user who cannot
    succeed still goes through a SCRAM exchange with a made-up verifier,
    so a client cannot tell which users exist."""
    if method == "trust":
        return None
    if method == "password":
        return CleartextCheck(user, stored)
    if method == "md5" and stored is not None and stored.startswith("md5"):
        return MD5Exchange(stored)
    if method not in ("md5", "scram-sha-256"):
        raise AuthenticationFailed
    verifier = ScramVerifier.parse(stored) if stored is not None else None
    if verifier is None:
        return ScramExchange(ScramVerifier.from_password(secrets.token_hex(16)))
    return ScramExchange(verifier)
