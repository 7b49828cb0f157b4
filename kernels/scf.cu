// SCF family kernels (paper: dfratom-cudaprophet-scf.txt §2.3). Compiled by NVRTC alone: no CUDA
// headers. One thread computes one integral set (L, P, Q, M, R, S) of the triangular map
// (src/scf/index_map.rs) in a grid-stride loop with 64-bit indices: the closed-shell supermatrix
// element of src/scf/supermatrix.rs (non-relativistic or Dirac-Fock) from the Slater integrals of
// src/scf/slater.rs (the same closed form: incomplete beta function by its continued fraction).

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

// B_x(a2/2, b2/2) given x and y = 1 - x.
__device__ double incomplete_beta(unsigned a2, unsigned b2, double x, double y) {
    const double a = a2 / 2.0, b = b2 / 2.0;
    const double complete = gamma_half(a2) * gamma_half(b2) / gamma_half(a2 + b2);
    if (x <= 0.0) return 0.0;
    if (y <= 0.0) return complete;
    const double front = exp(a * log(x) + b * log(y));
    if (x < (a + 1.0) / (a + b + 2.0)) return front / a * beta_cf(a, b, x);
    return complete - front / b * beta_cf(b, a, y);
}

// F(alpha, beta; p, q) of src/scf/slater.rs.
__device__ double split_integral(unsigned alpha, unsigned beta, double p, double q) {
    const double x = q / (p + q), y = p / (p + q);
    const double powers = exp(-(alpha + 1.0) / 2.0 * log(p) - (beta + 1.0) / 2.0 * log(q));
    return gamma_half(alpha + beta + 2) / 4.0 * powers * incomplete_beta(beta + 1, alpha + 1, x, y);
}

// One radial function R(r) = c0 r^n0 e^{-e r^2} + c1 r^n1 e^{-e r^2} of component comp
// (src/scf/radial.rs; c1 = 0 when unused).
struct Radial {
    double e, c[2];
    unsigned n[2], comp;
};

__device__ inline Radial load_radial(const double *exps, const double *coefs, const unsigned *powers,
                                     const unsigned *comps, u64 f) {
    Radial r;
    r.e = exps[f];
    r.c[0] = coefs[2 * f];
    r.c[1] = coefs[2 * f + 1];
    r.n[0] = powers[2 * f];
    r.n[1] = powers[2 * f + 1];
    r.comp = comps[f];
    return r;
}

// R^k(ab, cd): a, b on electron 1, c, d on electron 2; zero unless each pair shares a component
// (radial_slater of src/scf/slater.rs, the same term order).
__device__ double slater(unsigned k, const Radial &a, const Radial &b, const Radial &c, const Radial &d) {
    if (a.comp != b.comp || c.comp != d.comp) return 0.0;
    const double p = a.e + b.e, q = c.e + d.e;
    double sum = 0.0;
    for (int s = 0; s < 2; ++s)
        for (int t = 0; t < 2; ++t) {
            const double cab = a.c[s] * b.c[t];
            if (a.c[s] == 0.0 || b.c[t] == 0.0) continue;
            const unsigned m = a.n[s] + b.n[t] + 2;
            for (int u = 0; u < 2; ++u)
                for (int v = 0; v < 2; ++v) {
                    if (c.c[u] == 0.0 || d.c[v] == 0.0) continue;
                    const double ccd = c.c[u] * d.c[v];
                    const unsigned n = c.n[u] + d.n[v] + 2;
                    sum += cab * ccd * (split_integral(m - k - 1, n + k, p, q) + split_integral(n - k - 1, m + k, q, p));
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

// packed[i] = R^0(pq, rs) - sum_k c_k(L, M) [R^k(pr, qs) + R^k(ps, qr)] for every set i < n_sets.
// Functions of all symmetries in one list: exponents[f], coefs[2f..2f+2], powers[2f..2f+2],
// comps[f]; first[nsym]: the first function of each symmetry; offsets[nsym+1]: pair offsets of the
// map; weights[(L nsym + M) kmax + k]: c_k (zero when k is not allowed).
struct SupermatrixParams {
    u64 exponents, coefs, powers, comps, first, offsets, weights, packed;
    u64 n_sets;
    int nsym, kmax;
};

extern "C" __global__ void supermatrix(const SupermatrixParams prm) {
    const double *exps = (const double *)prm.exponents, *coefs = (const double *)prm.coefs;
    const unsigned *powers = (const unsigned *)prm.powers, *comps = (const unsigned *)prm.comps;
    const double *w = (const double *)prm.weights;
    const u64 *first = (const u64 *)prm.first, *offsets = (const u64 *)prm.offsets;
    double *packed = (double *)prm.packed;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < prm.n_sets; i += (u64)gridDim.x * blockDim.x) {
        const u64 y = triangle_root(i), x = i - triangle(y);
        const int L = symmetry_of(y, offsets, prm.nsym), M = symmetry_of(x, offsets, prm.nsym);
        const u64 ty = y - offsets[L], tx = x - offsets[M];
        const u64 P = triangle_root(ty), Q = ty - triangle(P), R = triangle_root(tx), S = tx - triangle(R);
        const Radial p = load_radial(exps, coefs, powers, comps, first[L] + P);
        const Radial q = load_radial(exps, coefs, powers, comps, first[L] + Q);
        const Radial r = load_radial(exps, coefs, powers, comps, first[M] + R);
        const Radial s = load_radial(exps, coefs, powers, comps, first[M] + S);
        double value = slater(0, p, q, r, s);
        const double *wk = w + ((u64)L * prm.nsym + M) * prm.kmax;
        for (int k = 0; k < prm.kmax; ++k) {
            if (wk[k] == 0.0) continue;
            value -= wk[k] * (slater(k, p, r, q, s) + slater(k, p, s, q, r));
        }
        packed[i] = value;
    }
}
