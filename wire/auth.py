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


class CleartextExchange(AuthExchange):
    def __init__(self, password: str) -> None:
        self._password = password.encode()

    def start(self) -> bytes:
        return messages.authentication_cleartext()

    def step(self, data: bytes) -> bytes:
        if not _constant_time_equal(data.rstrip(b"\0"), self._password):
            raise AuthenticationFailed
        self.done = True
        return b""


def md5_password_hash(user: str, password: str) -> str:
    """PostgreSQL's stored MD5 form: ``'md5' + md5(password || user)``."""
    return "md5" + hashlib.md5((password + user).encode()).hexdigest()


class MD5Exchange(AuthExchange):
    def __init__(self, user: str, password: str) -> None:
        self._stored = md5_password_hash(user, password)[3:].encode()
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


def exchange_for(method: str, user: str, password: str | None) -> AuthExchange | None:
    """The exchange for a configured method; None for trust."""
    if method == "trust":
        return None
    if password is None:
        raise AuthenticationFailed
    if method == "password":
        return CleartextExchange(password)
    if method == "md5":
        return MD5Exchange(user, password)
    if method == "scram-sha-256":
        return ScramExchange(ScramVerifier.from_password(password))
    raise AuthenticationFailed
