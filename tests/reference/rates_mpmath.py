#!/usr/bin/env python3
r"""
rates_mpmath.py -- independent high-precision reference values for the degenerate
(Fermi-Dirac) atomic rate coefficients of tests/reference/FORMULAS.md.

WHAT IT COMPUTES
  Writes tests/data/rates_reference.txt (path relative to the crate root), a
  whitespace-separated table with columns

      kind stats te_ev ne_cm3 tr_ev index value mu_ev

  kind  in {mu, energy_density, exc_up, exc_down, ion_up, ion_down, pi_rate,
            pi_heat, ib_heat};   stats in {FD, MB}.
  All definitions, units and constants are exactly those of FORMULAS.md
  (CODATA 2018 values as written there):
    mu             chemical potential [eV]:  ne = NQ T^3/2 F_1/2(mu/T)   (MB: T ln(ne/(NQ T^3/2)))
    energy_density u = 3/2 NQ T^5/2 F_3/2(mu/T) [eV cm^-3]               (MB: 3/2 ne T)
    exc_up         J_up   = K_EXC int_E^inf Omega(e/E) F(e) Fb(e-E) de           [s^-1]
    exc_down       J_down = K_EXC int_E^inf Omega(e/E) F(e-E) Fb(e) de  (g_l = g_u = 1), computed
                   as its own integral (NOT as exp(E/T) J_up; that relation is a sanity check)
    ion_up         K_up = K_ION int_E^inf de0 int_0^{e0-E} de1 e0 S(e0,e1) F(e0) Fb(e1) Fb(e2)  [s^-1]
    ion_down       K_down = exp((E+mu)/T) K_up  (g = 1, definition of FORMULAS.md; one direct
                   2D evaluation of int e0 S Fb(e0) F(e1) F(e2) is done as a sanity check)
    pi_rate        L_up = int_E^inf sigma(e) Phi(e) Fb(e-E) de, Phi = PHI e^2/(exp(e/Tr)-1)  [s^-1]
    pi_heat        H_L  = int_E^inf (e-E) sigma Phi Fb(e-E) de                   [eV s^-1]
    ib_heat        H_IB = A_FF Z2N (sqrt(pi)/2) G T PHI int_{EPS_C}^inf Lg(e)/(exp(e/Tr)-1) de
                   with Z2N = 1e22 cm^-3                                          [eV cm^-3 s^-1]
  MB = Maxwell-Boltzmann variant: F(e) = exp((mu_MB - e)/T), Fb = 1, mu_MB as above.

  Closed forms used for MB exc_up and ion_up (beta = E/T, E_n = mpmath.expint(n, .),
  E_0(x) = exp(-x)/x; derived with  int_1^inf x^-n e^{-beta x} dx = E_n(beta)  and
  int_1^inf ln(x) e^{-beta x} dx = E_1(beta)/beta  (integration by parts)):
    J_up^MB = K_EXC e^{mu/T} E [ B0 E_1(beta)/beta + B1 E_0(beta) + B2 E_1(beta) + B3 E_2(beta)
                                 + B4 E_3(beta) + B5 E_4(beta) ]
    K_up^MB = K_ION e^{mu/T} [ C0 E_1(beta)/beta
                               + sum_{k=1..4} Ck sum_{j=0..k} (-1)^j binom(k,j) E_j(beta) ]
      (from int_0^{e0-E} S de1 = [C0 ln(e0/E) + sum Ck (1-E/e0)^k]/(E e0) and e0 = E x).
  The binomial sum cancels by up to beta^4 ~ 1e13 at large beta, so the closed forms are
  evaluated at mp.dps = 60.  Both are cross-checked against mpmath.quad at start-up.

HOW
  * mpmath (mp.dps = 30 for every 1D integral and for mu / energy density).
  * F_j(eta) = -Re polylog(j+1, -exp(eta)); verified at start-up against direct mpmath.quad of
    the Fermi integral for eta in [-30, 400] (agreement 2e-31 at dps 30; polylog is reliable, incl. non-integer order at eta = 400).
  * mu: mpmath.findroot (secant in eta = mu/T on ln F_1/2(eta) = ln(ne/(NQ T^3/2))), residual
    checked to 1e-25.
  * Every integral: mpmath.quad (tanh-sinh in 1D; see below for 2D) called separately on each sub-interval of an explicit
    break-point list: the Fermi edges (e = mu, e = E + mu, ... for the relevant factors) and the
    lower limit, each surrounded by points at +-{0.5,1,2,4,...,64} x (its energy scale: Te for
    Fermi factors, Tr for the Planck factor, a = (sqrt(e0^2+4E^2)-e0)/2 for the S pole at e1=-a).
    The integrand is divided by its maximum over the break points before calling quad, because
    mpmath's quad convergence test is ABSOLUTE (eps = 10^-dps); with the normalised integrand the
    requested error is <= 1e-30 (1D) / 1e-20 (2D) of the peak, i.e. far below 1e-12 relative.
    The quad error estimates are summed and the largest relative estimate is reported at the end.
  * Infinite upper limits are truncated at the last edge + ~100 decay scales (Te, or Tr for the
    photon integrals) and it is asserted that |integrand| there is < 1e-40 of its maximum.
    Beyond the last edge every integrand is bounded by (max at the cut) x exp(-(e - cut)/scale)
    x (a factor growing at most like a power/log), so the dropped tail is < ~1e-40 relative.
  * Ionisation (2D): inner integral over e1 on [0, W/2], W = e0 - E, doubled (the integrand is
    symmetric under e1 <-> e2 = W - e1), break points at e1 = mu and e1 = W - mu when inside and
    a cluster at scale a near e1 = 0 (S has poles at e1 = -a, -b); outer integral over e0 with
    break points at E, mu, E+mu, E+2mu.  Both levels use mpmath.quad per sub-interval, here with
    method='gauss-legendre' and the coarser clusters +-{0,1,3,8,24,64} x scale (10x faster than
    tanh-sinh), integrands normalised to their max over the break points as in 1D.  The outer
    integral is truncated where the outer integrand is below 1e-40 of its max (asserted by a
    loop that extends the cut; justification: for e0 beyond E+2mu the factor F(e0) decays as
    exp(-e0/T) while e0 * inner(e0) <= e0 sigma_BELI(e0) grows only logarithmically, so the
    dropped tail is ~T x 1e-40 x max, i.e. ~1e-40 relative).
    2D uses mp.dps = 20.  Accuracy is established by recomputing three cases (Te, ne) =
    (1, 1e23), (0.1, 1e24), (30, 1e18) at mp.dps = 30 with the finer 1D break-point clusters,
    and two cases, (3, 1e22) and (1, 1e23), with tanh-sinh instead of Gauss-Legendre: printed
    as "2D precision check" / "2D rule check" at the end of the run and in the
    data-file header (development run: agreement 1e-21 .. 2e-19 relative).  In addition ion_down is
    computed once by the direct 2D integral of e0 S Fb(e0) F(e1) F(e2) (detailed-balance check),
    and the 2D code with Fb = 1 is compared with the MB closed form.
    ion_up is computed for ALL 30 FD states (none left out; the slowest, Te = 0.1 ne = 1e24,
    take 50-110 s each at dps 20).
  * Values of magnitude < 1e-280 are NOT written (they would underflow in double precision);
    they are listed in the header.
  * Runs in parallel over (state, transition) tasks with multiprocessing (default 2 workers;
    -j N to change).  The run time is written into the header of the data file ("run time");
    the development run (mpmath 1.3.0, gmpy2 back end, python 3.11, -j 2 on a shared 2-core
    machine with load average ~4-5) took 1332 s = 22 min wall; the 2D ionisation tasks take
    5-110 s each (slowest Te = 0.1, ne = 1e24), the 1D tasks ~15 s per plasma state.  mpmath
    with the gmpy2 back end (pip install gmpy2) is faster than the pure-python back end; the
    results do not depend on the back end.

USAGE
    python3 tests/reference/rates_mpmath.py [-j NWORKERS] [-o OUTPUT]
"""
import argparse
import csv
import datetime
import multiprocessing
import os
import sys
import time

