"""Independent reference for tests/cr_jacobian.rs: the derivatives of the collisional excitation
integrals (paper eqs. 5, 6, 9) with respect to the electron temperature T and the chemical
potential mu, by mpmath at 30 digits.

    I_up(T, mu)   = int_E^inf Omega(eps/E) F(eps) (1 - F(eps - E)) d eps
    I_down(T, mu) = int_E^inf Omega(eps/E) F(eps - E) (1 - F(eps)) d eps
    F(eps) = 1/(1 + exp((eps - mu)/T))   (Fermi-Dirac), exp((mu - eps)/T) (Maxwell-Boltzmann,
             blocking 1 - F replaced by 1)
    Omega(x) = B0 ln x + B1 + B2/x + B3/x^2

The derivatives are taken of the integral itself (mpmath.diff of mpmath.quad, the quadrature split
at the Fermi edges), not of a derived integrand, so the reference shares no formula with the
library's slopes. The library's J_up = K I_up, J_down = K I_down (g_l = g_u = 1), K =
excitation_prefactor(). Run: python3 tests/reference/cr_jacobian_mpmath.py
"""
import mpmath as mp

mp.mp.dps = 30
E = mp.mpf("8.08")
B = [mp.mpf("70.78345"), mp.mpf("39.52529"), mp.mpf("99.25136"), mp.mpf("-28.71901")]


def omega(x):
    return B[0] * mp.log(x) + B[1] + B[2] / x + B[3] / x**2


def integrals(stats, t, mu):
    if stats == "FD":
        f = lambda e: 1 / (1 + mp.exp((e - mu) / t))
        b = lambda e: 1 / (1 + mp.exp((mu - e) / t))
    else:
        f = lambda e: mp.exp((mu - e) / t)
        b = lambda e: mp.mpf(1)
    points = sorted(set([E, max(E, mu), max(E, E + mu), E + abs(mu) + 10 * t, E + abs(mu) + 40 * t]))
    points.append(mp.inf)
    up = mp.quad(lambda e: omega(e / E) * f(e) * b(e - E), points)
    down = mp.quad(lambda e: omega(e / E) * f(e - E) * b(e), points)
    return up, down


for stats, t, mu in [("FD", mp.mpf(5), mp.mpf(10)), ("MB", mp.mpf(5), mp.mpf(-20))]:
    for k, name in enumerate(["up", "down"]):
        value = integrals(stats, t, mu)[k]
        by_t = mp.diff(lambda x: integrals(stats, x, mu)[k], t)
        by_mu = mp.diff(lambda x: integrals(stats, t, x)[k], mu)
        print(f"{stats} T={t} mu={mu} {name}: I = {mp.nstr(value, 15)}, dI/dT = {mp.nstr(by_t, 15)}, "
              f"dI/dmu = {mp.nstr(by_mu, 15)}")
