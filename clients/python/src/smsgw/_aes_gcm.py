"""AES-256-GCM in pure Python (NIST SP 800-38D), because the standard library has no AES. Slow
(tens of microseconds a block) but message texts are short; checked against NIST's test case and
the envelope's shared vectors. Only what the envelope needs: 96-bit nonces, 128-bit tags."""
import hmac

_SBOX = []


def _build_sbox() -> None:
    # The S-box from the multiplicative inverse in GF(2^8) and the affine map (FIPS 197, 5.1.1).
    p = q = 1
    box = [0] * 256
    while True:
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        x = q ^ _rotl8(q, 1) ^ _rotl8(q, 2) ^ _rotl8(q, 3) ^ _rotl8(q, 4)
        box[p] = x ^ 0x63
        if p == 1:
            break
    box[0] = 0x63
    _SBOX.extend(box)


def _rotl8(x: int, shift: int) -> int:
    return ((x << shift) | (x >> (8 - shift))) & 0xFF


def _xtime(a: int) -> int:
    return ((a << 1) ^ 0x1B) & 0xFF if a & 0x80 else a << 1


_build_sbox()


def _expand_key(key: bytes) -> list:
    if len(key) != 32:
        raise ValueError("AES-256 needs a 32-byte key")
    words = [list(key[i : i + 4]) for i in range(0, 32, 4)]
    rcon = 1
    for i in range(8, 60):
        temp = list(words[i - 1])
        if i % 8 == 0:
            temp = [_SBOX[b] for b in temp[1:] + temp[:1]]
            temp[0] ^= rcon
            rcon = _xtime(rcon)
        elif i % 8 == 4:
            temp = [_SBOX[b] for b in temp]
        words.append([a ^ b for a, b in zip(words[i - 8], temp)])
    return [sum(words[r * 4 : r * 4 + 4], []) for r in range(15)]


def _encrypt_block(round_keys: list, block: bytes) -> bytes:
    s = [b ^ k for b, k in zip(block, round_keys[0])]
    for rnd in range(1, 15):
        s = [_SBOX[b] for b in s]
        # ShiftRows on the column-major state.
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]
        if rnd != 14:
            mixed = []
            for c in range(4):
                a = s[4 * c : 4 * c + 4]
                t = a[0] ^ a[1] ^ a[2] ^ a[3]
                mixed += [a[i] ^ t ^ _xtime(a[i] ^ a[(i + 1) % 4]) for i in range(4)]
            s = mixed
        s = [b ^ k for b, k in zip(s, round_keys[rnd])]
    return bytes(s)


def _gf_mult(x: int, y: int) -> int:
    r = 0xE1 << 120
    z = 0
    for i in range(127, -1, -1):
        if (y >> i) & 1:
            z ^= x
        x = (x >> 1) ^ r if x & 1 else x >> 1
    return z


def _ghash(h: int, aad: bytes, ciphertext: bytes) -> int:
    y = 0
    for data in (aad, ciphertext):
        for i in range(0, len(data), 16):
            y = _gf_mult(y ^ int.from_bytes(data[i : i + 16].ljust(16, b"\0"), "big"), h)
    lengths = ((len(aad) * 8) << 64) | (len(ciphertext) * 8)
    return _gf_mult(y ^ lengths, h)


def _ctr(round_keys: list, nonce: bytes, data: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 16):
        stream = _encrypt_block(round_keys, nonce + (2 + i // 16).to_bytes(4, "big"))
        out += bytes(a ^ b for a, b in zip(data[i : i + 16], stream))
    return bytes(out)


def _tag(round_keys: list, nonce: bytes, aad: bytes, ciphertext: bytes) -> bytes:
    h = int.from_bytes(_encrypt_block(round_keys, bytes(16)), "big")
    mask = int.from_bytes(_encrypt_block(round_keys, nonce + b"\0\0\0\1"), "big")
    return (_ghash(h, aad, ciphertext) ^ mask).to_bytes(16, "big")


def encrypt(key: bytes, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """The ciphertext followed by the 16-byte tag."""
    if len(nonce) != 12:
        raise ValueError("the nonce is 12 bytes")
    round_keys = _expand_key(key)
    ciphertext = _ctr(round_keys, nonce, plaintext)
    return ciphertext + _tag(round_keys, nonce, aad, ciphertext)


def decrypt(key: bytes, nonce: bytes, data: bytes, aad: bytes):
    """The plain text, or None when the tag does not match."""
    if len(nonce) != 12 or len(data) < 16:
        return None
    round_keys = _expand_key(key)
    ciphertext, tag = data[:-16], data[-16:]
    if not hmac.compare_digest(_tag(round_keys, nonce, aad, ciphertext), tag):
        return None
    return _ctr(round_keys, nonce, ciphertext)
