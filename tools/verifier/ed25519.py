"""Ed25519 verification: RFC 8032 §5.1.7, with the reference arithmetic of §6
(pure Python integers: correct, not fast)."""

import hashlib

ED_P = 2 ** 255 - 19
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_P - 2, ED_P) % ED_P
_SQRT_M1 = pow(2, (ED_P - 1) // 4, ED_P)


def _ed_add(p, q):
    # Extended homogeneous coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z.
    a = (p[1] - p[0]) * (q[1] - q[0]) % ED_P
    b = (p[1] + p[0]) * (q[1] + q[0]) % ED_P
    c = 2 * p[3] * q[3] * ED_D % ED_P
    d = 2 * p[2] * q[2] % ED_P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % ED_P, g * h % ED_P, f * g % ED_P, e * h % ED_P)


def ed_mul(s, p):
    q = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            q = _ed_add(q, p)
        p = _ed_add(p, p)
        s >>= 1
    return q


def _ed_equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % ED_P == 0 and (p[1] * q[2] - q[1] * p[2]) % ED_P == 0


def _ed_recover_x(y, sign):
    if y >= ED_P:  # RFC 8032 §5.1.3 step 1: a non-canonical y fails
        return None
    x2 = (y * y - 1) * pow(ED_D * y * y + 1, ED_P - 2, ED_P) % ED_P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (ED_P + 3) // 8, ED_P)
    if (x * x - x2) % ED_P != 0:
        x = x * _SQRT_M1 % ED_P
    if (x * x - x2) % ED_P != 0:
        return None
    if (x & 1) != sign:
        x = ED_P - x
    return x


def ed_compress(p):
    zinv = pow(p[2], ED_P - 2, ED_P)
    x, y = p[0] * zinv % ED_P, p[1] * zinv % ED_P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def ed_decompress(s):
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _ed_recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % ED_P)


_BY = 4 * pow(5, ED_P - 2, ED_P) % ED_P
ED_BASE = (_ed_recover_x(_BY, 0), _BY, 1, _ed_recover_x(_BY, 0) * _BY % ED_P)


def ed25519_verify(public, message, signature):
    """True when signature is a valid Ed25519 signature of message by public."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = ed_decompress(public)
    r = ed_decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= ED_L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % ED_L
    # [S]B = R + [k]A, the check RFC 8032 §5.1.7 allows and Go's crypto/ed25519 makes.
    return _ed_equal(ed_mul(s, ED_BASE), _ed_add(r, ed_mul(k, a)))


STATEMENT_DOMAIN = b"matchrec-statement-v1"
RECEIPT_DOMAIN = b"matchrec-receipt-v1"


def signed_message(domain, message):
    """docs/events.md "Signatures": domain || 0x00 || message."""
    return domain + b"\x00" + message
