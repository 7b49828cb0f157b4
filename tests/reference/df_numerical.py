#!/usr/bin/env python3
"""
Independent numerical (grid-based B-spline Galerkin, NOT Gaussian-basis) closed-shell
Dirac-Fock (Dirac-Coulomb HF, no Breit) solver for atoms whose occupied orbitals are all
s1/2 (kappa=-1), each subshell doubly occupied: He 1s^2, Be 1s^2 2s^2, Ne^8+ 1s^2.
Same program also does the non-relativistic radial HF limit (Schroedinger Galerkin with
identical grid / Coulomb-integral machinery) as a self-check.

Method
------
* Radial basis: B-splines of degree d (order d+1) on the knot sequence
      0, r_min*(r_max/r_min)^(j/(n-1)), j=0..n-1   (geometric breakpoints),
  end knots repeated.  B_0 (nonzero at r=0) and the last two splines are dropped.
* Dirac: dual-kinetic-balance (DKB) basis (Shabaev et al., PRL 93, 130405 (2004)):
      u_i      = ( B_i , (1/2c)(d/dr + kappa/r) B_i )        ("large" set)
      u_{N+i}  = ( (1/2c)(d/dr - kappa/r) B_i , B_i )        ("small" set, B_1 also dropped
                                                               so that P(0)=0 -> finite
                                                               point-nucleus integrals)
  Radial Dirac operator, energies excluding rest energy (Johnson, Atomic Structure Theory):
      V P + c(-d/dr + kappa/r) Q = e P
      c(d/dr + kappa/r) P + (V - 2c^2) Q = e Q ,     int (P^2+Q^2) dr = 1
  Matrix elements (after integration by parts; all boundary terms vanish for the kept splines):
      h_uv = int [ V (uP vP + uQ vQ) - 2c^2 uQ vQ + c (uP' vQ + uQ vP') + c kappa/r (uP vQ + uQ vP) ] dr
  No-pair: occupied orbitals = lowest eigenvectors with eigenvalue > -c^2 (positive-energy).
* Non-relativistic mode: basis B_i, h_ij = int [ 1/2 B_i' B_j' + V B_i B_j ] dr (l=0).
* Closed-shell energy (q_a=2 for every s1/2 subshell; Gamma_k=0 = 1/2):
      E = sum_a 2 I_a + sum_{a,b} [ 2 F^0(a,b) - G^0(a,b) ]
    = sum_a q_a I_a + 1/2 sum_{ab} q_a q_b [F^0(a,b) - 1/2 G^0(a,b)]
  F^0(a,b)=R^0(aa,bb), G^0(a,b)=R^0(ab,ba), rho_ab = P_a P_b + Q_a Q_b,
  R^0(ab,cd) = int int rho_ab(1) rho_cd(2) / r_>.  (He: E = 2 I_1s + F^0(1s,1s).)
  Roothaan form: common Fock operator F = h + sum_b [2 J_b - K_b] (exchange non-local),
  E = 1/2 tr[D (h + F)], D = 2 sum_a c_a c_a^T.  SCF with DIIS.
* Quadrature: n_q-point Gauss-Legendre in every knot interval (exact/spectral for the
  piecewise-polynomial(-times-smooth) integrands).  Coulomb potentials
      y(r) = (1/r) int_0^r rho + int_r^inf rho/r'
  by spectral cumulative integration (Legendre interpolation through the n_q nodes of each
  interval, integrated exactly) plus interval sums -> no extra discretisation error beyond
  the quadrature.
* Nuclear models: point  V=-Z/r ;  Gaussian  V=-Z erf(sqrt(xi) r)/r.
* c = 137.03599976 (a.u.).
"""
import os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small dense matrices: avoid thread thrashing
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import scipy.linalg as sl
from scipy.interpolate import BSpline
from scipy.special import erf
from numpy.polynomial import legendre as L

C_LIGHT = 137.03599976
KAPPA = -1

ATOMS = {  # name: (Z, number of doubly occupied s1/2 shells, Gaussian xi in bohr^-2)
    'He':   (2, 1, 1.1671538870e9),
    'Be':   (4, 2, 7.8788802914e8),
    'Ne8+': (10, 1, 5.2105715255e8),
}


