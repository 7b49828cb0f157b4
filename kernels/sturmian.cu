// Sturmian family kernels (paper: sturmian-hamiltonian-gpu.txt). Compiled by NVRTC alone: no
// CUDA headers. Every kernel exists for real (suffix _d, double) and complex (suffix _z, an
// interleaved pair of doubles, as cuDoubleComplex) bases; all products are bilinear (no
// conjugation). Indices are 64-bit; every launch uses a grid-stride loop.
//
// Layouts (src/sturmian/cuda.rs): channel values point-major, S[p * n + i] (function i at grid
// point p); operand matrices column-major M x K (ld M) for cuBLAS; outputs column-major with ld.

typedef unsigned long long u64;
typedef long long i64;

struct zd {
    double re, im;
};
__device__ inline zd operator+(zd a, zd b) { return {a.re + b.re, a.im + b.im}; }
__device__ inline zd operator*(zd a, zd b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
__device__ inline zd operator*(zd a, double s) { return {a.re * s, a.im * s}; }
template <typename T> __device__ inline T zero();
template <> __device__ inline double zero<double>() { return 0.0; }
template <> __device__ inline zd zero<zd>() { return {0.0, 0.0}; }

// Inner integrals over one interval (eq. 23, stable form of Grid::inner_weights):
// h[pair + m j] = sum_s c[j (ns+2) + s] S'_{ip}(p_{j,s}) S_i(p_{j,s}), pair = ip + n_bra i.
struct InnerParams {
    u64 bra, ket, weights, out; // T*, T*, double*, T*
    i64 n_bra, n_ket, nq, ns;
};

template <typename T> __device__ void inner(const InnerParams p) {
    const T *bra = (const T *)p.bra, *ket = (const T *)p.ket;
    const double *c = (const double *)p.weights;
    T *out = (T *)p.out;
    const i64 m = p.n_bra * p.n_ket, total = m * p.nq, per = p.ns + 2;
    for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
        const i64 pair = idx % m, j = idx / m;
        const i64 ip = pair % p.n_bra, i = pair / p.n_bra;
        const i64 first = j * (p.ns + 1);
        T h = zero<T>();
        for (i64 s = 0; s < per; ++s) {
            const i64 q = first + s;
            h = h + bra[q * p.n_bra + ip] * ket[q * p.n_ket + i] * c[j * per + s];
        }
        out[idx] = h;
    }
}

// Cumulative sums from Rmax (eq. 24): g_j = h_j + ratio_j g_(j+1); operand[pair + m (col0 + j)] += coef g_j.
struct SuffixParams {
    u64 h, ratio, operand; // T*, double*, T*
    i64 m, nq, col0;
    double coefficient;
};

template <typename T> __device__ void suffix(const SuffixParams p) {
    const T *h = (const T *)p.h;
    const double *ratio = (const double *)p.ratio;
    T *a = (T *)p.operand;
    for (i64 pair = blockIdx.x * (i64)blockDim.x + threadIdx.x; pair < p.m; pair += (i64)gridDim.x * blockDim.x) {
        T g = zero<T>();
        for (i64 j = p.nq - 1; j >= 0; --j) {
            g = h[pair + p.m * j] + g * ratio[j];
            T *slot = a + pair + p.m * (p.col0 + j);
            *slot = *slot + g * p.coefficient;
        }
    }
}

// Outer Gauss weights (eq. 19 / 22): operand[pair + m (col0 + j)] = w_j S'_{ip}(r_j) S_i(r_j).
struct OuterParams {
    u64 bra, ket, weights, operand; // T*, T*, double*, T*
    i64 n_bra, n_ket, nq, ns, col0;
};

template <typename T> __device__ void outer(const OuterParams p) {
    const T *bra = (const T *)p.bra, *ket = (const T *)p.ket;
    const double *w = (const double *)p.weights;
    T *a = (T *)p.operand;
    const i64 m = p.n_bra * p.n_ket, total = m * p.nq;
    for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
        const i64 pair = idx % m, j = idx / m;
        const i64 ip = pair % p.n_bra, i = pair / p.n_bra;
        const i64 q = j * (p.ns + 1);
        a[pair + m * (p.col0 + j)] = bra[q * p.n_bra + ip] * ket[q * p.n_ket + i] * w[j];
    }
}

// Index of (ia, ib) in a two-electron index of sizes (na, nb): order 0 = a fastest, 1 = b fastest.
__device__ inline i64 pair_index(int order, i64 ia, i64 ib, i64 na, i64 nb) {
    return order == 0 ? ia + na * ib : ib + nb * ia;
}

// Permutes a tile of C[(n'a,na),(n'b,nb)] into block columns [col0, col0 + ncols) of the output
// (rows (n'a,n'b), columns (na,nb) in `order`). The tile spans slow ket indices [t0, ...):
// order 0: C columns (n'b, nb - t0), all rows; order 1: C rows (n'a, na - t0), all columns.
struct ScatterParams {
    u64 c, out; // T*, T*
    i64 npa, na, npb, nb, t0, c_rows, col0, ncols, ld;
    int order;
};

