#!/usr/bin/env python3
r"""
scf_extremes_mpmath.py -- independent high-precision values of the SCF family's one-electron and
Slater integrals at exponents far from 1 (1e-300 ... 1e300 bohr^-2), where a double-precision
evaluation of the textbook closed forms over- or underflows. The tests quote these numbers
(tests/scf.rs, tests/scf_dirac.rs, tests/ffi_scf.rs, tests/c/reliability/scf.c).

Every value is computed twice, at mp.dps = 50 (mpmath's exponent range is unbounded, so nothing
over- or underflows here):
  * from the defining closed forms of src/scf/one_electron.rs (module docs), as written there:
        N_a^2 = 2^(l+2) (2a)^(l+3/2) / ((2l+1)!! sqrt(pi)),   p = a + b
        S = (2 sqrt(ab)/p)^(l+3/2),   T = (2l+3) (ab/p) S,   <1/r> = N_a N_b l! / (2 p^(l+1)),
        <erf(sqrt(xi) r)/r> = N_a N_b (c/2) sum_k C(l,k) k! p^(-k-1) (2(l-k)-1)!! 2^-(l-k) (p+xi)^-(l-k)-1/2;
    the Dirac blocks of src/scf/radial.rs from the small functions' own definitions
        sigma = N/sqrt((2l+3)a) * (-2a r^(l+1))                    (kappa < 0)
        sigma = N/sqrt((2l+3)a) * ((2l+1) r^(l-1) - 2a r^(l+1))     (kappa > 0)
    by quadrature: S^SS = int sigma_a sigma_b r^2 dr, V^SS = -Z int sigma_a sigma_b v(r) r^2 dr,
    Pi_ab = c int P_a (-d/dr + kappa/r) Q_b dr (P = r R^L, Q = r sigma, the derivative term by term);
  * by mpmath quadrature of the defining radial integrals (in x = r sqrt(p), scaled to O(1)),
    which must agree with the closed forms to 1e-30 (checked below; the script stops otherwise).
Slater integrals R^k(ab, cd) by the quadrature of tests/scf.rs (inner integral through
incomplete gamma functions), and the closed form R^0(aa, bb) = 2 sqrt(mu/pi), mu = 2ab/(a+b), of
two s densities.

Run: python3 tests/reference/scf_extremes_mpmath.py   (mpmath 1.3.0; about a minute)
"""
from mpmath import mp, mpf, sqrt, exp, erf, quad, inf, pi, factorial, fac2, binomial, gammainc

mp.dps = 50
C_LIGHT = mpf('137.03599976')


def norm(l, a):
    return sqrt(mpf(2) ** (l + 2) * (2 * a) ** (l + mpf(3) / 2) / (fac2(2 * l + 1) * sqrt(pi)))


def large(l, a, r):
    return norm(l, a) * r ** l * exp(-a * r * r)


def small(kappa, a, r):
    l = kappa if kappa > 0 else -kappa - 1
    n = norm(l, a) / sqrt((2 * l + 3) * a)
    if kappa < 0:
        return -2 * a * n * r ** (l + 1) * exp(-a * r * r)
    return n * ((2 * l + 1) * r ** (l - 1) - 2 * a * r ** (l + 1)) * exp(-a * r * r)


def radial_quad(f, p):
    """int_0^inf f(r) dr for an integrand of width 1/sqrt(p), in x = r sqrt(p) and scaled to O(1)
    (mpmath's quad judges convergence by an absolute error, which a value of 1e-450 meets at
    once)."""
    s = 1 / sqrt(p)
    scale = max(abs(f(x * s)) for x in [mpf('0.3'), mpf('0.7'), mpf(1), mpf(2)]) * s
    return scale * quad(lambda x: f(x * s) * s / scale, [0, mpf('0.1'), 1, 3, 10, inf])


def small_derivative(kappa, b, r):
    """(-d/dr + kappa/r) (r sigma_b(r)), term by term."""
    l = kappa if kappa > 0 else -kappa - 1
    n = norm(l, b) / sqrt((2 * l + 3) * b)
    terms = [(l + 1, -2 * b * n)] if kappa < 0 else [(l - 1, (2 * l + 1) * n), (l + 1, -2 * b * n)]
    total = 0
    for power, coefficient in terms:   # r sigma: coefficient r^(power+1) e^(-b r^2)
        m = power + 1
        total += coefficient * (-(m * r ** (m - 1) - 2 * b * r ** (m + 1)) + kappa * r ** (m - 1)) * exp(-b * r * r)
    return total


def potential(r, xi):
    return 1 / r if xi is None else erf(sqrt(xi) * r) / r


def closed(l, a, b, z, xi):
    p = a + b
    s = (2 * sqrt(a * b) / p) ** (l + mpf(3) / 2)
    t = (2 * l + 3) * (a * b / p) * s
    if xi is None:
        v = norm(l, a) * norm(l, b) * factorial(l) / (2 * p ** (l + 1))
    else:
        c = sqrt(xi)
        v = norm(l, a) * norm(l, b) * c / 2 * sum(
            binomial(l, k) * factorial(k) * p ** (-k - 1) * fac2(2 * (l - k) - 1) / mpf(2) ** (l - k)
            * (p + xi) ** (-(l - k) - mpf(1) / 2) for k in range(l + 1))
    return s, t, -z * v


def quadrature(l, a, b, z, xi):
    s = radial_quad(lambda r: large(l, a, r) * large(l, b, r) * r * r, a + b)
    v = -z * radial_quad(lambda r: large(l, a, r) * large(l, b, r) * potential(r, xi) * r * r, a + b)
    return s, v