class Grid:
    """Knots, quadrature points/weights and cumulative-integration machinery."""

    def __init__(self, rmin, rmax, nbp, deg, nq):
        bp = np.concatenate(([0.0], rmin * (rmax / rmin) ** (np.arange(nbp) / (nbp - 1))))
        bp[-1] = rmax
        self.bp = bp
        self.deg = deg
        self.t = np.concatenate((np.zeros(deg), bp, np.full(deg, rmax)))
        self.nb = len(self.t) - deg - 1
        x, w = L.leggauss(nq)
        a, b = bp[:-1], bp[1:]
        half = 0.5 * (b - a)
        self.half = half
        self.nint = len(a)
        self.nq = nq
        self.r = (a[:, None] + half[:, None] * (x[None, :] + 1.0)).ravel()
        self.w = (half[:, None] * w[None, :]).ravel()
        # cumulative integration on reference interval: Cum[i,j] = int_{-1}^{x_i} l_j(x) dx
        V = L.legvander(x, nq - 1)
        Vint = np.empty_like(V)
        for j in range(nq):
            e = np.zeros(nq); e[j] = 1.0
            Vint[:, j] = L.legval(x, L.legint(e, lbnd=-1))
        self.Cum = Vint @ np.linalg.inv(V)
        self.wref = w

    def cumint(self, f):
        """F(r_q) = int_0^{r_q} f dr for f given at quadrature points; f shape (M,) or (M,n)."""
        sh = f.shape
        f3 = f.reshape(self.nint, self.nq, -1)
        inner = np.einsum('ij,kjn->kin', self.Cum, f3) * self.half[:, None, None]
        tot = np.einsum('j,kjn->kn', self.wref, f3) * self.half[:, None]
        before = np.concatenate((np.zeros((1, tot.shape[1])), np.cumsum(tot, axis=0)[:-1]), axis=0)
        F = inner + before[:, None, :]
        return F.reshape(sh), np.sum(tot, axis=0).reshape(sh[1:])

    def coulomb(self, rho):
        """y(r) = int rho(r')/r_> dr'  (k=0 potential, y = Y^0/r)."""
        r = self.r if rho.ndim == 1 else self.r[:, None]
        A, _ = self.cumint(rho)
        B, Btot = self.cumint(rho / r)
        return A / r + (Btot - B)


class Basis:
    def __init__(self, grid, rel, c=C_LIGHT, kappa=KAPPA):
        g = grid
        self.rel = rel
        nb = g.nb
        spl = BSpline(g.t, np.eye(nb), g.deg, extrapolate=False)
        r = g.r
        B0 = np.nan_to_num(spl(r)); B1 = np.nan_to_num(spl(r, 1)); B2 = np.nan_to_num(spl(r, 2))
        rr = r[:, None]
        if not rel:
            keep = np.arange(1, nb - 2)
            self.P = B0[:, keep]; self.dP = B1[:, keep]
            self.Q = None
        else:
            k1 = np.arange(1, nb - 2)   # large set
            k2 = np.arange(2, nb - 2)   # small set
            Pl = B0[:, k1]; dPl = B1[:, k1]
            Ql = (B1[:, k1] + kappa * B0[:, k1] / rr) / (2 * c)
            Ps = (B1[:, k2] - kappa * B0[:, k2] / rr) / (2 * c)
            dPs = (B2[:, k2] - kappa * B1[:, k2] / rr + kappa * B0[:, k2] / rr ** 2) / (2 * c)
            Qs = B0[:, k2]
            self.P = np.hstack((Pl, Ps)); self.dP = np.hstack((dPl, dPs))
            self.Q = np.hstack((Ql, np.zeros_like(Ql[:, :0]), Qs))
            self.Q = np.hstack((Ql, Qs))
        # normalise basis functions to unit self-overlap (conditioning)
        w = g.w
        nrm = np.einsum('q,qi,qi->i', w, self.P, self.P)
        if rel:
            nrm += np.einsum('q,qi,qi->i', w, self.Q, self.Q)
        s = 1.0 / np.sqrt(nrm)
        self.P *= s; self.dP *= s
        if rel:
            self.Q *= s
        self.n = self.P.shape[1]
        self.c = c; self.kappa = kappa

    def overlap(self, w):
        S = (self.P * w[:, None]).T @ self.P
        if self.rel:
            S += (self.Q * w[:, None]).T @ self.Q
        return S

    def potmat(self, w, V):
        wv = (w * V)[:, None]
        M = (self.P * wv).T @ self.P
        if self.rel:
            M += (self.Q * wv).T @ self.Q
        return M

    def hcore(self, g, Vnuc):
        w = g.w
        H = self.potmat(w, Vnuc)
        if not self.rel:
            H += 0.5 * (self.dP * w[:, None]).T @ self.dP
        else:
            c, kap = self.c, self.kappa
            W = w[:, None]
            H += -2 * c * c * (self.Q * W).T @ self.Q
            T = c * (self.dP * W).T @ self.Q
            T += c * kap * (self.P * (w / g.r)[:, None]).T @ self.Q
            H += T + T.T
        return 0.5 * (H + H.T)


