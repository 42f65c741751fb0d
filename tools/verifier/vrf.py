"""Scheme 3 dice (docs/dice.md): ECVRF-RISTRETTO255-SHA512 verification.

Written from RFC 9381 (ECVRF verification, §5.3), RFC 9496 (ristretto255:
decoding §4.3.1, encoding §4.3.2, the one-way map §4.3.4) and the suite
c2sp.org/vrf-r255, over the Edwards arithmetic of ed25519.py. Python's
standard library has no VRF; this is the independent verifier's own, so a
judge need not trust matchrec's Go library to trust a die.
"""

import hashlib

from .ed25519 import ED_BASE, ED_D, ED_L, ED_P, _ed_add, ed_mul

SUITE = b"\xffc2sp.org/vrf-r255"
_SQRT_M1 = pow(2, (ED_P - 1) // 4, ED_P)
# RFC 9496 §4.1 constants.
_INVSQRT_A_MINUS_D = 54469307008909316920995813868745141605393597292927456921205312896311721017578
_SQRT_AD_MINUS_ONE = 25063068953384623474111414158702152701244531502492656460079210482610430750235
_ONE_MINUS_D_SQ = 1159843021668779879193775521855586647937357759715417654439879720876111806838
_D_MINUS_ONE_SQ = 40440834346308536858101042469323190826248399146238708352240133220865137265952


def _neg(x):
    return x & 1


def _abs(x):
    x %= ED_P
    return ED_P - x if _neg(x) else x


def _sqrt_ratio_m1(u, v):
    """RFC 9496 §4.2 SQRT_RATIO_M1: (was_square, r) with r = +sqrt(u/v) or +sqrt(i*u/v)."""
    u, v = u % ED_P, v % ED_P
    v3 = v * v % ED_P * v % ED_P
    v7 = v3 * v3 % ED_P * v % ED_P
    r = u * v3 % ED_P * pow(u * v7 % ED_P, (ED_P - 5) // 8, ED_P) % ED_P
    check = v * r % ED_P * r % ED_P
    correct = check == u
    flipped = check == (-u) % ED_P
    flipped_i = check == (-u * _SQRT_M1) % ED_P
    r_prime = _SQRT_M1 * r % ED_P
    if flipped or flipped_i:
        r = r_prime
    return correct or flipped, _abs(r)


def decode(b):
    """RFC 9496 §4.3.1: a point (extended coordinates), or None for a non-canonical or invalid encoding."""
    if len(b) != 32:
        return None
    s = int.from_bytes(b, "little")
    if s >= ED_P or _neg(s):
        return None
    ss = s * s % ED_P
    u1, u2 = (1 - ss) % ED_P, (1 + ss) % ED_P
    u2_sqr = u2 * u2 % ED_P
    v = (-(ED_D * u1 % ED_P * u1) - u2_sqr) % ED_P
    was_square, invsqrt = _sqrt_ratio_m1(1, v * u2_sqr % ED_P)
    den_x = invsqrt * u2 % ED_P
    den_y = invsqrt * den_x % ED_P * v % ED_P
    x = _abs(2 * s * den_x)
    y = u1 * den_y % ED_P
    t = x * y % ED_P
    if not was_square or _neg(t) or y == 0:
        return None
    return (x, y, 1, t)


def encode(p):
    """RFC 9496 §4.3.2."""
    x0, y0, z0, t0 = (c % ED_P for c in p)
    u1 = (z0 + y0) * (z0 - y0) % ED_P
    u2 = x0 * y0 % ED_P
    _, invsqrt = _sqrt_ratio_m1(1, u1 * u2 % ED_P * u2 % ED_P)
    den1, den2 = invsqrt * u1 % ED_P, invsqrt * u2 % ED_P
    z_inv = den1 * den2 % ED_P * t0 % ED_P
    ix0, iy0 = x0 * _SQRT_M1 % ED_P, y0 * _SQRT_M1 % ED_P
    enchanted = den1 * _INVSQRT_A_MINUS_D % ED_P
    rotate = _neg(t0 * z_inv % ED_P)
    x, y = (iy0, ix0) if rotate else (x0, y0)
    den_inv = enchanted if rotate else den2
    if _neg(x * z_inv % ED_P):
        y = (-y) % ED_P
    s = _abs(den_inv * ((z0 - y) % ED_P))
    return s.to_bytes(32, "little")


def _map(t):
    """RFC 9496 §4.3.4 MAP: a field element to a point (Elligator 2)."""
    r = _SQRT_M1 * t % ED_P * t % ED_P
    u = (r + 1) * _ONE_MINUS_D_SQ % ED_P
    v = (-1 - r * ED_D) * (r + ED_D) % ED_P
    was_square, s = _sqrt_ratio_m1(u, v)
    s_prime = (-_abs(s * t % ED_P)) % ED_P
    if not was_square:
        s, c = s_prime, r
    else:
        c = ED_P - 1
    n = (c * (r - 1) % ED_P * _D_MINUS_ONE_SQ - v) % ED_P
    w0 = 2 * s * v % ED_P
    w1 = n * _SQRT_AD_MINUS_ONE % ED_P
    w2 = (1 - s * s) % ED_P
    w3 = (1 + s * s) % ED_P
    return (w0 * w3 % ED_P, w2 * w1 % ED_P, w1 * w3 % ED_P, w0 * w2 % ED_P)


def from_uniform_bytes(b):
    """RFC 9496 §4.3.4: the one-way map of 64 uniform bytes."""
    mask = (1 << 255) - 1
    t1 = int.from_bytes(b[:32], "little") & mask
    t2 = int.from_bytes(b[32:64], "little") & mask
    return _ed_add(_map(t1 % ED_P), _map(t2 % ED_P))


def _neg_point(p):
    return ((-p[0]) % ED_P, p[1], p[2], (-p[3]) % ED_P)


def key_from_seed(domain, seed):
    """docs/dice.md: the VRF public key of a seed, SHA-512(str(domain) || seed) reduced mod l, times B."""
    h = hashlib.sha512(len(domain).to_bytes(4, "big") + domain + seed).digest()
    return encode(ed_mul(int.from_bytes(h, "little") % ED_L, ED_BASE))


def verify(public, proof, alpha):
    """RFC 9381 §5.3 for ECVRF-RISTRETTO255-SHA512: the 64-byte output, or None when the proof is invalid."""
    if len(public) != 32 or len(proof) != 80:
        return None
    y, gamma = decode(public), decode(proof[:32])
    if y is None or gamma is None:
        return None
    c = int.from_bytes(proof[32:48], "little")
    s = int.from_bytes(proof[48:80], "little")
    if s >= ED_L:
        return None
    h = from_uniform_bytes(hashlib.sha512(SUITE + b"\x82" + public + alpha).digest())
    u = _ed_add(ed_mul(s, ED_BASE), _neg_point(ed_mul(c, y)))
    v = _ed_add(ed_mul(s, h), _neg_point(ed_mul(c, gamma)))
    c2 = hashlib.sha512(SUITE + b"\x02" + public + encode(h) + proof[:32] + encode(u) + encode(v) + b"\x00").digest()
    if c2[:16] != proof[32:48]:
        return None
    return hashlib.sha512(SUITE + b"\x03" + proof[:32] + b"\x00").digest()