import mpmath as mp
from mpmath import mpf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SHARED = "/work/shared/data"
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "rates_reference.txt")

DPS_1D = 30
DPS_2D = 20
DPS_CLOSED = 60
UNDERFLOW = mpf("1e-280")
TRUNC_REL = mpf("1e-40")
METHOD_2D = "gauss-legendre"
Z2N = mpf("1e22")

# ----------------------------------------------------------------------------- constants
mp.mp.dps = 50
ME_C2 = mpf("510998.95")
HC = mpf("1.2398419843320026e-4")
HBARC = HC / (2 * mp.pi)
C_LIGHT = mpf("2.99792458e10")
ALPHA = mpf("7.2973525693e-3")
A0 = mpf("5.29177210903e-9")
RYD = mpf("13.605693122994")
G = 4 * mp.pi * (2 * ME_C2 / HC**2) ** mpf(1.5)
V = C_LIGHT * mp.sqrt(2 / ME_C2)
NQ = G * mp.gamma(mpf(1.5))
K_EXC = G * V * mp.pi * A0**2 * RYD
K_ION = G * V * mpf("1e-13")
PHI = 8 * mp.pi * C_LIGHT / HC**3
A_FF = (mpf(4) / 3) * mp.sqrt(2 * mp.pi / 3) * (ALPHA * HBARC) ** 3 * HC**2 / ME_C2 ** mpf(1.5)
NQ_CHECK = 2 * (2 * mp.pi * ME_C2 / HC**2) ** mpf(1.5)
assert abs(NQ / NQ_CHECK - 1) < mpf("1e-40")
mp.mp.dps = DPS_1D


def eps_c(ne):
    return mp.sqrt(4 * mp.pi * ne * ALPHA * HBARC**3 / ME_C2)


# ----------------------------------------------------------------------------- grid
TE_LIST = ["0.1", "0.3", "1", "3", "10", "30"]
NE_LIST = ["1e18", "1e20", "1e22", "1e23", "1e24"]
TR_MAIN = "250"
EXTRA = [(te, ne, "20") for te in ["0.3", "3"] for ne in ["1e22", "1e24"]]

EXC_CSV_ROWS = [0, 1, 6]
ION_CSV_ROWS = [4, 0, 5]
EXC_SYNTH = ("5.0", ["0.3", "1.2", "-0.4", "0.2", "0.05", "-0.01"])


def load_tables():
    exc, ion = [], []
    with open(os.path.join(SHARED, "aluminium-cr-excitations.csv")) as fh:
        rows = list(csv.DictReader(fh))
    for r in EXC_CSV_ROWS:
        d = rows[r]
        exc.append(dict(csv_row=r, E=d["Ej_eV"],
                        B=[d["B0"], d["B1"], d["B2"], d["B3"], "0", "0"]))
    exc.append(dict(csv_row="synthetic", E=EXC_SYNTH[0], B=list(EXC_SYNTH[1])))
    with open(os.path.join(SHARED, "aluminium-cr-ionizations.csv")) as fh:
        rows = list(csv.DictReader(fh))
    for r in ION_CSV_ROWS:
        d = rows[r]
        ion.append(dict(csv_row=r, E=d["Ei_eV"],
                        C=[d["C0_A"], d["C1"], d["C2"], d["C3"], d["C4"]],
                        D=[d["D0_cm2"], d["D1_cm2"]]))
    return exc, ion