def refine(F, S, e, C, nit=3):
    """Inverse-iteration polishing of eigenpairs (F - e S) c = 0.  The dense symmetric
    eigensolver has an absolute error ~ eps*||F||, and ||F|| ~ 1/r_min^2 is huge for the
    tiny knot intervals near r=0; LU-based inverse iteration + Rayleigh quotient keeps
    the graded structure and gives eigenpairs accurate to ~ eps * (physical energy scale)."""
    C = C.copy(); e = e.copy()
    for a in range(C.shape[1]):
        x = C[:, a]
        for _ in range(nit):
            lu = sl.lu_factor(F - e[a] * S)
            y = sl.lu_solve(lu, S @ x)
            x = y / np.sqrt(y @ S @ y)
            e[a] = x @ F @ x
        C[:, a] = x
    # S-orthonormalise the set (Loewdin); rotation-invariant for closed shells
    M = C.T @ S @ C
    w, U = np.linalg.eigh(M)
    C = C @ (U / np.sqrt(w)) @ U.T
    return e, C


def lowest_states(F, S, nocc, sigma):
    """Lowest nocc eigenpairs of F c = e S c above the shift sigma (for Dirac: the lowest
    positive-energy states; the negative continuum lies below -2c^2 < sigma).
    Shift-invert: M = L^T (F - sigma S)^-1 L, S = L L^T; the wanted states are the dominant
    eigenvalues mu = 1/(e - sigma) of M, so the norm-wise error of the dense eigensolver is
    relative to them (F itself has norm ~1/r_min^2).  Then polished by inverse iteration."""
    Lc = np.linalg.cholesky(S)
    A = F - sigma * S
    Y = sl.lu_solve(sl.lu_factor(A), Lc)
    M = Lc.T @ Y
    mu, V = np.linalg.eigh(0.5 * (M + M.T))
    idx = np.argsort(-mu)[:nocc]
    e = sigma + 1.0 / mu[idx]
    Cc = (Y @ V[:, idx]) / mu[idx]
    Cc = Cc / np.sqrt(np.einsum('ia,ij,ja->a', Cc, S, Cc))
    return refine(F, S, e, Cc)


def nuclear_potential(r, Z, model, xi=None):
    if model == 'point':
        return -Z / r
    return -Z * erf(np.sqrt(xi) * r) / r


