// SCF family kernels (paper: dfratom-cudaprophet-scf.txt §2.3). Compiled by NVRTC alone: no CUDA
// headers. One thread computes one integral set (L, P, Q, M, R, S) of the triangular map
// (src/scf/index_map.rs) in a grid-stride loop with 64-bit indices: the closed-shell supermatrix
// element of src/scf/cpu.rs (non-relativistic or Dirac-Fock) from the Slater integrals of
// src/scf/slater.rs (the same closed form in the same scaled, logarithmic form: incomplete beta
// function by its finite sum), on the component groups of src/scf/groups.rs: `supermatrix` for
// the same-component pairs (the sub-blocks as symmetries), `supermatrix_mixed` for the mixed
// ones. A launch covers the sets [set_begin, set_end), so that a watched call (progress callback,
// time limit) can compute the supermatrix in pieces.

typedef unsigned long long u64;

__device__ inline u64 triangle(u64 j) { return j * (j + 1) / 2; }

// The largest y with n'(y) <= t.
__device__ inline u64 triangle_root(u64 t) {
    u64 y = (u64)((sqrt(8.0 * (double)t + 1.0) - 1.0) / 2.0);
    while (triangle(y) > t) --y;
    while (triangle(y + 1) <= t) ++y;
    return y;
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

// B_x(a, n) / x^a for integer n (beta_integer_b of src/scf/slater.rs): Horner's rule over the
// positive terms c_j y^j, c_{n-1} = 1/(a+n-1), c_j = c_{j+1} (j+1)/(a+j).
__device__ double beta_integer_b(double a, unsigned n, double y) {
    double c = 1.0 / (a + (double)(n - 1)), sum = c;
    for (int j = (int)n - 2; j >= 0; --j) {
        c *= (double)(j + 1) / (a + (double)j);
        sum = c + y * sum;
    }
    return sum;
}

// e^w p^((m+1)/2) q^((n+1)/2) F(m-k-1, n+k; p, q) of src/scf/slater.rs, with its incomplete beta
// function B_x((n+k+1)/2, (m-k)/2) = x^a beta_integer_b: (m - k)/2 is an integer in every set of a
// supermatrix (src/scf/slater.rs module docs), the only integrals these kernels compute.
// ln_gamma[x2] = ln Gamma(x2 / 2) (HALF_TABLES of src/scf/slater.rs).
__device__ double split_integral(unsigned m, unsigned n, unsigned k, double w, double ln_p, double ln_q,
                                 const Split &s, const double *ln_gamma) {
    const double a = 0.5 * (n + k + 1);
    return exp(w + ln_gamma[m + n + 1] - 2.0 * 0.69314718055994530942 + 0.5 * (k + 1) * ln_p - 0.5 * k * ln_q +
               a * s.ln_x) *
           beta_integer_b(a, (m - k) / 2, s.y);
}

// One radial function R(r) = c0 z^((n0+3/2)/2) r^n0 e^{-z r^2} + c1 z^((n1+3/2)/2) r^n1 e^{-z r^2}
// of component comp (src/scf/radial.rs: c dimensionless; c1 = 0 when unused), e = z, ln_e = ln z.
struct Radial {
    double e, ln_e, c[2];
    unsigned n[2], comp;
};

// The functions of a basis on the device (one array per field, src/scf/cuda.rs DeviceFunctions):
// exponents[f], ln_exponents[f], coefs[2f..2f+2], powers[2f..2f+2], comps[f] (1: small), and
// ln_gamma[x2] = ln Gamma(x2 / 2).
struct Functions {
    u64 exponents, ln_exponents, coefs, powers, comps, ln_gamma;
};

__device__ inline Radial load_radial(const Functions &fn, u64 f) {
    const double *coefs = (const double *)fn.coefs;
    const unsigned *powers = (const unsigned *)fn.powers;
    Radial r;
    r.e = ((const double *)fn.exponents)[f];
    r.ln_e = ((const double *)fn.ln_exponents)[f];
    r.c[0] = coefs[2 * f];
    r.c[1] = coefs[2 * f + 1];
    r.n[0] = powers[2 * f];
    r.n[1] = powers[2 * f + 1];
    r.comp = ((const unsigned *)fn.comps)[f];
    return r;
}

// The charge density of two radial functions a, b (charge_density and PairDensity of
// src/scf/slater.rs): the exponent p, ln p and its terms c e^w r^m (at most three: terms of the same
// power merged as PairDensity::add does); none (charge false) unless they share a component.
struct Density {
    double p, ln_p;
    double c[3], w[3];
    unsigned m[3], len;
    bool charge;
};

__device__ inline void add_term(Density &d, double c, double w, unsigned m) {
    for (unsigned t = 0; t < d.len; ++t)
        if (d.m[t] == m) {
            const double top = fmax(d.w[t], w);
            d.c[t] = d.c[t] * exp(d.w[t] - top) + c * exp(w - top);
            d.w[t] = top;
            return;
        }
    d.c[d.len] = c;
    d.w[d.len] = w;
    d.m[d.len] = m;
    ++d.len;
}

__device__ inline Density density_of(const Radial &a, const Radial &b) {
    Density d;
    d.charge = a.comp == b.comp;
    d.len = 0;
    if (!d.charge) return d;
    const double t = log1p(fmin(a.e, b.e) / fmax(a.e, b.e));
    d.p = a.e + b.e;
    d.ln_p = fmax(a.ln_e, b.ln_e) + t;
    const double share_a = -(fmax(b.ln_e - a.ln_e, 0.0) + t), share_b = -(fmax(a.ln_e - b.ln_e, 0.0) + t);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            if (a.c[i] == 0.0 || b.c[j] == 0.0) continue;
            add_term(d, a.c[i] * b.c[j], 0.5 * (a.n[i] + 1.5) * share_a + 0.5 * (b.n[j] + 1.5) * share_b,
                     a.n[i] + b.n[j] + 2);
        }
    return d;
}