EXC, ION = load_tables()


# ----------------------------------------------------------------------------- Fermi integrals
def fdint(j, eta):
    """F_j(eta) = -Li_{j+1}(-e^eta) (normalised with 1/Gamma(j+1))."""
    return -mp.re(mp.polylog(mpf(j) + 1, -mp.exp(eta)))


def fdint_quad(j, eta):
    j = mpf(j)
    f = lambda x: x**j / (1 + mp.exp(x - eta))
    pts = [mpf(0)] + [eta + k for k in (-40, -10, -3, 0, 3, 10) if eta + k > 0] + [max(eta, 0) + 200]
    return mp.quad(f, pts) / mp.gamma(j + 1)


def chem_pot(T, ne):
    """FD chemical potential [eV] by findroot on ln F_1/2(eta) = ln(ne/(NQ T^1.5))."""
    y = ne / (NQ * T ** mpf(1.5))
    ly = mp.log(y)
    if y < 1:
        eta0 = ly
    else:
        eta0 = (3 * mp.sqrt(mp.pi) / 4 * y) ** (mpf(2) / 3)
    g = lambda eta: mp.log(fdint(0.5, eta)) - ly
    eta = mp.findroot(g, (eta0, eta0 * (1 + mpf("1e-3")) + mpf("1e-3")), solver="secant",
                      tol=mpf(10) ** (-2 * mp.mp.dps + 4), maxsteps=200)
    res = NQ * T ** mpf(1.5) * fdint(0.5, eta) / ne - 1
    assert abs(res) < mpf("1e-25"), res
    return eta * T


def chem_pot_mb(T, ne):
    return T * mp.log(ne / (NQ * T ** mpf(1.5)))


# ----------------------------------------------------------------------------- quadrature helpers
KS = [0, 0.5, 1, 2, 4, 8, 16, 32, 64]
KS2 = [0, 1, 3, 8, 24, 64]     # coarser clusters for the (Gauss-Legendre) 2D ionisation integral


def breakpoints(a, b, centers, ks=KS):
    """Sorted break points in [a, b]: every centre c (with energy scale s) plus c +- k s."""
    pts = [a, b]
    for c, s in centers:
        for k in ks:
            for sg in (1, -1):
                x = c + sg * k * s
                if a < x < b:
                    pts.append(x)
    pts.sort()
    out = [pts[0]]
    for x in pts[1:]:
        if x - out[-1] > mpf("1e-9") * (1 + abs(x)):
            out.append(x)
    if out[-1] != b:
        out[-1] = b
    return out


def integrate(f, pts, method="tanh-sinh"):
    """sum of mp.quad over the sub-intervals of pts, integrand normalised by its max over the
    break points and mid-points. Returns (value, abs_error_estimate, max|f| found)."""
    probe = list(pts) + [(x + y) / 2 for x, y in zip(pts[:-1], pts[1:])]
    scale = max(abs(f(x)) for x in probe)
    if scale == 0:
        return mpf(0), mpf(0), scale
    g = lambda x: f(x) / scale
    tot = mpf(0)
    err = mpf(0)
    for x, y in zip(pts[:-1], pts[1:]):
        v, e = mp.quad(g, [x, y], error=True, method=method)
        tot += v
        err += e
    return tot * scale, err * scale, scale


def truncated_upper(f, start, step, fmax_hint=None):
    """upper limit >= start such that |f(upper)| < TRUNC_REL * fmax (fmax = max over probes)."""
    up = start
    for _ in range(60):
        probes = [start - step * k for k in (100, 64, 32, 16, 8, 4, 2, 1)] + [start]
        fm = max([abs(f(x)) for x in probes if x > 0] + ([fmax_hint] if fmax_hint else []))
        if abs(f(up)) <= TRUNC_REL * fm:
            return up
        up += 20 * step
    raise RuntimeError("truncation not reached")


class Plasma:
    def __init__(self, T, ne, stats):
        self.T = mpf(T)
        self.ne = mpf(ne)
        self.stats = stats
        self.mu = chem_pot(self.T, self.ne) if stats == "FD" else chem_pot_mb(self.T, self.ne)
        self.iT = 1 / self.T

    def F(self, e):
        if self.stats == "MB":
            return mp.exp((self.mu - e) * self.iT)
        return 1 / (1 + mp.exp((e - self.mu) * self.iT))

    def Fb(self, e):
        if self.stats == "MB":
            return mpf(1)
        return 1 / (1 + mp.exp((self.mu - e) * self.iT))

    def energy_density(self):
        if self.stats == "MB":
            return mpf(1.5) * self.ne * self.T
        return mpf(1.5) * NQ * self.T ** mpf(2.5) * fdint(1.5, self.mu / self.T)


# ----------------------------------------------------------------------------- 1D rates
def omega(x, B):
    ix = 1 / x
    return B[0] * mp.log(x) + B[1] + ix * (B[2] + ix * (B[3] + ix * (B[4] + ix * B[5])))


def exc_rate(pl, tr, down=False):
    E = mpf(tr["E"])
    B = [mpf(b) for b in tr["B"]]
    T, mu = pl.T, pl.mu
    if down:
        f = lambda e: omega(e / E, B) * pl.F(e - E) * pl.Fb(e)
    else:
        f = lambda e: omega(e / E, B) * pl.F(e) * pl.Fb(e - E)
    last = max(E, mu, E + mu)
    up = truncated_upper(f, last + 100 * T, T)
    pts = breakpoints(E, up, [(E, T), (mu, T), (E + mu, T)])
    v, e, _ = integrate(f, pts)
    return K_EXC * v, K_EXC * e


