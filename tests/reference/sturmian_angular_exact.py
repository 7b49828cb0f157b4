#!/usr/bin/env python3
r"""
sturmian_angular_exact.py -- exact reference values of the Sturmian angular coefficients
A^{LM}_{l'a l'b la lb l} (paper eqs. 16-18) for tests/sturmian.rs (table ANGULAR_EXACT), and of
the 6j symbols behind them for tests/wigner3j.rs (table SIX_J_EXACT).

WHAT IT COMPUTES
  A = (2l+1)/(4 pi) * C,  C = <(l'a l'b) L M | P_l(cos theta_12) | (la lb) L M>
    = (-1)^(la + l'b + L) {l'a l'b L; lb la l} <l'a||C^l||la> <l'b||C^l||lb>,
  <l'||C^l||l> = (-1)^l' sqrt((2l'+1)(2l+1)) (l' l l; 0 0 0)     (Edmonds 1957, eqs. 7.1.6, 5.4.5).

HOW
  sympy.physics.wigner.wigner_3j and wigner_6j (sympy 1.14): exact arithmetic (integer
  factorials, exact square roots of rationals), independent of atomgpu's code. The product is
  exact up to the factor 1/pi; it is evaluated with sympy's N(.., 40) (40 significant digits,
  mpmath underneath) and printed with 25 significant digits, so that Rust's correctly rounded
  parsing of the literal gives the exact value correctly rounded to double precision.

  Self-check at start-up: the closed form against eq. 18 of the paper evaluated literally (the
  double sum of four Clebsch-Gordan coefficients, sympy.physics.wigner.clebsch_gordan, exact) for
  every l'a, l'b, la, lb <= 2, every L and l allowed, M = 0 and M = L; they must agree exactly.

ROWS (L, l'a, l'b, la, lb, l, A)
  - all four l = 100, L = 200, l = 100 (the issue's "3 s at l = 100"), and l'a = l'b = la = lb = 200
    rows at L = 0, 100, 200 (the documented maximum, l up to 400);
  - tiny values around 1e-46 .. 1e-120 (L = 150 and 200, all four l = 100, l = 140 .. 200), where
    eq. 18's alternating double sum in double precision loses every digit and the sign;
  - 24 random rows (fixed seed) with l'a, l'b, la, lb in [0, 200], an L both pairs couple to and
    an allowed l; zeros are kept (exact 0).

SIX_J_EXACT (j1, j2, j3, j4, j5, j6, {j1 j2 j3; j4 j5 j6}), sympy's exact wigner_6j rounded the
  same way: every j = 100, every j = 200, {200 200 400; 200 200 400} (a stretched triad), and 24
  random symbols (fixed seed) with j in [0, 200] whose four triads close; zeros kept.

USAGE
  python3 tests/reference/sturmian_angular_exact.py > /tmp/angular_table.rs   (about 10 s)
"""

import random
from sympy import N, pi, sqrt
from sympy.physics.wigner import clebsch_gordan, wigner_3j, wigner_6j


def coupling(L, lpa, lpb, la, lb, l):
    red = lambda lp, lo: (-1) ** lp * sqrt((2 * lp + 1) * (2 * lo + 1)) * wigner_3j(lp, l, lo, 0, 0, 0)
    return (-1) ** (la + lpb + L) * red(lpa, la) * red(lpb, lb) * wigner_6j(lpa, lpb, L, lb, la, l)


def angular(L, lpa, lpb, la, lb, l):
    return (2 * l + 1) * coupling(L, lpa, lpb, la, lb, l) / (4 * pi)


def gaunt(l1, m1, l2, m2, l3, m3):
    """Integral of Y_l1m1 Y_l2m2 Y_l3m3 over the sphere (Edmonds eq. 4.6.5)."""
    return sqrt((2 * l1 + 1) * (2 * l2 + 1) * (2 * l3 + 1) / (4 * pi)) * wigner_3j(l1, l2, l3, 0, 0, 0) \
        * wigner_3j(l1, l2, l3, m1, m2, m3)


