#!/usr/bin/env python3
r"""
wigner3j_exact.py -- exact reference values of Wigner 3j symbols for tests/wigner3j.rs.

WHAT IT COMPUTES
  The 3j symbol (j1 j2 j3; m1 m2 m3) for integer angular momenta, Condon-Shortley phase
  convention (Edmonds 1957, eq. 3.7.3), from Racah's single-sum formula

      (j1 j2 j3; m1 m2 m3) = (-1)^(j1-j2-m3) sqrt(Delta (j1+m1)!(j1-m1)!(j2+m2)!(j2-m2)!(j3+m3)!(j3-m3)!)
                             * sum_k (-1)^k / [k! (j3-j2+m1+k)! (j3-j1-m2+k)! (j1+j2-j3-k)! (j1-m1-k)! (j2+m2-k)!]

      Delta = (j1+j2-j3)! (j1-j2+j3)! (-j1+j2+j3)! / (j1+j2+j3+1)!

  with k over every integer for which all six factorial arguments are >= 0.  The symbol is
  zero unless m1+m2+m3 = 0, |m_i| <= j_i and |j1-j2| <= j3 <= j1+j2.

HOW
  Everything is exact: integer factorials (math.factorial) and fractions.Fraction.  A symbol is
  held as sign * sqrt(S) with S a Fraction (S = Delta * prod (j+-m)! * (sum)^2).  It is rounded
  to the nearest double by taking isqrt of S scaled by 4^K (K chosen so the integer square root
  carries >= 100 bits; truncation error < 2^-100 relative) and converting that dyadic rational
  with float(Fraction), which rounds correctly.  Values are printed with 17 significant digits,
  which round-trip a double exactly.  Standard library only; no floating point before the final
  rounding.

  Self-check at start-up: a few closed forms, exactly (Edmonds Table 2 style):
    (j j 0; m -m 0)^2 = 1/(2j+1), sign (-1)^(j-m);
    (j j 1; m -m 0)   = (-1)^(j-m) m / sqrt(j (j+1) (2j+1));
    (j1 j2 j1+j2; m1 m2 -m1-m2)^2 = (2j1)!(2j2)!(J+M)!(J-M)! / ((2J+1)! (j1+m1)!(j1-m1)!(j2+m2)!(j2-m2)!),
      J = j1+j2, M = m1+m2, sign (-1)^(j1-j2+M).

OUTPUT (stdout): Rust source for two constant tables, each entry (j1, j2, j3, m1, m2, m3, value):
  RANK1   every symbol (j 1 jp; k, kp-k, -kp) with j in {0,1,2,3,4,7,10}, jp in {j-1, j, j+1}
          (jp >= 0, j + jp >= 1), |k| <= j, |kp| <= jp, |kp-k| <= 1; plus 40 of them drawn
          at random (fixed seed) for each of j = 25 and j = 70.
  GENERAL 30 symbols with j up to 60 (random, fixed seed, selection rules satisfied), 30 with
          all three j >= 20 and all m nonzero (j <= 60), 8 with j in [100, 200], and 4 that
          vanish: two by the parity rule (J odd, all m = 0), two "non-trivial" zeros (Racah sum
          zero although every selection rule holds).

USAGE
  python3 tests/reference/wigner3j_exact.py > /tmp/wigner3j_table.rs
  (deterministic; runs in about a second.)
"""

import math
import random
from fractions import Fraction


def exact_3j(j1, j2, j3, m1, m2, m3):
    """Return (sign, S) with the symbol equal to sign * sqrt(S); sign in {-1, 0, 1}."""
    if min(j1, j2, j3) < 0 or m1 + m2 + m3 != 0:
        return 0, Fraction(0)
    if abs(m1) > j1 or abs(m2) > j2 or abs(m3) > j3:
        return 0, Fraction(0)
    if j3 < abs(j1 - j2) or j3 > j1 + j2:
        return 0, Fraction(0)
    f = math.factorial
    delta = Fraction(f(j1 + j2 - j3) * f(j1 - j2 + j3) * f(-j1 + j2 + j3), f(j1 + j2 + j3 + 1))
    pre = delta * f(j1 + m1) * f(j1 - m1) * f(j2 + m2) * f(j2 - m2) * f(j3 + m3) * f(j3 - m3)
    kmin = max(0, j2 - j3 - m1, j1 - j3 + m2)
    kmax = min(j1 + j2 - j3, j1 - m1, j2 + m2)
    total = Fraction(0)
    for k in range(kmin, kmax + 1):
        den = f(k) * f(j3 - j2 + m1 + k) * f(j3 - j1 - m2 + k) * f(j1 + j2 - j3 - k) * f(j1 - m1 - k) * f(j2 + m2 - k)
        total += Fraction((-1) ** k, den)
    if total == 0:
        return 0, Fraction(0)
    phase = -1 if (j1 - j2 - m3) % 2 else 1
    sign = phase * (1 if total > 0 else -1)
    return sign, pre * total * total