def exc_up_mb_closed(pl, tr):
    with mp.workdps(DPS_CLOSED):
        E = mpf(tr["E"])
        B = [mpf(b) for b in tr["B"]]
        beta = E / pl.T
        En = [mp.exp(-beta) / beta] + [mp.expint(n, beta) for n in range(1, 5)]
        s = B[0] * En[1] / beta + B[1] * En[0] + B[2] * En[1] + B[3] * En[2] + B[4] * En[3] + B[5] * En[4]
        return K_EXC * mp.exp(pl.mu / pl.T) * E * s


def ion_up_mb_closed(pl, tr):
    with mp.workdps(DPS_CLOSED):
        E = mpf(tr["E"])
        C = [mpf(c) for c in tr["C"]]
        beta = E / pl.T
        En = [mp.exp(-beta) / beta] + [mp.expint(n, beta) for n in range(1, 5)]
        s = C[0] * En[1] / beta
        for k in range(1, 5):
            s += C[k] * sum((-1) ** j * mp.binomial(k, j) * En[j] for j in range(k + 1))
        return K_ION * mp.exp(pl.mu / pl.T) * s


def beli_sigma13(e0, E, C):
    """int_0^{e0-E} S de1 = BELI sigma / 1e-13 [eV^-2]."""
    y = 1 - E / e0
    return (C[0] * mp.log(e0 / E) + sum(C[k] * y**k for k in range(1, 5))) / (E * e0)


def ion_up_mb_quad1d(pl, tr):
    E = mpf(tr["E"])
    C = [mpf(c) for c in tr["C"]]
    f = lambda e0: e0 * beli_sigma13(e0, E, C) * pl.F(e0)
    up = truncated_upper(f, E + 100 * pl.T, pl.T)
    v, e, _ = integrate(f, breakpoints(E, up, [(E, pl.T)]))
    return K_ION * v


def photo_sigma(e, E, D):
    r = E / e
    return r * r * (D[0] + D[1] * r)


def photo(pl, tr, Tr, heat=False):
    E = mpf(tr["E"])
    D = [mpf(d) for d in tr["D"]]
    Tr = mpf(Tr)
    T, mu = pl.T, pl.mu

    def f(e):
        v = photo_sigma(e, E, D) * PHI * e * e / mp.expm1(e / Tr) * pl.Fb(e - E)
        return v * (e - E) if heat else v

    last = max(E, E + mu)
    up = truncated_upper(f, last + 110 * Tr, Tr)
    centers = [(E, Tr)]
    if pl.stats == "FD":
        centers += [(E, T), (E + mu, T), (E + mu, Tr)]
    v, e, _ = integrate(f, breakpoints(E, up, centers))
    return v, e


def ib_heat(pl, Tr):
    Tr = mpf(Tr)
    T, mu = pl.T, pl.mu
    ec = eps_c(pl.ne)
    if pl.stats == "MB":
        emu = mp.exp(mu / T)
        Lg = lambda e: -emu * mp.expm1(-e / T)
    else:
        l0 = mp.log1p(mp.exp(mu / T))
        Lg = lambda e: l0 - mp.log1p(mp.exp((mu - e) / T))
    f = lambda e: Lg(e) / mp.expm1(e / Tr)
    last = max(ec, mu)
    up = truncated_upper(f, last + 110 * Tr, Tr)
    centers = [(ec, T), (ec, Tr), (mu, T), (mu, Tr)]
    v, e, _ = integrate(f, breakpoints(ec, up, centers))
    pref = A_FF * Z2N * mp.sqrt(mp.pi) / 2 * G * T * PHI
    return pref * v, pref * e


# ----------------------------------------------------------------------------- 2D ionisation
def ion_2d(pl, tr, direction="up", blocking=True, method=None, ks=None):
    """K_ION * int_E^inf de0 int_0^{e0-E} de1 e0 S (F(e0) Fb(e1) Fb(e2) for 'up' |
    Fb(e0) F(e1) F(e2) for 'down'). blocking=False: Fb -> 1 (for the MB check).
    method/ks: quadrature rule and break-point clusters (default METHOD_2D, KS2).
    Returns (value, rel_err_estimate, n_inner_calls)."""
    method = method or METHOD_2D
    ks = ks or KS2
    E = mpf(tr["E"])
    C = [mpf(c) for c in tr["C"]]
    T, mu = pl.T, pl.mu
    iT = pl.iT
    ncall = [0]

    single = pl.F if direction == "up" else pl.Fb

    def inner(e0):
        ncall[0] += 1
        W = e0 - E
        if W <= 0:
            return mpf(0)
        a = (mp.sqrt(e0 * e0 + 4 * E * E) - e0) / 2
        b = a + E
        # S = pref * [C0 E (1/((e1+a)(e1+b)) + (same, e2)) + sum_k k Ck (e1^(k-1)+e2^(k-1))/e0^k]
        # with e1 + e2 = W, p = e1 e2:  e1^2+e2^2 = W^2 - 2p,  e1^3+e2^3 = W^3 - 3Wp,
        # and 1/((x+a)(x+b)) = (1/(x+a) - 1/(x+b))/E  (b - a = E).
        kc = [k * C[k] / e0**k for k in range(1, 5)]
        P0 = 2 * kc[0] + kc[1] * W + kc[2] * W**2 + kc[3] * W**3
        P1 = -(2 * kc[2] + 3 * W * kc[3])
        c0 = C[0]
        pref = 1 / (2 * E * e0)
        if blocking:
            # Fb(e1) Fb(e2) = 1/((1+x)(1+K/x)), x = exp((mu-e1)/T), K = exp((2mu-W)/T)  ('up')
            # F(e1) F(e2)   = 1/((1+x)(1+K/x)), x = exp((e1-mu)/T), K = exp((W-2mu)/T)  ('down')
            sg = 1 if direction == "up" else -1
            K = mp.exp(sg * (2 * mu - W) * iT)
            m1 = sg * mu * iT
            s1 = -sg * iT

            def pairf(e1):
                x = mp.exp(m1 + s1 * e1)
                return 1 / (1 + K + x + K / x)
        else:
            pairf = None

        def h(e1):
            e2 = W - e1
            s = c0 * (1 / (e1 + a) - 1 / (e1 + b) + 1 / (e2 + a) - 1 / (e2 + b)) + P0 + P1 * (e1 * e2)
            return s * pairf(e1) if pairf else s

        half = W / 2
        centers = [(mpf(0), a), (mpf(0), T), (mu, T), (W - mu, T)]
        pts = breakpoints(mpf(0), half, centers, ks)
        v, err, _ = integrate(h, pts, method=method)
        return 2 * pref * v

    g = lambda e0: e0 * single(e0) * inner(e0)
    last = max(E, mu, E + mu, E + 2 * mu)
    centers = [(E, T), (mu, T), (E + mu, T), (E + 2 * mu, T)]
    up0 = last + (40 * mp.log(10) + 12) * T
    # outer normalisation and truncation check
    pts = breakpoints(E, up0, centers, ks)
    gvals = [abs(g(x)) for x in pts]
    gmax = max(gvals)
    up = up0
    while abs(g(up)) > TRUNC_REL * gmax:
        up += 10 * T
    if up != up0:
        pts = breakpoints(E, up, centers, ks)
    gn = lambda x: g(x) / gmax
    tot = mpf(0)
    err = mpf(0)
    for x, y in zip(pts[:-1], pts[1:]):
        v, e = mp.quad(gn, [x, y], error=True, method=method)
        tot += v
        err += e
    return K_ION * tot * gmax, err / abs(tot), ncall[0]


