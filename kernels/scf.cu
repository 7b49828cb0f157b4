// SCF family kernels (paper: dfratom-cudaprophet-scf.txt §2.3). Compiled by NVRTC alone: no CUDA
// headers. One thread computes one integral set (L, P, Q, M, R, S) of the triangular map
// (src/scf/index_map.rs) in a grid-stride loop with 64-bit indices: the closed-shell supermatrix
// element of src/scf/cpu.rs (non-relativistic or Dirac-Fock) from the Slater integrals of
// src/scf/slater.rs (the same closed form in the same scaled, logarithmic form: incomplete beta
// function by its continued fraction). A launch covers the sets [set_begin, set_end), so that a
// watched call (progress callback, time limit) can compute the supermatrix in pieces.

typedef unsigned long long u64;

__device__ inline u64 triangle(u64 j) { return j * (j + 1) / 2; }

// The largest y with n'(y) <= t.
__device__ inline u64 triangle_root(u64 t) {
    u64 y = (u64)((sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
    while (triangle(y) > t) --y;
    while (triangle(y + 1) <= t) ++y;
    return y;
}

// Gamma(x2 / 2) for positive integer or half-integer x2 / 2.
__device__ double gamma_half(unsigned x2) {
    double g = 1.0;
    if (x2 % 2 == 0) {
        for (unsigned i = 1; i < x2 / 2; ++i) g *= (double)i;
        return g;
    }
    for (unsigned i = 1; i <= (x2 - 1) / 2; ++i) g *= (2.0 * i - 1.0) / 2.0;
    return g * 1.7724538509055160273;  // sqrt(pi)
}

__device__ inline double lentz_guard(double v) { return fabs(v) < 1e-300 ? 1e-300 : v; }

// One Lentz step with coefficient aa: updates c and d, returns the factor of the fraction.
__device__ inline double lentz_step(double aa, double &c, double &d) {
    d = 1.0 / lentz_guard(1.0 + aa * d);
    c = lentz_guard(1.0 + aa / c);
    return d * c;
}

// Continued fraction of the incomplete beta function (modified Lentz), x < (a+1)/(a+b+2).
__device__ double beta_cf(double a, double b, double x) {
    const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 / lentz_guard(1.0 - qab * x / qap);
    double h = d;
    for (int m = 1; m <= 400; ++m) {
        const double m2 = 2.0 * m;
        h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), c, d);
        const double delta = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), c, d);
        h *= delta;
        if (fabs(delta - 1.0) < 1e-16) break;
    }
    return h;
}

// x = q/(p+q) and y = 1 - x with their logarithms, from ln p and ln q (Split of src/scf/slater.rs).
struct Split {
    double ln_x, ln_y, x, y;
};

__device__ inline Split split_of(double p, double q, double ln_p, double ln_q) {
    const double d = ln_p - ln_q;
    const double r = isfinite(p) && isfinite(q) ? fmin(p, q) / fmax(p, q) : exp(-fabs(d)), t = log1p(r);
    const double small = r / (1.0 + r), large = 1.0 / (1.0 + r);
    Split s;
    s.ln_x = -(fmax(d, 0.0) + t);
    s.ln_y = -(fmax(-d, 0.0) + t);
    s.x = d >= 0.0 ? small : large;
    s.y = d >= 0.0 ? large : small;
    return s;
}

__device__ inline Split mirrored(const Split &s) {
    Split m;
    m.ln_x = s.ln_y, m.ln_y = s.ln_x, m.x = s.y, m.y = s.x;
    return m;
}

// B_x(a2/2, b2/2) of the split as e^L f (incomplete_beta of src/scf/slater.rs): returns f, sets L.
__device__ double incomplete_beta(unsigned a2, unsigned b2, const Split &s, double &ln_scale) {
    const double a = a2 / 2.0, b = b2 / 2.0;
    const double ln_front = a * s.ln_x + b * s.ln_y;
    if (s.x < (a + 1.0) / (a + b + 2.0)) {
        ln_scale = ln_front - log(a);
        return beta_cf(a, b, s.x);
    }
    ln_scale = 0.0;
    const double complete = gamma_half(a2) * gamma_half(b2) / gamma_half(a2 + b2);
    return complete - exp(ln_front) / b * beta_cf(b, a, s.y);
}

// e^w p^((m+1)/2) q^((n+1)/2) F(m-k-1, n+k; p, q) of src/scf/slater.rs.
__device__ double split_integral(unsigned m, unsigned n, unsigned k, double w, double ln_p, double ln_q,
                                 const Split &s) {
    double ln_beta;
    const double beta = incomplete_beta(n + k + 1, m - k, s, ln_beta);
    return exp(w + log(gamma_half(m + n + 1)) - 2.0 * 0.69314718055994530942 + 0.5 * (k + 1) * ln_p -
               0.5 * k * ln_q + ln_beta) *
           beta;
}

// One radial function R(r) = c0 z^((n0+3/2)/2) r^n0 e^{-z r^2} + c1 z^((n1+3/2)/2) r^n1 e^{-z r^2}
// of component comp (src/scf/radial.rs: c dimensionless; c1 = 0 when unused), e = z, ln_e = ln z.
struct Radial {
    double e, ln_e, c[2];
    unsigned n[2], comp;
};

__device__ inline Radial load_radial(const double *exps, const double *ln_exps, const double *coefs,
                                     const unsigned *powers, const unsigned *comps, u64 f) {
    Radial r;
    r.e = exps[f];
    r.ln_e = ln_exps[f];
    r.c[0] = coefs[2 * f];
    r.c[1] = coefs[2 * f + 1];
    r.n[0] = powers[2 * f];
    r.n[1] = powers[2 * f + 1];
    r.comp = comps[f];
    return r;
}