def to_float(sign, s):
    """Nearest double to sign * sqrt(s), s a non-negative Fraction."""
    if sign == 0 or s == 0:
        return 0.0
    p, q = s.numerator, s.denominator
    # choose K with p 4^K / q >= 2^200, so the integer square root has >= 100 bits
    k = max(100, (200 - (p.bit_length() - q.bit_length())) // 2 + 1)
    r = math.isqrt((p << (2 * k)) // q)
    return sign * float(Fraction(r, 1 << k))


def self_check():
    for j in range(0, 30):
        for m in range(-j, j + 1):
            sg, s = exact_3j(j, j, 0, m, -m, 0)
            assert s == Fraction(1, 2 * j + 1) and sg == (-1) ** (j - m), (j, m)
            if j >= 1:
                sg, s = exact_3j(j, j, 1, m, -m, 0)
                assert s == Fraction(m * m, j * (j + 1) * (2 * j + 1)), (j, m)
                if m != 0:
                    assert sg == (-1) ** (j - m) * (1 if m > 0 else -1), (j, m)
    f = math.factorial
    for j1 in range(0, 9):
        for j2 in range(0, 9):
            big = j1 + j2
            for m1 in range(-j1, j1 + 1):
                for m2 in range(-j2, j2 + 1):
                    mm = m1 + m2
                    sg, s = exact_3j(j1, j2, big, m1, m2, -mm)
                    want = Fraction(f(2 * j1) * f(2 * j2) * f(big + mm) * f(big - mm),
                                    f(2 * big + 1) * f(j1 + m1) * f(j1 - m1) * f(j2 + m2) * f(j2 - m2))
                    assert s == want and sg == (-1) ** ((j1 - j2 + mm) % 2), (j1, j2, m1, m2)


def rank1_cases(j):
    out = []
    for jp in (j - 1, j, j + 1):
        if jp < 0 or j + jp < 1:
            continue
        for k in range(-j, j + 1):
            for kp in (k - 1, k, k + 1):
                if abs(kp) <= jp:
                    out.append((j, 1, jp, k, kp - k, -kp))
    return out


def random_symbol(rng, jmin, jmax, nonzero_m):
    while True:
        j1 = rng.randint(jmin, jmax)
        j2 = rng.randint(jmin, jmax)
        lo, hi = max(abs(j1 - j2), jmin), min(j1 + j2, jmax)
        if lo > hi:
            continue
        j3 = rng.randint(lo, hi)
        m1 = rng.randint(-j1, j1)
        m2 = rng.randint(-j2, j2)
        m3 = -m1 - m2
        if abs(m3) > j3:
            continue
        if nonzero_m and 0 in (m1, m2, m3):
            continue
        sg, _ = exact_3j(j1, j2, j3, m1, m2, m3)
        if sg == 0:
            continue
        return (j1, j2, j3, m1, m2, m3)


def nontrivial_zeros(rng, count):
    """Symbols obeying every selection rule (and not the all-m-zero parity rule) whose Racah sum is 0."""
    found = []
    for j1 in range(1, 9):
        for j2 in range(1, 9):
            for j3 in range(abs(j1 - j2), j1 + j2 + 1):
                for m1 in range(-j1, j1 + 1):
                    for m2 in range(-j2, j2 + 1):
                        m3 = -m1 - m2
                        if abs(m3) > j3 or (m1 == 0 and m2 == 0):
                            continue
                        if exact_3j(j1, j2, j3, m1, m2, m3)[0] == 0:
                            found.append((j1, j2, j3, m1, m2, m3))
    rng.shuffle(found)
    return found[:count]


def emit(name, doc, cases):
    print(f"/// {doc}")
    print("#[rustfmt::skip]")
    print(f"const {name}: &[(i32, i32, i32, i32, i32, i32, f64)] = &[")
    for c in cases:
        v = to_float(*exact_3j(*c))
        vs = "0.0" if v == 0.0 else f"{v:.16e}"
        print("    ({}, {}, {}, {}, {}, {}, {}),".format(*c, vs))
    print("];")


def main():
    self_check()
    rng = random.Random(20240521)
    rank1 = []
    for j in (0, 1, 2, 3, 4, 7, 10):
        rank1 += rank1_cases(j)
    for j in (25, 70):
        rank1 += sorted(rng.sample(rank1_cases(j), 40))
    general = [random_symbol(rng, 0, 60, False) for _ in range(30)]
    general += [random_symbol(rng, 20, 60, True) for _ in range(30)]
    general += [random_symbol(rng, 100, 200, rng.random() < 0.5) for _ in range(8)]
    general += [(3, 4, 6, 0, 0, 0), (21, 30, 40, 0, 0, 0)]
    general += nontrivial_zeros(rng, 2)
    print("// Generated by `python3 tests/reference/wigner3j_exact.py > table.rs` (Python 3.11, standard library")
    print("// only: exact rational arithmetic, Racah's formula) and pasted here unchanged; do not edit by hand.")
    emit("RANK1", "(j 1 jp; k, kp-k, -kp), exact values rounded to the nearest double.", rank1)
    print()
    emit("GENERAL", "General symbols, exact values rounded to the nearest double.", general)


if __name__ == "__main__":
    main()