# ----------------------------------------------------------------------------- tasks
def states():
    return [(te, ne) for te in TE_LIST for ne in NE_LIST]


def row(kind, stats, te, ne, tr_ev, idx, value, mu):
    return dict(kind=kind, stats=stats, te=te, ne=ne, tr=tr_ev, index=idx, value=value, mu=mu)


def task_1d(args):
    """All cheap quantities of one plasma state."""
    te, ne, trs = args
    mp.mp.dps = DPS_1D
    t0 = time.time()
    rows, relerr = [], []
    for stats in ("FD", "MB"):
        pl = Plasma(te, ne, stats)
        mu = pl.mu
        rows.append(row("mu", stats, te, ne, "0", -1, mu, mu))
        rows.append(row("energy_density", stats, te, ne, "0", -1, pl.energy_density(), mu))
        for i, tr in enumerate(EXC):
            if stats == "FD":
                for kind, down in (("exc_up", False), ("exc_down", True)):
                    v, e = exc_rate(pl, tr, down)
                    relerr.append(abs(e / v) if v else 0)
                    rows.append(row(kind, stats, te, ne, "0", i, v, mu))
            else:
                rows.append(row("exc_up", stats, te, ne, "0", i, exc_up_mb_closed(pl, tr), mu))
        if stats == "MB":
            for i, tr in enumerate(ION):
                rows.append(row("ion_up", stats, te, ne, "0", i, ion_up_mb_closed(pl, tr), mu))
        for Tr in trs:
            for i, tr in enumerate(ION):
                v, e = photo(pl, tr, Tr)
                relerr.append(abs(e / v))
                rows.append(row("pi_rate", stats, te, ne, Tr, i, v, mu))
                if stats == "FD":
                    v, e = photo(pl, tr, Tr, heat=True)
                    relerr.append(abs(e / v))
                    rows.append(row("pi_heat", stats, te, ne, Tr, i, v, mu))
            v, e = ib_heat(pl, Tr)
            relerr.append(abs(e / v))
            rows.append(row("ib_heat", stats, te, ne, Tr, -1, v, mu))
    return dict(kind="1d", rows=rows, relerr=max(relerr), time=time.time() - t0, state=(te, ne))


def task_ion(args):
    te, ne, i, dps = args
    t0 = time.time()
    with mp.workdps(DPS_1D):
        pl = Plasma(te, ne, "FD")
    with mp.workdps(dps):
        v, rel, n = ion_2d(pl, ION[i], "up")
    with mp.workdps(DPS_1D):
        E = mpf(ION[i]["E"])
        vdown = mp.exp((E + pl.mu) / pl.T) * v
    rows = [row("ion_up", "FD", te, ne, "0", i, v, pl.mu),
            row("ion_down", "FD", te, ne, "0", i, vdown, pl.mu)]
    return dict(kind="ion", rows=rows, relerr=rel, time=time.time() - t0, state=(te, ne, i),
                dps=dps, ncall=n)


def task_check2d(args):
    """2D precision check: same case at DPS_2D and at 30, plus direct ion_down, plus MB 2D."""
    what, te, ne, i = args
    t0 = time.time()
    with mp.workdps(DPS_1D):
        pl = Plasma(te, ne, "FD")
        plmb = Plasma(te, ne, "MB")
    out = dict(kind="check", what=what, state=(te, ne, i))
    if what == "dps":
        with mp.workdps(30):
            v30, r30, _ = ion_2d(pl, ION[i], "up", ks=KS)
        out.update(v30=v30, r30=r30)
    elif what == "rule":
        with mp.workdps(DPS_2D):
            vts, rts, _ = ion_2d(pl, ION[i], "up", method="tanh-sinh")
        out.update(vts=vts, rts=rts)
    elif what == "down":
        with mp.workdps(DPS_2D):
            vd, rd, _ = ion_2d(pl, ION[i], "down")
        out.update(vdown_direct=vd, rel=rd)
    elif what == "mb2d":
        with mp.workdps(DPS_2D):
            v2, r2, _ = ion_2d(plmb, ION[i], "up", blocking=False)
        with mp.workdps(DPS_1D):
            out.update(v2d=v2, v1d=ion_up_mb_quad1d(plmb, ION[i]),
                       vclosed=ion_up_mb_closed(plmb, ION[i]))
    out["time"] = time.time() - t0
    return out