def scf(Z, nocc, grid, rel, nucmodel, xi=None, c=C_LIGHT, verbose=False, tol=1e-12, maxit=100):
    g = grid
    bas = Basis(g, rel, c)
    Vn = nuclear_potential(g.r, Z, nucmodel, xi)
    S = bas.overlap(g.w)
    h = bas.hcore(g, Vn)
    sigma = -1.0 * Z * Z - 1.0      # shift below all bound levels, above -2c^2

    def diag(F):
        return lowest_states(F, S, nocc, sigma)

    def orbitals(Cocc):
        P = bas.P @ Cocc
        Q = bas.Q @ Cocc if rel else None
        return P, Q

    def fock(Cocc):
        P, Q = orbitals(Cocc)
        w = g.w
        rho = np.sum(P * P, axis=1)
        if rel:
            rho = rho + np.sum(Q * Q, axis=1)
        VH = 2.0 * g.coulomb(rho)          # direct potential of all 2*nocc electrons
        F = h + bas.potmat(w, VH)
        K = np.zeros_like(h)
        for b in range(nocc):
            A = bas.P * P[:, b:b + 1]
            if rel:
                A = A + bas.Q * Q[:, b:b + 1]
            Wb = g.coulomb(A)              # int (phi_j . phi_b)(r') / r_> dr'
            K += (A * w[:, None]).T @ Wb
        K = 0.5 * (K + K.T)
        F -= K
        return F

    e, Cocc = diag(h)
    Lc = np.linalg.cholesky(S)
    E_old = 0.0
    nsmall = 0
    diis_F, diis_err = [], []
    for it in range(maxit):
        D = 2.0 * Cocc @ Cocc.T
        F = fock(Cocc)
        E = 0.5 * np.sum(D * (h + F))
        err = sl.solve_triangular(Lc, sl.solve_triangular(Lc, (F @ D @ S - S @ D @ F).T, lower=True).T, lower=True)
        errn = np.abs(err).max()
        if verbose:
            print(f'  it {it:3d} E = {E:.15f}  dE = {E - E_old:.2e}  [FDS] = {errn:.2e}')
        # converged when the energy is stationary to 'tol' twice in a row (the commutator
        # norm stalls at ~1e-9..1e-8 on the finest grids because of round-off, harmlessly)
        if abs(E - E_old) < tol and (errn < 1e-9 or nsmall >= 1):
            break
        nsmall = nsmall + 1 if abs(E - E_old) < tol else 0
        E_old = E
        diis_F.append(F - h); diis_err.append(err)
        if len(diis_F) > 8:
            diis_F.pop(0); diis_err.pop(0)
        m = len(diis_F)
        if m >= 2:
            Bm = -np.ones((m + 1, m + 1)); Bm[m, m] = 0.0
            for i in range(m):
                for j in range(m):
                    Bm[i, j] = np.sum(diis_err[i] * diis_err[j])
            rhs = np.zeros(m + 1); rhs[m] = -1.0
            try:
                cf = np.linalg.solve(Bm, rhs)[:m]
                Fd = h + sum(cf[i] * diis_F[i] for i in range(m))
            except np.linalg.LinAlgError:
                Fd = F
        else:
            Fd = F
        e, Cocc = diag(Fd)
    # final: orbital energies from the converged Fock, explicit energy decomposition
    e, Cocc = diag(F)
    P, Q = orbitals(Cocc)
    I = np.array([Cocc[:, a] @ h @ Cocc[:, a] for a in range(nocc)])
    rho = [P[:, a] ** 2 + (Q[:, a] ** 2 if rel else 0) for a in range(nocc)]
    F0 = np.zeros((nocc, nocc)); G0 = np.zeros((nocc, nocc))
    for a in range(nocc):
        ya = g.coulomb(rho[a])
        for b in range(nocc):
            F0[a, b] = np.sum(g.w * rho[b] * ya)
            rab = P[:, a] * P[:, b] + (Q[:, a] * Q[:, b] if rel else 0)
            G0[a, b] = np.sum(g.w * rab * g.coulomb(rab))
    Eexpl = 2 * I.sum() + np.sum(2 * F0 - G0)
    return dict(E=Eexpl, E_roothaan=E, eps=e, I=I, F0=F0, G0=G0, iters=it, nbasis=bas.n, comm=errn)


def hydrogenic_check(grid, Z=10, c=C_LIGHT):
    """One-electron Dirac 1s, point nucleus, vs exact formula (mpmath)."""
    import mpmath as mp
    mp.mp.dps = 40
    g = grid
    bas = Basis(g, True, c)
    S = bas.overlap(g.w)
    h = bas.hcore(g, -Z / g.r)
    e = lowest_states(h, S, 2, -1.0 * Z * Z - 1.0)[0]
    cc = mp.mpf(C_LIGHT) if c == C_LIGHT else mp.mpf(c)
    a = mp.mpf(Z) / cc
    n, k = 1, 1
    ex = cc ** 2 * ((1 + a ** 2 / (n - k + mp.sqrt(k * k - a ** 2)) ** 2) ** mp.mpf(-0.5) - 1)
    ex2 = cc ** 2 * ((1 + a ** 2 / (2 - k + mp.sqrt(k * k - a ** 2)) ** 2) ** mp.mpf(-0.5) - 1)
    return e[0], float(ex), e[1], float(ex2)


GRIDS = {  # name: (rmin, #breakpoints, spline degree, Gauss points per interval, rmax factor)
    'A': (1e-6, 140, 8, 20, 1.0),
    'B': (3e-7, 200, 9, 22, 1.0),
    'C': (1e-7, 280, 10, 24, 1.0),
    'D': (2e-7, 240, 9, 22, 1.4),   # different r_max (x1.4) check
}
RMAX = {'He': 45.0, 'Be': 60.0, 'Ne8+': 25.0}


