"""The end-to-end envelope, version 1 (docs/api/encryption.md): seal a text before sending it with
``encrypted=True``, open what the inbox, webhooks and history return for encrypted messages."""
import base64
import hashlib
import os
import re

from . import _aes_gcm

PREFIX = "$smsgw-e2e$v1$"
DEFAULT_KDF = {"ln": 14, "r": 8, "p": 1}
_LIMITS = {"ln": (10, 20), "r": (1, 16), "p": (1, 4)}
_SHAPE = re.compile(
    r"\$smsgw-e2e\$v1\$scrypt\$ln=([1-9][0-9]?),r=([1-9][0-9]?),p=([1-9])\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)"
)


class DecryptionFailed(Exception):
    """The envelope does not open: wrong passphrase, altered or malformed envelope."""

    code = "DECRYPTION_FAILED"

    def __init__(self, reason: str) -> None:
        super().__init__(f"the envelope does not open: {reason}")
        self.reason = reason


def is_envelope(text: str) -> bool:
    return text.startswith(PREFIX)


def seal(plaintext: str, passphrase: str, kdf=None, salt: bytes = None, nonce: bytes = None) -> str:
    """The envelope of ``plaintext``. ``salt`` and ``nonce`` are for test vectors only."""
    kdf = kdf or DEFAULT_KDF
    if not _within_limits(kdf):
        raise ValueError("scrypt parameters out of range (ln 10-20, r 1-16, p 1-4)")
    salt = os.urandom(16) if salt is None else salt
    nonce = os.urandom(12) if nonce is None else nonce
    if len(salt) != 16 or len(nonce) != 12:
        raise ValueError("salt is 16 bytes, nonce 12")
    header = f"{PREFIX}scrypt$ln={kdf['ln']},r={kdf['r']},p={kdf['p']}${_b64(salt)}${_b64(nonce)}"
    body = _aes_gcm.encrypt(_key(passphrase, salt, kdf), nonce, plaintext.encode("utf-8"), header.encode("ascii"))
    return f"{header}${_b64(body)}"


def open_envelope(envelope: str, passphrase: str) -> str:
    """The plain text; raises DecryptionFailed when the envelope does not open."""
    match = _SHAPE.fullmatch(envelope)
    if not match:
        raise DecryptionFailed("malformed envelope" if is_envelope(envelope) else "not an envelope")
    kdf = {"ln": int(match.group(1)), "r": int(match.group(2)), "p": int(match.group(3))}
    if not _within_limits(kdf):
        raise DecryptionFailed("key derivation parameters out of range")
    salt, nonce, body = (_unb64(match.group(i)) for i in (4, 5, 6))
    if salt is None or len(salt) != 16:
        raise DecryptionFailed("bad salt")
    if nonce is None or len(nonce) != 12:
        raise DecryptionFailed("bad nonce")
    if body is None or len(body) < 16:
        raise DecryptionFailed("bad ciphertext")
    header = envelope[: envelope.rindex("$")]
    plain = _aes_gcm.decrypt(_key(passphrase, salt, kdf), nonce, body, header.encode("ascii"))
    if plain is None:
        raise DecryptionFailed("authentication failed (wrong passphrase or altered envelope)")
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError:
        raise DecryptionFailed("plain text is not UTF-8") from None


def _key(passphrase: str, salt: bytes, kdf) -> bytes:
    n = 2 ** kdf["ln"]
    return hashlib.scrypt(
        passphrase.encode("utf-8"), salt=salt, n=n, r=kdf["r"], p=kdf["p"], maxmem=256 * n * kdf["r"] + 2**20, dklen=32
    )


def _within_limits(kdf) -> bool:
    return all(low <= kdf[name] <= high for name, (low, high) in _LIMITS.items())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str):
    """Canonical base64url only: a field that does not re-encode to itself is refused."""
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return None
    return data if _b64(data) == text else None