def agree(x, y, what):
    if x == 0 and y == 0:
        return
    if abs(x - y) > mpf('1e-30') * abs(y):
        raise SystemExit(f'{what}: closed form {x} and quadrature {y} disagree')


def hartree_fock(l, a, b, z, xi):
    a, b, z = mpf(a), mpf(b), mpf(z)
    xi = None if xi is None else mpf(xi)
    sab, tab, vab = closed(l, a, b, z, xi)
    saa, taa, vaa = closed(l, a, a, z, xi)
    qs, qv = quadrature(l, a, b, z, xi)
    agree(sab, qs, f'S l={l} {a} {b}')
    agree(vab, qv, f'V l={l} {a} {b}')
    print(f'HF l={l} a={mp.nstr(a, 5)} b={mp.nstr(b, 5)} Z={mp.nstr(z, 5)} xi={xi}:')
    for name, value in [('S_ab', sab), ('T_aa', taa), ('T_ab', tab), ('V_aa', vaa), ('V_ab', vab)]:
        print(f'    {name} = {mp.nstr(value, 25)}')


def dirac(kappa, a, b, z, xi, c=C_LIGHT):
    a, b, z = mpf(a), mpf(b), mpf(z)
    xi = None if xi is None else mpf(xi)
    l = kappa if kappa > 0 else -kappa - 1
    s_ss = radial_quad(lambda r: small(kappa, a, r) * small(kappa, b, r) * r * r, a + b)
    v_ss = -z * radial_quad(lambda r: small(kappa, a, r) * small(kappa, b, r) * potential(r, xi) * r * r, a + b)
    # (-d/dr + kappa/r) Q_b in closed form: Q_b = r sigma_b = sum_t c_t r^(n_t+1) e^(-b r^2).
    pi_ab = c * radial_quad(lambda r: r * large(l, a, r) * small_derivative(kappa, b, r), a + b)
    # S^SS, Pi, -2c^2 S^SS against their closed forms g^(l+5/2), c sqrt((2l+3) a) g^(l+5/2).
    g = 2 * sqrt(a * b) / (a + b)
    agree(g ** (l + mpf(5) / 2), s_ss, f'S^SS kappa={kappa}')
    agree(c * sqrt((2 * l + 3) * a) * g ** (l + mpf(5) / 2), pi_ab, f'Pi kappa={kappa}')
    print(f'Dirac kappa={kappa} a={mp.nstr(a, 5)} b={mp.nstr(b, 5)} Z={mp.nstr(z, 5)} xi={xi} c={c}:')
    for name, value in [('S^SS_ab', s_ss), ('Pi_ab', pi_ab), ('-2c^2 S^SS_ab', -2 * c * c * s_ss), ('V^SS_ab', v_ss)]:
        print(f'    {name} = {mp.nstr(value, 25)}')


def slater(k, la, a, lb, b, lc, c, ld, d):
    a, b, c, d = mpf(a), mpf(b), mpf(c), mpf(d)
    p, q, m, n = a + b, c + d, la + lb, lc + ld

    def inner(r1):
        lo = gammainc(mpf(n + 3 + k) / 2, 0, q * r1 * r1) / (2 * q ** (mpf(n + 3 + k) / 2))
        hi = gammainc(mpf(n + 2 - k) / 2, q * r1 * r1, inf) / (2 * q ** (mpf(n + 2 - k) / 2))
        return lo / r1 ** (k + 1) + r1 ** k * hi

    value = norm(la, a) * norm(lb, b) * norm(lc, c) * norm(ld, d) * radial_quad(
        lambda r: r ** (m + 2) * exp(-p * r * r) * inner(r), p)
    print(f'R^{k}(({la},{mp.nstr(a, 5)}) ({lb},{mp.nstr(b, 5)}), ({lc},{mp.nstr(c, 5)}) ({ld},{mp.nstr(d, 5)}))'
          f' = {mp.nstr(value, 25)}')
    return value


def s_density_repulsion(a, b):
    a, b = mpf(a), mpf(b)
    closed_form = 2 * sqrt(2 * a * b / (a + b) / pi)
    agree(closed_form, slater(0, 0, a, 0, a, 0, b, 0, b), f'R^0 s densities {a} {b}')
    print(f'    closed form 2 sqrt(mu/pi) = {mp.nstr(closed_form, 25)}')


if __name__ == '__main__':
    hartree_fock(0, '1e300', '2e300', 1, None)
    hartree_fock(0, '1e300', '2e300', 1, '1e9')
    hartree_fock(0, '1e-300', '1e300', 1, None)
    hartree_fock(0, '1e-200', '2e-200', 1, None)
    hartree_fock(0, '1e200', '2e200', 1, None)
    hartree_fock(3, '1e100', '2e100', 1, None)
    hartree_fock(20, '1e150', '2e150', 1, None)
    hartree_fock(20, '1e-150', '3e-150', 1, '1e9')
    hartree_fock(0, '1.5e308', '1.7e308', 1, None)
    dirac(-1, '1e300', '2e300', 1, None)
    dirac(2, '1e-300', '3e-300', 1, '1e9')
    dirac(3, '1e100', '2e100', 1, '1e9')
    dirac(1, '1e-200', '2e-200', 1, None)
    s_density_repulsion('1e300', '2e300')
    s_density_repulsion('1e-300', '1e300')
    s_density_repulsion('1e-300', '3e-300')
    slater(0, 20, '1e-8', 20, '1e-8', 20, '2e-8', 20, '2e-8')
    slater(40, 20, '1e-8', 20, '1.5e-8', 20, '2e-8', 20, '3e-8')
    slater(0, 0, '1e150', 0, '3e150', 1, '1e-150', 1, '2e-150')
    slater(2, 3, '1e200', 1, '2e200', 2, '5e199', 2, '1e200')