// R^k between the charge densities ab and cd (density_slater of src/scf/slater.rs, the same term
// order).
__device__ double slater(unsigned k, const Density &ab, const Density &cd, const double *ln_gamma) {
    if (!ab.charge || !cd.charge) return 0.0;
    const Split s = split_of(ab.p, cd.p, ab.ln_p, cd.ln_p), sm = mirrored(s);
    double sum = 0.0;
    for (unsigned i = 0; i < ab.len; ++i)
        for (unsigned j = 0; j < cd.len; ++j) {
            const double w = ab.w[i] + cd.w[j];
            const unsigned m = ab.m[i], n = cd.m[j];
            sum += ab.c[i] * cd.c[j] *
                   (split_integral(m, n, k, w, ab.ln_p, cd.ln_p, s, ln_gamma) +
                    split_integral(n, m, k, w, cd.ln_p, ab.ln_p, sm, ln_gamma));
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
// The functions of all symmetries in one list (Functions); first[nsym]: the first function of each
// symmetry; offsets[nsym+1]: pair offsets of the map; weights[(L nsym + M) kmax + k]: c_k (zero when
// k is not allowed).
struct SupermatrixParams {
    Functions fn;
    u64 first, offsets, weights, packed;
    u64 set_begin, set_end;
    int nsym, kmax;
};

extern "C" __global__ void supermatrix(const SupermatrixParams prm) {
    const double *w = (const double *)prm.weights, *lg = (const double *)prm.fn.ln_gamma;
    const u64 *first = (const u64 *)prm.first, *offsets = (const u64 *)prm.offsets;
    double *packed = (double *)prm.packed;
    for (u64 i = prm.set_begin + blockIdx.x * (u64)blockDim.x + threadIdx.x; i < prm.set_end;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 y = triangle_root(i), x = i - triangle(y);
        const int L = symmetry_of(y, offsets, prm.nsym), M = symmetry_of(x, offsets, prm.nsym);
        const u64 ty = y - offsets[L], tx = x - offsets[M];
        const u64 P = triangle_root(ty), Q = ty - triangle(P), R = triangle_root(tx), S = tx - triangle(R);
        const Radial p = load_radial(prm.fn, first[L] + P);
        const Radial q = load_radial(prm.fn, first[L] + Q);
        const Radial r = load_radial(prm.fn, first[M] + R);
        const Radial s = load_radial(prm.fn, first[M] + S);
        double value = slater(0, density_of(p, q), density_of(r, s), lg);
        const double *wk = w + ((u64)L * prm.nsym + M) * prm.kmax;
        const Density pr = density_of(p, r), qs = density_of(q, s), ps = density_of(p, s), qr = density_of(q, r);
        for (int k = 0; k < prm.kmax; ++k) {
            if (wk[k] == 0.0) continue;
            value -= wk[k] * (slater(k, pr, qs, lg) + slater(k, ps, qr, lg));
        }
        packed[i] = value;
    }
}

// The mixed pairs of a Dirac-Fock basis (src/scf/groups.rs): pair y = offsets[A] + P large[A] + Q
// is small function P and large function Q of symmetry A, and set i = n'(y) + x (x <= y) holds
// packed[i] = -sum_k c_k(A, B) R^k(pr, qs) (its R^0 and its other exchange term vanish by
// component). Functions, first and weights as for supermatrix (of the symmetries, not the
// sub-blocks); large[A]: the large functions of symmetry A (its first ones); offsets[nsym + 1].
struct MixedParams {
    Functions fn;
    u64 first, large, offsets, weights, packed;
    u64 set_begin, set_end;
    int nsym, kmax;
};

extern "C" __global__ void supermatrix_mixed(const MixedParams prm) {
    const double *w = (const double *)prm.weights, *lg = (const double *)prm.fn.ln_gamma;
    const u64 *first = (const u64 *)prm.first, *large = (const u64 *)prm.large, *offsets = (const u64 *)prm.offsets;
    double *packed = (double *)prm.packed;
    for (u64 i = prm.set_begin + blockIdx.x * (u64)blockDim.x + threadIdx.x; i < prm.set_end;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 y = triangle_root(i), x = i - triangle(y);
        const int A = symmetry_of(y, offsets, prm.nsym), B = symmetry_of(x, offsets, prm.nsym);
        const u64 ty = y - offsets[A], tx = x - offsets[B], na = large[A], nb = large[B];
        const Radial p = load_radial(prm.fn, first[A] + na + ty / na);
        const Radial q = load_radial(prm.fn, first[A] + ty % na);
        const Radial r = load_radial(prm.fn, first[B] + nb + tx / nb);
        const Radial s = load_radial(prm.fn, first[B] + tx % nb);
        const Density pr = density_of(p, r), qs = density_of(q, s);
        const double *wk = w + ((u64)A * prm.nsym + B) * prm.kmax;
        double sum = 0.0;
        for (int k = 0; k < prm.kmax; ++k) {
            if (wk[k] == 0.0) continue;
            sum += wk[k] * slater(k, pr, qs, lg);
        }
        packed[i] = -sum;
    }
}

// The Fock build out = G f for the symmetric n x n matrix G of one component group, stored as its
// packed upper triangle (column y at n'(y), rows x <= y), in two deterministic passes (no atomics:
// the same sums in the same order every run). Tiles of 32 x 32 over the triangle, tile t =
// n'(by) + bx for row block bx <= column block by; block (32, 8): warp w reads columns
// 32 by + w + 8 c (c < 4), one coalesced 256-byte segment each.
// Pass 1: for each tile, column sums cols[t][j] = sum_{x in tile} G_xy f_x (y = 32 by + j) and row
// sums rows[t][i] = sum_{y in tile, y > x} G_xy f_y (x = 32 bx + i).
// Pass 2: out[z] = sum_{bx <= bz} cols[tile(bx, bz)][z % 32] + sum_{by >= bz} rows[tile(bz, by)][z % 32].
#define SYMV_TILE 32
#define SYMV_WARPS 8

extern "C" __global__ void packed_symv_tiles(const double *__restrict__ packed, const double *__restrict__ f,
                                             double *__restrict__ cols, double *__restrict__ rows, u64 n) {
    __shared__ double row_part[SYMV_WARPS][SYMV_TILE];
    __shared__ double col_part[SYMV_TILE];
    const u64 t = blockIdx.x, by = triangle_root(t), bx = t - triangle(by);
    const unsigned lane = threadIdx.x, warp = threadIdx.y;
    const u64 x = bx * SYMV_TILE + lane;
    const double fx = x < n ? f[x] : 0.0;
    double row = 0.0;
    for (unsigned c = warp; c < SYMV_TILE; c += SYMV_WARPS) {
        const u64 y = by * SYMV_TILE + c;
        double g = 0.0;
        if (y < n && x <= y) g = packed[triangle(y) + x];
        const double fy = y < n ? f[y] : 0.0;
        double col = g * fx;
        for (int o = 16; o > 0; o >>= 1) col += __shfl_down_sync(0xffffffffu, col, o);
        if (lane == 0) col_part[c] = col;
        if (x < y) row += g * fy;
    }
    row_part[warp][lane] = row;
    __syncthreads();
    if (warp == 0) {
        double sum = 0.0;
        for (unsigned w = 0; w < SYMV_WARPS; ++w) sum += row_part[w][lane];
        rows[t * SYMV_TILE + lane] = sum;
        cols[t * SYMV_TILE + lane] = col_part[lane];
    }
}

extern "C" __global__ void packed_symv_sum(const double *__restrict__ cols, const double *__restrict__ rows,
                                           double *__restrict__ out, u64 n) {
    const u64 z = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    if (z >= n) return;
    const u64 bz = z / SYMV_TILE, j = z % SYMV_TILE, tiles = (n + SYMV_TILE - 1) / SYMV_TILE;
    double sum = 0.0;
    for (u64 bx = 0; bx <= bz; ++bx) sum += cols[(triangle(bz) + bx) * SYMV_TILE + j];
    for (u64 by = bz; by < tiles; ++by) sum += rows[(triangle(by) + bz) * SYMV_TILE + j];
    out[z] = sum;
}