template <typename T> __device__ void scatter(const ScatterParams p) {
    const T *c = (const T *)p.c;
    T *out = (T *)p.out;
    const i64 rows = p.npa * p.npb, total = rows * p.ncols;
    for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
        const i64 row = idx % rows, k = idx / rows, col = p.col0 + k;
        i64 iap, ibp, ia, ib;
        if (p.order == 0) {
            iap = row % p.npa; ibp = row / p.npa; ia = col % p.na; ib = col / p.na;
        } else {
            ibp = row % p.npb; iap = row / p.npb; ib = col % p.nb; ia = col / p.nb;
        }
        const i64 cr = p.order == 0 ? iap + p.npa * ia : iap + p.npa * (ia - p.t0);
        const i64 cc = p.order == 0 ? ibp + p.npb * (ib - p.t0) : ibp + p.npb * ib;
        out[row + p.ld * k] = c[cr + p.c_rows * cc];
    }
}

// Kronecker sums (eq. 20): out[(n'a,n'b),(na,nb)] (= or +=) sum_t A_t[n'a,na] B_t[n'b,nb],
// t < n_terms (<= 2); with no terms, zeros. Block columns [col0, col0 + cols) are written, column
// col0 + k at out + ld k.
struct KroneckerParams {
    u64 a0, b0, a1, b1, out; // T*
    i64 na, nb, rows, col0, cols, ld;
    int n_terms, order, accumulate;
};

template <typename T> __device__ void kronecker(const KroneckerParams p) {
    T *out = (T *)p.out;
    const i64 total = p.rows * p.cols;
    const T *a[2] = {(const T *)p.a0, (const T *)p.a1};
    const T *b[2] = {(const T *)p.b0, (const T *)p.b1};
    for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
        const i64 row = idx % p.rows, k = idx / p.rows, col = p.col0 + k;
        T v = zero<T>();
        if (p.n_terms > 0) {
            i64 iap, ibp, ia, ib;
            if (p.order == 0) {
                iap = row % p.na; ibp = row / p.na; ia = col % p.na; ib = col / p.na;
            } else {
                ibp = row % p.nb; iap = row / p.nb; ib = col % p.nb; ia = col / p.nb;
            }
            for (int t = 0; t < p.n_terms; ++t) v = v + a[t][iap + p.na * ia] * b[t][ibp + p.nb * ib];
        }
        T *slot = out + row + p.ld * k;
        *slot = p.accumulate ? *slot + v : v;
    }
}

// Exchange-symmetrised block (src/sturmian/exchange.rs): out[r + ld_out c] = row_factor[r]
// (col_factor[c] d1[i_r + ld j_c] + col_partner_factor[c] d2[i_r + ld jp_c]), d2 == 0: zero.
struct GatherParams {
    u64 d1, d2, out;                                           // T*
    u64 row_index, row_factor, col_index, col_partner;         // i64*, double*, i64*, i64*
    u64 col_factor, col_partner_factor;                        // double*
    i64 rows, cols, ld_direct, ld_out;
};

template <typename T> __device__ void gather(const GatherParams p) {
    const T *d1 = (const T *)p.d1, *d2 = (const T *)p.d2;
    T *out = (T *)p.out;
    const i64 *ri = (const i64 *)p.row_index, *ci = (const i64 *)p.col_index, *cp = (const i64 *)p.col_partner;
    const double *rf = (const double *)p.row_factor, *cf = (const double *)p.col_factor;
    const double *cpf = (const double *)p.col_partner_factor;
    const i64 total = p.rows * p.cols;
    for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {
        const i64 r = idx % p.rows, c = idx / p.rows, i = ri[r];
        T v = d1[i + p.ld_direct * ci[c]] * cf[c];
        if (d2) v = v + d2[i + p.ld_direct * cp[c]] * cpf[c];
        out[r + p.ld_out * c] = v * rf[r];
    }
}

extern "C" __global__ void inner_d(const InnerParams p) { inner<double>(p); }
extern "C" __global__ void inner_z(const InnerParams p) { inner<zd>(p); }
extern "C" __global__ void suffix_d(const SuffixParams p) { suffix<double>(p); }
extern "C" __global__ void suffix_z(const SuffixParams p) { suffix<zd>(p); }
extern "C" __global__ void outer_d(const OuterParams p) { outer<double>(p); }
extern "C" __global__ void outer_z(const OuterParams p) { outer<zd>(p); }
extern "C" __global__ void scatter_d(const ScatterParams p) { scatter<double>(p); }
extern "C" __global__ void scatter_z(const ScatterParams p) { scatter<zd>(p); }
extern "C" __global__ void kronecker_d(const KroneckerParams p) { kronecker<double>(p); }
extern "C" __global__ void kronecker_z(const KroneckerParams p) { kronecker<zd>(p); }
extern "C" __global__ void gather_d(const GatherParams p) { gather<double>(p); }
extern "C" __global__ void gather_z(const GatherParams p) { gather<zd>(p); }
