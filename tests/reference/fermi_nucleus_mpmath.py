#!/usr/bin/env python3
"""
References for the Fermi nucleus of the SCF family (src/scf/one_electron/fermi.rs), at 40 digits
with mpmath (python3 tests/reference/fermi_nucleus_mpmath.py; mpmath 1.3.0):

1. c of Xe (A = 132, GRASP's r_rms = 0.836 A^(1/3) + 0.570 fm, t = 2.30 fm, a = t/(4 ln 3)) from
   the definition <r^2> = int rho r^4 / int rho r^2 by quadrature of rho and findroot in c;
2. the potential V(r)/Z at several radii by quadrature of the charge distribution itself,
       V(r) = -(4 pi / r) int_0^r rho r'^2 dr' - 4 pi int_r^oo rho r' dr'   (4 pi int rho r^2 = 1);
3. attraction matrix elements int R_a R_b V r^2 dr (normalised Gaussians N r^l e^(-a r^2)) and
   small-small ones (kinetically balanced small functions, kappa > 0) for Z = 54, by mpmath's
   quadrature with V from the polylog closed form, which item 2 checks against the quadrature of
   the charge at every radius printed (agreement printed). For p = a + b >= 1e100 (functions 1e-50
   of the nuclear radius wide) the element is g^(l+3/2) V(0) to 1e-90 relative (V = V(0) + O(r^2),
   g = 2 sqrt(ab)/p), which mpmath's tanh-sinh nodes at such scales do not resolve.
Lengths in bohr (1 bohr = 52917.7210903 fm).
"""
import mpmath as mp

mp.mp.dps = 40
BOHR_FM = mp.mpf('52917.7210903')


def rho_shape(r, c, a):
    return 1 / (1 + mp.exp((r - c) / a))


def moments(c, a, n):
    pts = [0, c, c + 10 * a, c + 40 * a, mp.inf]
    return mp.quad(lambda r: rho_shape(r, c, a) * r ** n, pts)


def rms(c, a):
    return mp.sqrt(moments(c, a, 4) / moments(c, a, 2))


def half_density_radius(r_rms, a):
    return mp.findroot(lambda c: rms(c, a) - r_rms, r_rms * mp.sqrt(mp.mpf(5) / 3))


def potential_quadrature(r, c, a):
    """V(r)/Z by quadrature of the charge (item 2)."""
    norm = moments(c, a, 2)
    inner = mp.quad(lambda t: rho_shape(t, c, a) * t ** 2, [0, min(r, c), r]) if r > 0 else 0
    pts = sorted(set([r, max(r, c), max(r, c + 10 * a), max(r, c + 40 * a)])) + [mp.inf]
    outer = mp.quad(lambda t: rho_shape(t, c, a) * t, pts)
    return -(inner / r + outer) / norm if r > 0 else -outer / norm


def F(s, x):
    return -mp.polylog(s, -mp.exp(x))


def potential_closed(r, c, a):
    """V(r)/Z = -[(G3(0) - G3(r))/r - G2(r)/2] / G3(0), G_k(r) = a^k F_k((c - r)/a)."""
    G = lambda k, rr: a ** k * F(k, (c - rr) / a)
    if r == 0:
        return -G(2, 0) / (2 * G(3, 0))
    return -((G(3, 0) - G(3, r)) / r - G(2, r) / 2) / G(3, 0)


def dfact(n):
    return mp.fprod(range(1, 2 * n, 2)) if n > 0 else mp.mpf(1)


def norm(l, z):
    return mp.sqrt(2 ** (l + 2) * (2 * z) ** (l + mp.mpf(3) / 2) / (dfact(l + 1) * mp.sqrt(mp.pi)))


def large(l, z):
    n = norm(l, z)
    return lambda r: n * r ** l * mp.exp(-z * r * r)


def small_positive_kappa(l, z):
    n = norm(l, z) / mp.sqrt((2 * l + 3) * z)
    return lambda r: n * ((2 * l + 1) * r ** (l - 1) - 2 * z * r ** (l + 1)) * mp.exp(-z * r * r)


def element(f, g, p, V, c, a, powers):
    s = 1 / mp.sqrt(p)
    pts = sorted(set([mp.mpf(0)] + [k * s for k in (0.25, 0.5, 1, 2, 3, 5, 8, 12, 20, 40)] +
                     [c, c + 5 * a, c + 40 * a]))
    return mp.quad(lambda r: f(r) * g(r) * V(r) * r * r, pts + [mp.inf])


def main():
    A = 132
    t = mp.mpf('2.30')
    a_fm = t / (4 * mp.log(3))
    r_rms_fm = mp.mpf('0.836') * mp.cbrt(A) + mp.mpf('0.570')
    c_fm = half_density_radius(r_rms_fm, a_fm)
    print(f"Xe A=132: r_rms {mp.nstr(r_rms_fm, 20)} fm, a {mp.nstr(a_fm, 20)} fm, c {mp.nstr(c_fm, 20)} fm")
    c, a = c_fm / BOHR_FM, a_fm / BOHR_FM
    print(f"  bohr: c {mp.nstr(c, 20)}, a {mp.nstr(a, 20)}")
    print("V(r)/Z (bohr^-1): r, quadrature of rho, closed form, relative difference")
    for f in ['0', '1e-6', '0.01', '0.3', '0.9', '1', '1.05', '1.5', '3', '10']:
        r = mp.mpf(f) * c
        q = potential_quadrature(r, c, a)
        cl = potential_closed(r, c, a)
        print(f"  r = {f} c: {mp.nstr(q, 25)}  {mp.nstr(cl, 25)}  {mp.nstr((q - cl) / q, 3)}")
    Z = 54
    V = lambda r: Z * potential_closed(r, c, a)
    print("large-large elements (l, a, b, V_ab hartree)")
    for l, za, zb in [(0, '1', '2'), (0, '1e6', '3e6'), (0, '2e6', '2e6'), (0, '1e9', '2e9'), (0, '0.5', '1e9'),
                      (0, '1e12', '3e12'), (0, '1e300', '2e300'), (1, '5e6', '1e7'), (2, '1e9', '4e9'),
                      (20, '1e8', '2e8'), (20, '1e11', '1e11')]:
        za, zb = mp.mpf(za), mp.mpf(zb)
        if za + zb >= mp.mpf('1e100'):
            v = (2 * mp.sqrt(za * zb) / (za + zb)) ** (l + mp.mpf(3) / 2) * V(0)
        else:
            v = element(large(l, za), large(l, zb), za + zb, V, c, a, None)
        print(f"  ({l}, {mp.nstr(za, 5)}, {mp.nstr(zb, 5)}, {mp.nstr(v, 22)}),")
    print("small-small elements, kappa > 0 (kappa, a, b, V^SS hartree)")
    for kappa, za, zb in [(1, '1e6', '4e6'), (1, '1e9', '2e9'), (2, '1e8', '1e10'), (1, '0.3', '0.7'), (3, '1e12', '1e12')]:
        za, zb = mp.mpf(za), mp.mpf(zb)
        v = element(small_positive_kappa(kappa, za), small_positive_kappa(kappa, zb), za + zb, V, c, a, None)
        print(f"  ({kappa}, {mp.nstr(za, 5)}, {mp.nstr(zb, 5)}, {mp.nstr(v, 22)}),")


if __name__ == '__main__':
    main()