def run(task):
    kind, args = task
    return {"1d": task_1d, "ion": task_ion, "check": task_check2d}[kind](args)


# ----------------------------------------------------------------------------- start-up checks
def startup_checks(log):
    mp.mp.dps = DPS_1D
    log("# polylog vs quad Fermi integrals:")
    worst = mpf(0)
    for j in (0.5, 1.5):
        for eta in (-30, -5, -1, 0, 1, 5, 20, 50, 100, 200, 400):
            a = fdint(j, mpf(eta))
            b = fdint_quad(j, mpf(eta))
            worst = max(worst, abs(a / b - 1))
    log("#   max |polylog/quad - 1| over j in {1/2,3/2}, eta in [-30,400]: %s" % mp.nstr(worst, 3))
    assert worst < mpf("1e-20")
    log("# MB closed forms vs mpmath.quad:")
    for te, ne, i in (("1", "1e20", 1), ("10", "1e22", 3), ("0.3", "1e18", 0)):
        pl = Plasma(te, ne, "MB")
        c = exc_up_mb_closed(pl, EXC[i])
        q, _ = exc_rate(pl, EXC[i])
        log("#   exc_up MB Te=%s ne=%s idx=%d closed=%s quad=%s rel=%s" %
            (te, ne, i, mp.nstr(c, 17), mp.nstr(q, 17), mp.nstr(abs(q / c - 1), 3)))
        assert abs(q / c - 1) < mpf("1e-20")
    for te, ne, i in (("1", "1e20", 0), ("30", "1e22", 2), ("0.3", "1e18", 0)):
        pl = Plasma(te, ne, "MB")
        c = ion_up_mb_closed(pl, ION[i])
        q = ion_up_mb_quad1d(pl, ION[i])
        log("#   ion_up MB Te=%s ne=%s idx=%d closed=%s quad(1D, BELI sigma)=%s rel=%s" %
            (te, ne, i, mp.nstr(c, 17), mp.nstr(q, 17), mp.nstr(abs(q / c - 1), 3)))
        assert abs(q / c - 1) < mpf("1e-20")
    log("# int_0^{e0-E} S de1 (quad) vs BELI sigma:")
    worst = mpf(0)
    for tr in ION:
        E = mpf(tr["E"])
        C = [mpf(c) for c in tr["C"]]
        for x in ("1.01", "1.5", "3", "20", "300"):
            e0 = E * mpf(x)
            a = (mp.sqrt(e0 * e0 + 4 * E * E) - e0) / 2
            b = a + E
            W = e0 - E

            def s(e1):
                e2 = W - e1
                v = C[0] * E * (1 / ((e1 + a) * (e1 + b)) + 1 / ((e2 + a) * (e2 + b)))
                v += sum(k * C[k] * (e1 ** (k - 1) + e2 ** (k - 1)) / e0**k for k in range(1, 5))
                return v / (2 * E * e0)
            q = mp.quad(s, [0, min(a, W / 2), W / 2]) * 2
            worst = max(worst, abs(q / beli_sigma13(e0, E, C) - 1))
    log("#   max rel diff: %s" % mp.nstr(worst, 3))
    assert worst < mpf("1e-25")


# ----------------------------------------------------------------------------- main
KIND_ORDER = ["mu", "energy_density", "exc_up", "exc_down", "ion_up", "ion_down",
              "pi_rate", "pi_heat", "ib_heat"]


