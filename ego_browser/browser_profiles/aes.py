"""AES-128 in CBC mode, pure Python: enough for Chromium's cookie and password values.

The project has no native crypto dependency (``cryptography`` is not installed on the machines
it runs on), and the values are small (a cookie is a few blocks), so a table-driven AES is fast
enough: about a millisecond per cookie on a loaded 2-core machine. Checked against
the FIPS-197 vectors and against values Chromium itself encrypted (tests/test_profiles_crypto.py).
"""

from __future__ import annotations

import functools

__all__ = ["cbc_decrypt", "cbc_encrypt", "PaddingError"]


class PaddingError(ValueError):
    """The plaintext's PKCS#7 padding is wrong: almost always the wrong key."""


def _xtime(a: int) -> int:
    a <<= 1
    return (a ^ 0x11B) & 0xFF if a & 0x100 else a


def _mul(a: int, b: int) -> int:
    out = 0
    while b:
        if b & 1:
            out ^= a
        a = _xtime(a)
        b >>= 1
    return out


def _sbox() -> tuple[list[int], list[int]]:
    sbox = [0] * 256
    inv = [0] * 256
    for x in range(256):
        # multiplicative inverse in GF(2^8) (0 maps to 0), then the affine map
        y = next((c for c in range(1, 256) if _mul(x, c) == 1), 0) if x else 0
        s = y
        for shift in range(1, 5):
            s ^= ((y << shift) | (y >> (8 - shift))) & 0xFF
        s ^= 0x63
        sbox[x] = s
        inv[s] = x
    return sbox, inv


_SBOX, _INV_SBOX = _sbox()
_MUL = {k: [_mul(x, k) for x in range(256)] for k in (2, 3, 9, 11, 13, 14)}


@functools.lru_cache(maxsize=8)
def _expand(key: bytes) -> list[list[int]]:
    if len(key) != 16:
        raise ValueError("AES-128 needs a 16-byte key")
    words = [list(key[i:i + 4]) for i in range(0, 16, 4)]
    rcon = 1
    for i in range(4, 44):
        w = list(words[i - 1])
        if i % 4 == 0:
            w = [_SBOX[b] for b in w[1:] + w[:1]]
            w[0] ^= rcon
            rcon = _xtime(rcon)
        words.append([a ^ b for a, b in zip(words[i - 4], w)])
    return [sum(words[r * 4:r * 4 + 4], []) for r in range(11)]


def _encrypt_block(block: bytes, keys: list[list[int]]) -> bytes:
    s = [b ^ k for b, k in zip(block, keys[0])]
    m2, m3 = _MUL[2], _MUL[3]
    for rnd in range(1, 11):
        s = [_SBOX[b] for b in s]
        # state is column-major: byte (row r, column c) at index 4c + r
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]
        if rnd != 10:
            out = []
            for c in range(4):
                a0, a1, a2, a3 = s[4 * c:4 * c + 4]
                out += [m2[a0] ^ m3[a1] ^ a2 ^ a3, a0 ^ m2[a1] ^ m3[a2] ^ a3,
                        a0 ^ a1 ^ m2[a2] ^ m3[a3], m3[a0] ^ a1 ^ a2 ^ m2[a3]]
            s = out
        s = [b ^ k for b, k in zip(s, keys[rnd])]
    return bytes(s)


def _decrypt_block(block: bytes, keys: list[list[int]]) -> bytes:
    s = [b ^ k for b, k in zip(block, keys[10])]
    m9, m11, m13, m14 = _MUL[9], _MUL[11], _MUL[13], _MUL[14]
    for rnd in range(9, -1, -1):
        s = [s[(i - 4 * (i % 4)) % 16] for i in range(16)]
        s = [_INV_SBOX[b] for b in s]
        s = [b ^ k for b, k in zip(s, keys[rnd])]
        if rnd != 0:
            out = []
            for c in range(4):
                a0, a1, a2, a3 = s[4 * c:4 * c + 4]
                out += [m14[a0] ^ m11[a1] ^ m13[a2] ^ m9[a3], m9[a0] ^ m14[a1] ^ m11[a2] ^ m13[a3],
                        m13[a0] ^ m9[a1] ^ m14[a2] ^ m11[a3], m11[a0] ^ m13[a1] ^ m9[a2] ^ m14[a3]]
            s = out
    return bytes(s)


def cbc_encrypt(key: bytes, iv: bytes, plaintext: bytes) -> bytes:
    keys = _expand(key)
    pad = 16 - len(plaintext) % 16
    data = plaintext + bytes([pad]) * pad
    out, prev = bytearray(), iv
    for i in range(0, len(data), 16):
        prev = _encrypt_block(bytes(a ^ b for a, b in zip(data[i:i + 16], prev)), keys)
        out += prev
    return bytes(out)


def cbc_decrypt(key: bytes, iv: bytes, ciphertext: bytes) -> bytes:
    if not ciphertext or len(ciphertext) % 16:
        raise PaddingError("ciphertext is not a whole number of blocks")
    keys = _expand(key)
    out, prev = bytearray(), iv
    for i in range(0, len(ciphertext), 16):
        block = ciphertext[i:i + 16]
        out += bytes(a ^ b for a, b in zip(_decrypt_block(block, keys), prev))
        prev = block
    pad = out[-1]
    if not 1 <= pad <= 16 or out[-pad:] != bytes([pad]) * pad:
        raise PaddingError("bad padding")
    return bytes(out[:-pad])