def eq18(L, M, lpa, lpb, la, lb, l):
    """Eq. 16 with both bipolar harmonics expanded: sum over m'a, m of CG CG (-1)^m' Gaunt Gaunt."""
    total = 0
    for mpa in range(-lpa, lpa + 1):
        mpb = M - mpa
        if abs(mpb) > lpb:
            continue
        for q in range(-l, l + 1):
            ma, mb = mpa + q, M - mpa - q
            if abs(ma) > la or abs(mb) > lb:
                continue
            total += clebsch_gordan(lpa, lpb, L, mpa, mpb, M) * clebsch_gordan(la, lb, L, ma, mb, M) \
                * (1 if (mpa + q + mpb) % 2 == 0 else -1) * gaunt(lpa, -mpa, l, -q, la, ma) * gaunt(lpb, -mpb, l, q, lb, mb)
    return total


def allowed(lpa, lpb, la, lb):
    low, high = max(abs(lpa - la), abs(lpb - lb)), min(lpa + la, lpb + lb)
    return [l for l in range(low, high + 1) if (lpa + la + l) % 2 == 0 and (lpb + lb + l) % 2 == 0]


def self_check():
    for lpa in range(3):
        for lpb in range(3):
            for la in range(3):
                for lb in range(3):
                    for L in range(max(abs(lpa - lpb), abs(la - lb)), min(lpa + lpb, la + lb) + 1):
                        for l in allowed(lpa, lpb, la, lb):
                            for M in {0, L}:
                                d = (eq18(L, M, lpa, lpb, la, lb, l) - angular(L, lpa, lpb, la, lb, l)).simplify()
                                assert d == 0, (L, M, lpa, lpb, la, lb, l, d)


def rows():
    out = [(200, 100, 100, 100, 100, 100)]
    out += [(L, 200, 200, 200, 200, l) for L, l in [(0, 400), (0, 2), (100, 200), (200, 2), (200, 398)]]
    out += [(150, 100, 100, 100, 100, l) for l in (170, 180, 190, 196, 200)]
    out += [(200, 100, 100, 100, 100, l) for l in (140, 160, 200)]
    rng = random.Random(28)
    while len(out) < 13 + 24:
        lpa, lpb, la, lb = (rng.randint(0, 200) for _ in range(4))
        low, high = max(abs(lpa - lpb), abs(la - lb)), min(lpa + lpb, la + lb, 200)
        ls = allowed(lpa, lpb, la, lb)
        if low > high or not ls:
            continue
        out.append((rng.randint(low, high), lpa, lpb, la, lb, rng.choice(ls)))
    return out


def six_j_rows():
    out = [(100,) * 6, (200,) * 6, (200, 200, 400, 200, 200, 400)]
    rng = random.Random(6)
    closes = lambda x, y, z: abs(x - y) <= z <= x + y
    while len(out) < 3 + 24:
        j = [rng.randint(0, 200) for _ in range(6)]
        j1, j2, j3, j4, j5, j6 = j
        if closes(j1, j2, j3) and closes(j1, j5, j6) and closes(j4, j2, j6) and closes(j4, j5, j3):
            out.append(tuple(j))
    return out


def literal(value):
    value = N(value, 40)
    return "0.0" if value == 0 else "%s" % N(value, 25)


if __name__ == "__main__":
    self_check()
    print("const ANGULAR_EXACT: &[(u32, u32, u32, u32, u32, u32, f64)] = &[")
    for r in rows():
        print("    (%d, %d, %d, %d, %d, %d, %s)," % (r + (literal(angular(*r)),)))
    print("];")
    print("const SIX_J_EXACT: &[(i32, i32, i32, i32, i32, i32, f64)] = &[")
    for r in six_j_rows():
        print("    (%d, %d, %d, %d, %d, %d, %s)," % (r + (literal(wigner_6j(*r)),)))
    print("];")
