#!/usr/bin/env python3
r"""
cr_aluminium_budget.py -- an independent estimate of what heats the electrons of the paper's
aluminium case (degenerate-rates-quadrature-gpu, section 4; examples/data/aluminium-cr-*.csv):
9e22 cm^-3 ions, all in level 0 (Al3+ ground state), n_e = 2.7e23 cm^-3, T_e = 1 eV at t = 0,
Fermi-Dirac electrons, black body at T_r = 250 eV.

Nothing here comes from atomgpu: constants are scipy.constants' CODATA values in Gaussian cgs
units, the Fermi-Dirac integrals mpmath's polylog, the integrals mpmath.quad, and the
free-free absorption Rybicki & Lightman's eq. 5.18a written out (not the library's A_FF).

It prints:
  1. the Fermi energy E_F = hbar^2 (3 pi^2 n_e)^{2/3} / 2m;
  2. at t = 0 the two heating terms of du/dt (every other term is < 1e-30 of them: collisional
     excitation and ionization need electrons above 77.4 and 120 eV, and a degenerate gas at
     1 eV has none; three-body recombination needs ions above level 0, and there are none):
       - inverse bremsstrahlung, eqs. 14-15 with the Kramers normalisation:
           H_IB = int_{eps_c}^inf alpha(w) c u_BB(w) dw,
           alpha(w) = alpha_RL(w; n_e -> (sqrt(pi)/2) G T^{3/2} Lg(w) / (1 - e^{-w/T})),
           Lg(w) = ln[(1 + e^{mu/T}) / (1 + e^{(mu - w)/T})]
         (alpha_RL: Rybicki & Lightman 5.18a with g_ff = 1; in the Maxwell-Boltzmann limit
         Lg -> e^{mu/T}(1 - e^{-w/T}) and the replaced density is n_e), eps_c = hbar omega_p;
       - photoionization heating of level 0 (E = 120 eV, sigma = D0 (E/e)^2 + D1 (E/e)^3):
           N_0 int_E^inf (e - E) sigma(e) c n_BB(e) (1 - F(e - E)) de;
     and the inverse bremsstrahlung's share of their sum;
  3. the run with photoionization switched off: no process but inverse bremsstrahlung acts
     (n_e stays 2.7e23; the collisional rates stay negligible below T_e ~ 3 eV, as the printed
     result shows), so du/dt = H_IB(T(u)); integrated with classical RK4 in 44 steps of 0.5 fs
     (halving the step changes T_e(22 fs) by < 1e-9 eV), T from u by inverting
     u = (3/2) n_e T F_{3/2}(eta)/F_{1/2}(eta), n_e = N_Q T^{3/2} F_{1/2}(eta).

Run: python3 tests/reference/cr_aluminium_budget.py   (a few seconds; mpmath, scipy)
The numbers are written into tests/cr_aluminium.rs, which compares the library with them.
"""
import mpmath as mp
from scipy import constants as sc

mp.mp.dps = 25

# Gaussian cgs constants (CODATA, scipy.constants).
e_esu = sc.e * sc.c * 10.0          # electron charge [statC] = e[C] * c[m/s] * 10
m_e = sc.m_e * 1e3                  # [g]
h = sc.h * 1e7                      # [erg s]
hbar = h / (2 * mp.pi)
c = sc.c * 1e2                      # [cm/s]
eV = sc.e * 1e7                     # [erg]

# The case.
N_ION = mp.mpf("9e22")              # all in level 0, Z = 3
Z = 3
NE = Z * N_ION                      # [cm^-3]
Z2N = Z * Z * N_ION
TR = mp.mpf(250)                    # [eV]
T0 = mp.mpf(1)                      # [eV]
E_ION = mp.mpf(120)                 # ionization energy of level 0 [eV]
D0, D1 = mp.mpf("5.682286e-18"), mp.mpf("3.941713e-19")  # [cm^2], examples/data/aluminium-cr-ionizations.csv

G = 4 * mp.pi * (2 * m_e / h**2) ** 1.5 * eV**1.5      # free-electron states [eV^-3/2 cm^-3]
NQ = G * mp.gamma(1.5)


def fermi_integral(j, eta):
    """F_j(eta) = (1/Gamma(j+1)) int_0^inf x^j/(1 + e^{x - eta}) dx = -Li_{j+1}(-e^eta)."""
    return -mp.re(mp.polylog(j + 1, -mp.exp(eta)))


def eta_of(t, ne):
    """mu/T at temperature t [eV] and density ne."""
    target = ne / (NQ * t**1.5)
    return mp.findroot(lambda x: fermi_integral(0.5, x) - target, mp.log(target) if target < 1 else target ** (2 / 3.0))