def main():
    out = []

    def pr(s=''):
        print(s); sys.stdout.flush(); out.append(s)

    pr('Numerical B-spline (DKB) Dirac-Fock, closed-shell s1/2 atoms; c = %.8f' % C_LIGHT)
    pr('grids (rmin, #breakpoints, spline degree, Gauss points/interval): ' +
       '; '.join(f'{k}={v}' for k, v in GRIDS.items()) + f'; rmax={RMAX}')
    pr()
    pr('One-electron check: H-like Z=10, point nucleus, Dirac 1s and 2s (energy w/o rest mass)')
    for gn, (rmin, nbp, deg, nq, fr) in GRIDS.items():
        g = Grid(rmin, 25.0 * fr, nbp, deg, nq)
        e1, x1, e2, x2 = hydrogenic_check(g)
        pr(f'  grid {gn}: 1s {e1:.15f} exact {x1:.15f} diff {e1 - x1:.2e} | '
           f'2s {e2:.15f} exact {x2:.15f} diff {e2 - x2:.2e}')
    pr()
    results = {}
    for mode in ['NR', 'DF-point', 'DF-gauss']:
        for name, (Z, nocc, xi) in ATOMS.items():
            if mode == 'NR' and name == 'Ne8+':
                pass
            for gn, (rmin, nbp, deg, nq, fr) in GRIDS.items():
                t0 = time.time()
                g = Grid(rmin, RMAX[name] * fr, nbp, deg, nq)
                rel = mode != 'NR'
                nuc = 'gauss' if mode == 'DF-gauss' else 'point'
                res = scf(Z, nocc, g, rel, nuc, xi)
                results[(mode, name, gn)] = res
                pr(f'{mode:9s} {name:5s} grid {gn} nbasis {res["nbasis"]:4d}: E = {res["E"]:.14f}'
                   f'  (Roothaan {res["E_roothaan"]:.14f}) eps = {np.array2string(res["eps"], precision=12)}'
                   f'  it={res["iters"]} |[F,D]|={res["comm"]:.0e} {time.time() - t0:.1f}s')
            Es = [results[(mode, name, gn)]['E'] for gn in GRIDS]
            pr(f'          {name:5s} diffs: B-A {Es[1] - Es[0]:.2e}  C-B {Es[2] - Es[1]:.2e}  D-C {Es[3] - Es[2]:.2e}')
    pr()
    ref = {'He': -2.861679995612, 'Be': -14.573023168313}
    pr('Non-relativistic check vs numerical HF limits:')
    for name, v in ref.items():
        E = results[('NR', name, 'C')]['E']
        pr(f'  {name}: {E:.12f}  ref {v:.12f}  diff {E - v:.2e}')
    pr()
    pr('SUMMARY (grid C), total energies in hartree, c = 137.03599976')
    pr(f'{"atom":6s} {"point nucleus":>22s} {"Gaussian nucleus":>22s} {"non-rel (c->inf)":>22s}')
    for name in ATOMS:
        pr(f'{name:6s} {results[("DF-point", name, "C")]["E"]:22.13f} '
           f'{results[("DF-gauss", name, "C")]["E"]:22.13f} {results[("NR", name, "C")]["E"]:22.13f}')
    pr()
    pr('Dirac code itself -> non-relativistic limit (point nucleus, grid B): E(c) at c = 10x and 100x')
    pr('c_phys; Richardson E_NR ~ (c2^2 E2 - c1^2 E1)/(c2^2 - c1^2) (removes the 1/c^2 term)')
    rmin, nbp, deg, nq, fr = GRIDS['B']
    for name, (Z, nocc, xi) in ATOMS.items():
        g = Grid(rmin, RMAX[name], nbp, deg, nq)
        c1, c2 = 10 * C_LIGHT, 100 * C_LIGHT
        E1 = scf(Z, nocc, g, True, 'point', c=c1)['E']
        E2 = scf(Z, nocc, g, True, 'point', c=c2)['E']
        Ex = (c2 ** 2 * E2 - c1 ** 2 * E1) / (c2 ** 2 - c1 ** 2)
        Enr = results[('NR', name, 'B')]['E']
        pr(f'  {name:5s} E(10c)={E1:.13f} E(100c)={E2:.13f} extrap={Ex:.13f} NR-code={Enr:.13f} diff={Ex - Enr:.1e}')
    with open('/tmp/dfnum/results.txt', 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