// The charge density of two radial functions a, b (charge_density and PairDensity of
// src/scf/slater.rs): the exponent p, ln p and the shares ln(a/p), ln(b/p); none (charge false)
// unless they share a component.
struct Density {
    double p, ln_p, share_a, share_b;
    bool charge;
};

__device__ inline Density density_of(const Radial &a, const Radial &b) {
    Density p;
    p.charge = a.comp == b.comp;
    const double t = log1p(fmin(a.e, b.e) / fmax(a.e, b.e));
    p.p = a.e + b.e;
    p.ln_p = fmax(a.ln_e, b.ln_e) + t;
    p.share_a = -(fmax(b.ln_e - a.ln_e, 0.0) + t);
    p.share_b = -(fmax(a.ln_e - b.ln_e, 0.0) + t);
    return p;
}

// R^k between the charge densities ab of a, b and cd of c, d (densities_slater of
// src/scf/slater.rs, the same term order).
__device__ double slater(unsigned k, const Radial &a, const Radial &b, const Density &ab, const Radial &c,
                         const Radial &d, const Density &cd) {
    if (!ab.charge || !cd.charge) return 0.0;
    const Split s = split_of(ab.p, cd.p, ab.ln_p, cd.ln_p), sm = mirrored(s);
    double sum = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            if (a.c[i] == 0.0 || b.c[j] == 0.0) continue;
            const double cab = a.c[i] * b.c[j];
            const double wab = 0.5 * (a.n[i] + 1.5) * ab.share_a + 0.5 * (b.n[j] + 1.5) * ab.share_b;
            const unsigned m = a.n[i] + b.n[j] + 2;
            for (int u = 0; u < 2; ++u)
                for (int v = 0; v < 2; ++v) {
                    if (c.c[u] == 0.0 || d.c[v] == 0.0) continue;
                    const double ccd = c.c[u] * d.c[v];
                    const double w = wab + (0.5 * (c.n[u] + 1.5) * cd.share_a + 0.5 * (d.n[v] + 1.5) * cd.share_b);
                    const unsigned n = c.n[u] + d.n[v] + 2;
                    sum += cab * ccd *
                           (split_integral(m, n, k, w, ab.ln_p, cd.ln_p, s) +
                            split_integral(n, m, k, w, cd.ln_p, ab.ln_p, sm));
                }
        }
    return sum;
}

// Symmetry of pair index y: the last s with offsets[s] <= y (binary search, Algorithm 4).
__device__ int symmetry_of(u64 y, const u64 *offsets, int nsym) {
    int low = 0, high = nsym - 1;
    while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (offsets[mid] <= y) low = mid; else high = mid - 1;
    }
    return low;
}

// packed[i] = R^0(pq, rs) - sum_k c_k(L, M) [R^k(pr, qs) + R^k(ps, qr)] for every set i in
// [set_begin, set_end).
// Functions of all symmetries in one list: exponents[f], ln_exponents[f], coefs[2f..2f+2], powers[2f..2f+2],
// comps[f]; first[nsym]: the first function of each symmetry; offsets[nsym+1]: pair offsets of the
// map; weights[(L nsym + M) kmax + k]: c_k (zero when k is not allowed).
struct SupermatrixParams {
    u64 exponents, ln_exponents, coefs, powers, comps, first, offsets, weights, packed;
    u64 set_begin, set_end;
    int nsym, kmax;
};

extern "C" __global__ void supermatrix(const SupermatrixParams prm) {
    const double *exps = (const double *)prm.exponents, *ln_exps = (const double *)prm.ln_exponents;
    const double *coefs = (const double *)prm.coefs;
    const unsigned *powers = (const unsigned *)prm.powers, *comps = (const unsigned *)prm.comps;
    const double *w = (const double *)prm.weights;
    const u64 *first = (const u64 *)prm.first, *offsets = (const u64 *)prm.offsets;
    double *packed = (double *)prm.packed;
    for (u64 i = prm.set_begin + blockIdx.x * (u64)blockDim.x + threadIdx.x; i < prm.set_end;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 y = triangle_root(i), x = i - triangle(y);
        const int L = symmetry_of(y, offsets, prm.nsym), M = symmetry_of(x, offsets, prm.nsym);
        const u64 ty = y - offsets[L], tx = x - offsets[M];
        const u64 P = triangle_root(ty), Q = ty - triangle(P), R = triangle_root(tx), S = tx - triangle(R);
        const Radial p = load_radial(exps, ln_exps, coefs, powers, comps, first[L] + P);
        const Radial q = load_radial(exps, ln_exps, coefs, powers, comps, first[L] + Q);
        const Radial r = load_radial(exps, ln_exps, coefs, powers, comps, first[M] + R);
        const Radial s = load_radial(exps, ln_exps, coefs, powers, comps, first[M] + S);
        double value = slater(0, p, q, density_of(p, q), r, s, density_of(r, s));
        const double *wk = w + ((u64)L * prm.nsym + M) * prm.kmax;
        const Density pr = density_of(p, r), qs = density_of(q, s), ps = density_of(p, s), qr = density_of(q, r);
        for (int k = 0; k < prm.kmax; ++k) {
            if (wk[k] == 0.0) continue;
            value -= wk[k] * (slater(k, p, r, pr, q, s, qs) + slater(k, p, s, ps, q, r, qr));
        }
        packed[i] = value;
    }
}