def energy_density(t, ne):
    return 1.5 * NQ * t**2.5 * fermi_integral(1.5, eta_of(t, ne))


def temperature(u, ne):
    """T [eV] of energy density u [eV cm^-3] at density ne (secant on ln T)."""
    return mp.exp(mp.findroot(lambda lt: energy_density(mp.exp(lt), ne) / u - 1, (mp.log(T0), mp.log(2 * T0))))


def softplus(x):
    return x + mp.log1p(mp.exp(-x)) if x > 0 else mp.log1p(mp.exp(x))


def ib_heating(t, ne):
    """Inverse-bremsstrahlung heating [eV cm^-3 s^-1] at T = t [eV], density ne, Z2N."""
    eta = eta_of(t, ne)
    kt = t * eV
    # Rybicki & Lightman 5.18a: alpha = 4 e^6/(3 m h c) sqrt(2 pi/(3 k m)) T^-1/2 Z^2 n_e n_i nu^-3 (1 - e^-hnu/kT)
    rl = 4 * e_esu**6 / (3 * m_e * h * c) * mp.sqrt(2 * mp.pi / (3 * m_e)) / mp.sqrt(kt)

    def integrand(w):  # w in eV; returns per eV of photon energy
        nu = w * eV / h
        n_eff = mp.sqrt(mp.pi) / 2 * G * t**1.5 * (softplus(eta) - softplus(eta - w / t))  # n_e (1 - e^-w/T) of eq. 5.18a
        alpha = rl * Z2N * n_eff * nu**-3                       # [cm^-1]
        u_nu = 8 * mp.pi * h * nu**3 / c**3 / mp.expm1(w / TR)  # black-body energy per volume per Hz [erg cm^-3 Hz^-1]
        return alpha * c * u_nu * (eV / h) / eV                 # [eV cm^-3 s^-1 per eV]

    eps_c = hbar * mp.sqrt(4 * mp.pi * ne * e_esu**2 / m_e) / eV
    points = [eps_c, eta * t, eta * t + 10 * t, 100, 300, 1000, 3000, 10000, 30000]
    points = sorted(p for p in points if p >= eps_c)
    return mp.quad(integrand, points), eps_c


def photo_heating(t, ne):
    """Photoelectron heating [eV s^-1 per ion of level 0]."""
    mu = eta_of(t, ne) * t

    def integrand(w):
        sigma = D0 * (E_ION / w) ** 2 + D1 * (E_ION / w) ** 3
        flux = 8 * mp.pi * c / (h * c / eV) ** 3 * w**2 / mp.expm1(w / TR)  # photons [cm^-2 s^-1 eV^-1]
        blocking = 1 / (1 + mp.exp((mu - (w - E_ION)) / t))
        return (w - E_ION) * sigma * flux * blocking

    edges = [E_ION, E_ION + mu, E_ION + mu + 20 * t, 300, 1000, 3000, 10000, 30000]
    return mp.quad(integrand, sorted(edges))


def main():
    e_f = hbar**2 * (3 * mp.pi**2 * NE) ** (2 / 3.0) / (2 * m_e) / eV
    print(f"Fermi energy at n_e = {float(NE):.3e} cm^-3: {float(e_f):.4f} eV")
    u0 = energy_density(T0, NE)
    ib0, eps_c = ib_heating(T0, NE)
    pi0 = N_ION * photo_heating(T0, NE)
    print(f"t = 0: T_e = 1 eV, mu = {float(eta_of(T0, NE) * T0):.4f} eV, u = {float(u0):.6e} eV cm^-3, "
          f"eps_c = {float(eps_c):.4f} eV")
    print(f"  inverse bremsstrahlung   {float(ib0):.6e} eV cm^-3 s^-1")
    print(f"  photoionization heating  {float(pi0):.6e} eV cm^-3 s^-1")
    print(f"  inverse bremsstrahlung's share of du/dt: {float(ib0 / (ib0 + pi0)):.5f}")
    # Photoionization off: du/dt = H_IB(T(u)), RK4.
    dt, u, t = mp.mpf("0.5e-15"), u0, 0
    rate = lambda uu: ib_heating(temperature(uu, NE), NE)[0]
    for step in range(44):
        k1 = rate(u)
        k2 = rate(u + dt / 2 * k1)
        k3 = rate(u + dt / 2 * k2)
        k4 = rate(u + dt * k3)
        u += dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        if step % 11 == 10 or step == 43:
            print(f"photoionization off: t = {float(t) * 1e15:5.1f} fs: u = {float(u):.6e} eV cm^-3, "
                  f"T_e = {float(temperature(u, NE)):.5f} eV, IB = {float(k4):.6e} eV cm^-3 s^-1")


if __name__ == "__main__":
    main()