def fmt(v):
    return mp.nstr(v, 17, strip_zeros=False, min_fixed=0, max_fixed=0) if v != 0 else "0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-o", default=DEFAULT_OUT)
    ap.add_argument("--skip-ion", default="", help="comma list te:ne (debug)")
    args = ap.parse_args()
    t_start = time.time()
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    startup_checks(log)

    tasks = []
    checks = [("dps", "1", "1e23", 0), ("dps", "0.1", "1e24", 0), ("dps", "30", "1e18", 1),
              ("rule", "3", "1e22", 2), ("rule", "1", "1e23", 0),
              ("down", "3", "1e23", 0), ("down", "0.3", "1e24", 0),
              ("mb2d", "3", "1e20", 0)]
    tasks += [("check", c) for c in checks]     # slowest first
    skip = set(tuple(s.split(":")) for s in args.skip_ion.split(",") if s)
    # 2D tasks first (slowest, ordered by expected cost)
    for te, ne in states():
        if (te, ne) in skip:
            continue
        for i in range(len(ION)):
            tasks.append(("ion", (te, ne, i, DPS_2D)))
    for te, ne in states():
        trs = [TR_MAIN] + [x[2] for x in EXTRA if x[0] == te and x[1] == ne]
        tasks.append(("1d", (te, ne, trs)))

    results = []
    with multiprocessing.Pool(args.j) as pool:
        for k, r in enumerate(pool.imap_unordered(run, tasks)):
            results.append(r)
            print("[%4d/%d %7.1fs] %s %s %.1fs" % (k + 1, len(tasks), time.time() - t_start,
                                                    r["kind"], r.get("state"), r["time"]),
                  flush=True)

    # collect rows
    rows = [x for r in results if r["kind"] in ("1d", "ion") for x in r["rows"]]
    by = {}
    for x in rows:
        by[(x["kind"], x["stats"], x["te"], x["ne"], x["tr"], x["index"])] = x

    written, skipped = [], []
    for x in rows:
        (written if abs(x["value"]) >= UNDERFLOW else skipped).append(x)
    sk = lambda x: (KIND_ORDER.index(x["kind"]), x["stats"], float(x["tr"]), float(x["te"]),
                    float(x["ne"]), x["index"])
    written.sort(key=sk)
    skipped.sort(key=sk)

    # ---------------------------------------------------------------- sanity checks
    san = []
    S = lambda s: san.append(s)
    S("# ---- sanity checks ----")
    S("# FD/MB ratio at ne = 1e18 (|ratio-1| < 1e-3 expected only where non-degenerate enough):")
    for kind in ("exc_up", "ion_up", "mu", "energy_density", "pi_rate", "ib_heat"):
        for te in TE_LIST:
            n = 3 if kind == "ion_up" else (len(EXC) if kind == "exc_up" else 1)
            for i in range(n):
                idx = -1 if kind in ("mu", "energy_density", "ib_heat") else i
                tr = TR_MAIN if kind in ("pi_rate", "ib_heat") else "0"
                a = by.get((kind, "FD", te, "1e18", tr, idx))
                b = by.get((kind, "MB", te, "1e18", tr, idx))
                if a is None or b is None:
                    continue
                if kind == "mu":
                    d = (a["value"] - b["value"]) / mpf(te)
                    S("#   %-14s Te=%-4s idx=%2d (muFD-muMB)/T = %s" % (kind, te, idx, mp.nstr(d, 4)))
                    continue
                r = a["value"] / b["value"]
                S("#   %-14s Te=%-4s idx=%2d FD/MB = %s  %s" % (kind, te, idx, mp.nstr(r, 10),
                                                            "ok(<1e-3)" if abs(r - 1) < 1e-3 else "dev>1e-3"))
    mp.mp.dps = DPS_1D
    ne = mpf("1e24")
    EF = HC**2 / (2 * ME_C2) * (3 * ne / (8 * mp.pi)) ** (mpf(2) / 3)
    mu = by[("mu", "FD", "0.1", "1e24", "0", -1)]["value"]
    somm = EF * (1 - mp.pi**2 / 12 * (mpf("0.1") / EF) ** 2)
    S("# mu(Te=0.1, ne=1e24) = %s eV, E_F = %s eV, mu/E_F = %s, Sommerfeld E_F(1-pi^2/12 (T/E_F)^2) = %s (rel diff %s)"
      % (mp.nstr(mu, 17), mp.nstr(EF, 17), mp.nstr(mu / EF, 12), mp.nstr(somm, 17), mp.nstr(mu / somm - 1, 3)))
    worst = mpf(0)
    for te, ne_ in states():
        for i, tr in enumerate(EXC):
            a = by[("exc_up", "FD", te, ne_, "0", i)]["value"]
            b = by[("exc_down", "FD", te, ne_, "0", i)]["value"]
            r = b / a / mp.exp(mpf(tr["E"]) / mpf(te))
            worst = max(worst, abs(r - 1))
    S("# exc_down/exc_up/exp(E/T) - 1: max over all %d FD cases = %s" % (len(states()) * len(EXC), mp.nstr(worst, 3)))
    relerr_1d = max(r["relerr"] for r in results if r["kind"] == "1d")
    relerr_2d = max(r["relerr"] for r in results if r["kind"] == "ion")
    S("# max relative quad error estimate: 1D %s, 2D %s" % (mp.nstr(relerr_1d, 3), mp.nstr(relerr_2d, 3)))
    for r in results:
        if r["kind"] != "check":
            continue
        te, ne_, i = r["state"]
        base = by.get(("ion_up", "FD", te, ne_, "0", i))
        if r["what"] == "dps":
            S("# 2D precision check ion_up FD Te=%s ne=%s idx=%d: dps%d(KS2 clusters)=%s dps30(finer KS clusters)=%s rel diff=%s"
              % (te, ne_, i, DPS_2D, mp.nstr(base["value"], 17), mp.nstr(r["v30"], 17),
                 mp.nstr(abs(r["v30"] / base["value"] - 1), 3)))
        elif r["what"] == "rule":
            S("# 2D rule check ion_up FD Te=%s ne=%s idx=%d: gauss-legendre=%s tanh-sinh=%s rel diff=%s"
              % (te, ne_, i, mp.nstr(base["value"], 17), mp.nstr(r["vts"], 17),
                 mp.nstr(abs(r["vts"] / base["value"] - 1), 3)))
        elif r["what"] == "down":
            bd = by[("ion_down", "FD", te, ne_, "0", i)]["value"]
            S("# ion_down direct 2D (F(e1)F(e2)Fb(e0)) Te=%s ne=%s idx=%d: direct=%s exp((E+mu)/T)K_up=%s rel diff=%s"
              % (te, ne_, i, mp.nstr(r["vdown_direct"], 17), mp.nstr(bd, 17),
                 mp.nstr(abs(r["vdown_direct"] / bd - 1), 3)))
        elif r["what"] == "mb2d":
            S("# MB ion_up Te=%s ne=%s idx=%d: 2D quad (Fb=1)=%s 1D quad=%s closed=%s rel(2D)=%s"
              % (te, ne_, i, mp.nstr(r["v2d"], 17), mp.nstr(r["v1d"], 17), mp.nstr(r["vclosed"], 17),
                 mp.nstr(abs(r["v2d"] / r["vclosed"] - 1), 3)))
    for s in san:
        log(s)
    runtime = time.time() - t_start
    timing = sorted(((r["time"], r["state"]) for r in results if r["kind"] == "ion"), reverse=True)
    log("# slowest 2D tasks: " + ", ".join("%s %.0fs" % (s, t) for t, s in timing[:5]))
    log("# total run time %.1f s with %d worker(s)" % (runtime, args.j))

    # ---------------------------------------------------------------- write
    counts = {}
    for x in written:
        counts[(x["kind"], x["stats"])] = counts.get((x["kind"], x["stats"]), 0) + 1
    hdr = []
    H = hdr.append
    H("# rates_reference.txt -- reference values for the degenerate (Fermi-Dirac) atomic rate coefficients")
    H("# generated by tests/reference/rates_mpmath.py (python %s, mpmath %s, backend %s) on %s"
      % (sys.version.split()[0], mp.__version__, mp.libmp.BACKEND,
         datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")))
    H("# run time %.0f s on %d worker process(es)" % (runtime, args.j))
    H("# Definitions, units and constants: tests/reference/FORMULAS.md (exactly). Energies eV, ne cm^-3.")
    H("# Columns:")
    H("#   kind   mu [eV] | energy_density [eV cm^-3] | exc_up, exc_down, ion_up, ion_down, pi_rate [s^-1]")
    H("#          | pi_heat [eV s^-1] | ib_heat [eV cm^-3 s^-1] (with Z2N = sum Z^2 N_Z = 1e22 cm^-3)")
    H("#   stats  FD (Fermi-Dirac, blocking) or MB (Maxwell-Boltzmann: F = exp((mu_MB-e)/T), Fb = 1)")
    H("#   te_ev  electron temperature;  ne_cm3  electron density")
    H("#   tr_ev  radiation temperature for pi_rate/pi_heat/ib_heat (0 = not applicable)")
    H("#   index  transition row in the tables below (-1 for mu, energy_density, ib_heat)")
    H("#   value  the quantity (17 significant digits)")
    H("#   mu_ev  chemical potential used (FD or MB according to stats), 17 digits")
    H("# exc_down: g_l = g_u = 1, direct integral K_EXC int Omega F(e-E) Fb(e) de.")
    H("# ion_down: g = 1, K_down = exp((E+mu)/T) K_up (FORMULAS.md definition).")
    H("# MB rows: mu, energy_density, exc_up (closed form, E_n), ion_up (closed form, E_n), pi_rate, ib_heat.")
    H("# Excitation transitions (Omega(x) = B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4, x = e/E):")
    for i, tr in enumerate(EXC):
        H("#   index %d: %s  E = %s eV  B0..B5 = %s" % (
            i, ("aluminium-cr-excitations.csv row %d" % tr["csv_row"]) if tr["csv_row"] != "synthetic"
            else "synthetic", tr["E"], " ".join(tr["B"])))
    H("# Ionization / photoionization transitions (C0 = BELI A in 1e-13 cm^2 eV^2 units; D in cm^2):")
    for i, tr in enumerate(ION):
        H("#   index %d: aluminium-cr-ionizations.csv row %d  E = %s eV  C0..C4 = %s  D0 D1 = %s" % (
            i, tr["csv_row"], tr["E"], " ".join(tr["C"]), " ".join(tr["D"])))
    H("# Grid: Te in {%s} eV x ne in {%s} cm^-3; Tr = %s eV; extra pi_rate/pi_heat/ib_heat at Tr = 20 eV"
      % (", ".join(TE_LIST), ", ".join(NE_LIST), TR_MAIN))
    H("#   for Te in {0.3, 3} x ne in {1e22, 1e24} (FD and MB as for Tr = 250).")
    H("# Numerics: mpmath.quad per sub-interval with explicit break points at the Fermi edges (tanh-sinh in 1D,")
    H("#   gauss-legendre at both levels of the 2D ionisation integral; closed forms for MB exc_up/ion_up),")
    H("#   mp.dps = %d (1D), %d (2D ionisation); integrands normalised to their max, truncation at < 1e-40 of max."
      % (DPS_1D, DPS_2D))
    H("#   max relative quad error estimate: 1D %s, 2D %s (see sanity checks below for dps20 vs dps30)."
      % (mp.nstr(relerr_1d, 3), mp.nstr(relerr_2d, 3)))
    H("# Values with |value| < 1e-280 are NOT written (would underflow in double). %d skipped:" % len(skipped))
    for x in skipped:
        H("#   skipped %s %s te=%s ne=%s tr=%s index=%d (|value| = %s)" % (
            x["kind"], x["stats"], x["te"], x["ne"], x["tr"], x["index"], mp.nstr(abs(x["value"]), 3)))
    H("# ion_up FD was computed for all %d states (none left out for cost); ion_down FD is written even where"
      % len(set((x["te"], x["ne"]) for x in rows if x["kind"] == "ion_up" and x["stats"] == "FD")))
    H("#   ion_up underflows (mpmath has no exponent limit, so exp((E+mu)/T) K_up is exact to working precision).")
    if skip:
        H("# ion_up/ion_down FD NOT computed for (te, ne): %s" % sorted(skip))
    H("# Row counts: " + ", ".join("%s/%s %d" % (k[0], k[1], v) for k, v in
                                   sorted(counts.items(), key=lambda kv: (KIND_ORDER.index(kv[0][0]), kv[0][1]))))
    for s in san:
        H(s)
    H("#")
    H("# kind stats te_ev ne_cm3 tr_ev index value mu_ev")
    os.makedirs(os.path.dirname(args.o), exist_ok=True)
    with open(args.o, "w") as fh:
        for h in hdr:
            fh.write(h + "\n")
        for x in written:
            fh.write("%s %s %s %s %s %d %s %s\n" % (x["kind"], x["stats"], x["te"], x["ne"], x["tr"],
                                                     x["index"], fmt(x["value"]), fmt(x["mu"])))
    log("# wrote %d rows (%d skipped) to %s" % (len(written), len(skipped), args.o))
    for k, v in sorted(counts.items(), key=lambda kv: (KIND_ORDER.index(kv[0][0]), kv[0][1])):
        log("#   %-15s %s %d" % (k[0], k[1], v))


if __name__ == "__main__":
    main()
