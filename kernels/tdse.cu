// TDSE family kernels (paper: tdse-cylindrical-gpu.txt). Compiled by NVRTC alone: no CUDA headers.
// The same functions as src/tdse/cpu.rs. A stage (src/tdse/scheme.rs) is
//   h = P prev + c E [H0 cur - 1/2 D1 (alpha h + beta cur + gamma prev)/(alpha + beta + gamma)]
//                                                                      on rings below rho0,
//   h = P prev + c E [H cur]                                                 elsewhere,
// E = exp(-delta W), P = E^2. Stored wavefunctions hold a ghost plane before and after the owned
// planes (eq. 17 order: the third coordinate, theta or z, fastest).
//
// Both stage kernels march in x (the paper's section 2.2): a thread owns one point (l, m) and walks
// a chunk of planes (blockIdx.y), holding cur at planes k-1, k, k+1 in registers, so that each value
// of cur is loaded from memory once per chunk; its x neighbours come from registers, its m
// neighbours by warp shuffles (a warp holds 32 consecutive m of one ring), its l neighbours from
// the lines the neighbouring warps loaded one plane earlier (mostly L1 hits). The explicit rings
// (stage_march) and the implicit ones (stage_implicit_march: one block per ring, the cyclic
// tridiagonal system of the theta-correction solved by two parallel scans, the same solution as
// the Thomas algorithm with Sherman-Morrison of eqs. 11-16 in src/tdse/tridiagonal.rs) are
// separate kernels, so that the explicit one, which does nearly all the work, carries none of the
// solve's registers or barriers.

typedef unsigned long long u64;
typedef long long i64;

// 16-byte aligned, so that a point is one 128-bit load or store.
struct alignas(16) cplx {
    double re, im;
};
__device__ inline cplx mk(double re, double im) { cplx z; z.re = re; z.im = im; return z; }

// A point of a complex-float slot (src/tdse/scheme.rs Storage): one 64-bit load or store. Every
// kernel is a template over the stored type S (cplx or cplxf): it loads into doubles (`load`),
// computes in double and rounds to nearest once when it stores (`put`), as src/tdse/cpu.rs does.
struct alignas(8) cplxf {
    float re, im;
};
__device__ inline cplx load(cplx z) { return z; }
__device__ inline cplx load(cplxf z) { return mk((double)z.re, (double)z.im); }
__device__ inline void put(cplx *at, cplx z) { *at = z; }
__device__ inline void put(cplxf *at, cplx z) {
    cplxf f;
    f.re = __double2float_rn(z.re);
    f.im = __double2float_rn(z.im);
    *at = f;
}
__device__ inline cplx add(cplx a, cplx b) { return mk(a.re + b.re, a.im + b.im); }
__device__ inline cplx sub(cplx a, cplx b) { return mk(a.re - b.re, a.im - b.im); }
__device__ inline cplx scale(double s, cplx a) { return mk(s * a.re, s * a.im); }
__device__ inline cplx mul(cplx a, cplx b) { return mk(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
__device__ inline cplx divide(cplx a, cplx b) {
    const double inv = 1.0 / (b.re * b.re + b.im * b.im);
    return mk((a.re * b.re + a.im * b.im) * inv, (a.im * b.re - a.re * b.im) * inv);
}

// Mirrors src/tdse/cuda.rs StageParams field by field.
struct StageParams {
    u64 out, prev, cur, surface, potential;
    u64 absorber_x, absorber_2, absorber_3;  // W (hartree) on the global x planes, second, third index
    u64 trig;                                // cylindrical: cos theta_m, sin theta_m (2 n3)
    i64 n2, n3, x_offset, plane_first, plane_count, ring_first, ring_count;
    double dx, inv_dx2, d2, d3, x0, y0, z0;
    double c_re, c_im, delta, alpha, beta, gamma;
    double shift;    // hartree subtracted from U (imaginary time: the energy estimate; else 0)
    double ion[10];  // z, z_core, a1, a2, a3, polarisability, cutoff, core amplitude, core exponent, soft core
    double rx, ry, rz;
    int cylindrical, prev_mode, array_potential, has_ion;
};

enum { PREV_IN_PLACE = 0, PREV_CUR = 1, PREV_OTHER = 2 };

// V_ion at squared distance r2 (src/tdse/potential.rs IonPotential::value).
__device__ double ion_value(const double *p, double r2) {
    r2 += p[9] * p[9];
    const double r_inv = rsqrt(r2), r = r2 * r_inv;
    double charge = p[1];
    if (p[0] != p[1]) charge += (p[0] - p[1]) * exp(-p[2] * r);
    if (p[3] != 0.0) charge += p[3] * r * exp(-p[4] * r);
    double v = -charge * r_inv;
    if (p[5] != 0.0) { const double s = r2 + p[6] * p[6]; v -= p[5] / (2.0 * s * s); }
    if (p[7] != 0.0) v += p[7] * exp(-p[8] * r2);
    return v;
}

struct Line {
    i64 k, l;          // local plane, second-coordinate index
    double up, down, third, rho;
};

__device__ inline Line line_of(const StageParams &p, i64 k, i64 l) {
    Line ln;
    ln.k = k;
    ln.l = l;
    if (p.cylindrical) {
        const double rho = ((double)l + 0.5) * p.d2, h2 = p.d2 * p.d2;
        ln.rho = rho;
        ln.up = (rho + 0.5 * p.d2) / (rho * h2);
        ln.down = (rho - 0.5 * p.d2) / (rho * h2);
        ln.third = 1.0 / (rho * rho * p.d3 * p.d3);
    } else {
        ln.rho = 0.0;
        ln.up = ln.down = 1.0 / (p.d2 * p.d2);
        ln.third = 1.0 / (p.d3 * p.d3);
    }
    return ln;
}

// Squared distance (bohr^2) of local point (k, l, m) from (cx, cy, cz) (src/tdse/grid.rs position).
__device__ inline double distance2(const StageParams &p, const Line &ln, int m, double cx, double cy, double cz) {
    const double x = p.x0 + (double)(p.x_offset + ln.k) * p.dx;
    double y, z;
    if (p.cylindrical) {
        const cplx cs = ((const cplx *)p.trig)[m];  // (cos theta_m, sin theta_m), one load
        y = ln.rho * cs.re;
        z = ln.rho * cs.im;
    } else {
        y = p.y0 + (double)ln.l * p.d2;
        z = p.z0 + (double)m * p.d3;
    }
    const double dx = x - cx, dy = y - cy, dz = z - cz;
    return dx * dx + dy * dy + dz * dz;
}

// U - shift at local point (k, l, m); `urow` is the caller array's ring (k, l) when it is used.
__device__ inline double potential_at(const StageParams &p, const Line &ln, const double *urow, int m) {
    if (p.array_potential) return urow[m] - p.shift;
    double u = ((const double *)p.surface)[p.x_offset + ln.k];
    if (p.has_ion) u += ion_value(p.ion, distance2(p, ln, m, p.rx, p.ry, p.rz));
    return u - p.shift;
}

// The ring (k, l) of a stored slot (ghost plane first) and of the potential array: the one 64-bit
// offset of a line; points inside a plane are then addressed with 32-bit offsets (a plane holds
// fewer than 2^31 points: src/tdse/grid.rs).
template <typename S> __device__ inline const S *ring_of(const StageParams &p, const S *psi, const Line &ln) {
    return psi + ((ln.k + 1) * p.n2 + ln.l) * p.n3;
}
__device__ inline const double *potential_ring(const StageParams &p, const Line &ln) {
    return p.array_potential ? (const double *)p.potential + (ln.k * p.n2 + ln.l) * p.n3 : nullptr;
}

// (H psi) at point m of the ring `row` (from ring_of); without the theta (z) term when with_third
// is 0.
template <typename S>
__device__ inline cplx apply_h(const StageParams &p, const S *row, const double *urow, const Line &ln, int m,
                               int with_third) {
    const int n2 = (int)p.n2, n3 = (int)p.n3, plane = n2 * n3;
    const S *at = row + m;
    const cplx c = load(at[0]);
    cplx lap = scale(p.inv_dx2, sub(add(load(at[plane]), load(at[-plane])), scale(2.0, c)));
    const cplx zero = mk(0.0, 0.0);
    const cplx up = ln.l + 1 < n2 ? load(at[n3]) : zero;
    const cplx down = ln.l > 0 ? load(at[-n3]) : zero;
    lap = add(lap, add(scale(ln.up, sub(up, c)), scale(ln.down, sub(down, c))));
    if (with_third) {
        cplx next, last;
        if (p.cylindrical) {
            next = load(row[m + 1 == n3 ? 0 : m + 1]);
            last = load(row[m == 0 ? n3 - 1 : m - 1]);
        } else {
            next = m + 1 < n3 ? load(at[1]) : zero;
            last = m > 0 ? load(at[-1]) : zero;
        }
        lap = add(lap, scale(ln.third, sub(add(next, last), scale(2.0, c))));
    }
    return add(scale(-0.5, lap), scale(potential_at(p, ln, urow, m), c));
}

__device__ inline cplx csqrt(cplx z) {
    const double m = sqrt(z.re * z.re + z.im * z.im);
    const double t = sqrt(0.5 * (m + fabs(z.re)));
    if (t == 0.0) return mk(0.0, 0.0);
    if (z.re >= 0.0) return mk(t, z.im / (2.0 * t));
    return mk(fabs(z.im) / (2.0 * t), z.im >= 0.0 ? t : -t);
}

__device__ inline cplx shfl_down(cplx z, int d) {
    return mk(__shfl_down_sync(0xffffffffu, z.re, d), __shfl_down_sync(0xffffffffu, z.im, d));
}
__device__ inline cplx shfl_up(cplx z, int d) {
    return mk(__shfl_up_sync(0xffffffffu, z.re, d), __shfl_up_sync(0xffffffffu, z.im, d));
}

// The point m of a marching thread.
struct Point {
    int m, mc;                    // point, point clamped into the ring (lanes past N3)
    bool inside;                  // m < N3: the point exists (the others only feed shuffles)
    int next, last;               // m + 1 and m - 1 in the ring (periodic, or -1 past an end)
    bool next_in_warp, last_in_warp;
    double cos_m, sin_m;          // cylindrical: cos theta_m, sin theta_m; Cartesian: z_m, 0
    double w3;                    // Cartesian: the absorber W of the third coordinate (hartree)
};

__device__ inline Point point_of(const StageParams &p, int m) {
    Point q;
    const int n3 = (int)p.n3, lane = threadIdx.x & 31;
    q.m = m;
    q.inside = m < n3;
    q.mc = q.inside ? m : n3 - 1;
    if (p.cylindrical) {
        q.next = q.mc + 1 == n3 ? 0 : q.mc + 1;
        q.last = q.mc == 0 ? n3 - 1 : q.mc - 1;
        const cplx cs = ((const cplx *)p.trig)[q.mc];
        q.cos_m = cs.re;
        q.sin_m = cs.im;
        q.w3 = 0.0;
    } else {
        q.next = q.mc + 1 < n3 ? q.mc + 1 : -1;
        q.last = q.mc > 0 ? q.mc - 1 : -1;
        q.cos_m = p.z0 + (double)q.mc * p.d3;
        q.sin_m = 0.0;
        q.w3 = ((const double *)p.absorber_3)[q.mc];
    }
    q.next_in_warp = lane < 31 && m + 1 < n3;
    q.last_in_warp = lane > 0;
    return q;
}

// What a marching thread keeps for its ring l over the planes of its chunk.
struct Ring {
    int l;
    double up, down, third;       // the Laplacian's coefficients (line_of)
    double yz2;                   // (y - ry)^2 + (z - rz)^2 at the thread's point (bohr^2)
    double w2;                    // W (hartree) of the second coordinate, plus the third's
};

__device__ inline Ring ring_at(const StageParams &p, const Point &q, int l) {
    Ring g;
    const Line ln = line_of(p, 0, l);
    g.l = l;
    g.up = ln.up;
    g.down = ln.down;
    g.third = ln.third;
    double y, z;
    if (p.cylindrical) {
        y = ln.rho * q.cos_m;
        z = ln.rho * q.sin_m;
    } else {
        y = p.y0 + (double)l * p.d2;
        z = q.cos_m;
    }
    g.yz2 = (y - p.ry) * (y - p.ry) + (z - p.rz) * (z - p.rz);
    g.w2 = ((const double *)p.absorber_2)[l] + q.w3;
    return g;
}

// U - shift (hartree) at (k, l, m) as potential_at; `x_rel` = x_k - rx (bohr).
__device__ inline double march_potential(const StageParams &p, const Point &q, const Ring &g, i64 k, double x_rel) {
    if (p.array_potential) return ((const double *)p.potential)[(k * p.n2 + g.l) * p.n3 + q.mc] - p.shift;
    double u = ((const double *)p.surface)[p.x_offset + k];
    if (p.has_ion) u += ion_value(p.ion, x_rel * x_rel + g.yz2);
    return u - p.shift;
}

// The absorber factor E = exp(-delta W) at (k, l, m) (1 outside the layers).
__device__ inline double march_absorber(const StageParams &p, const Ring &g, i64 k) {
    const double w = ((const double *)p.absorber_x)[p.x_offset + k] + g.w2;
    return w > 0.0 ? exp(-p.delta * w) : 1.0;
}

// The planes of this block's chunk: [first, end).
__device__ inline bool chunk_of(const StageParams &p, i64 &first, i64 &end) {
    const i64 chunk = (p.plane_count + gridDim.y - 1) / gridDim.y;
    first = p.plane_first + (i64)blockIdx.y * chunk;
    end = min(first + chunk, p.plane_first + p.plane_count);
    return first < end;
}

// The third-coordinate neighbours' sum psi_{m+1} + psi_{m-1} on ring `row` (cur, plane k):
// from the neighbouring lanes, or from memory at the warp's ends. Every lane takes part.
template <typename S> __device__ inline cplx third_neighbours(const Point &q, const S *row, cplx here) {
    const cplx zero = mk(0.0, 0.0);
    const cplx from_next = shfl_down(here, 1), from_last = shfl_up(here, 1);
    const cplx mn = q.next_in_warp ? from_next : q.next >= 0 ? load(row[q.next]) : zero;
    const cplx ml = q.last_in_warp ? from_last : q.last >= 0 ? load(row[q.last]) : zero;
    return add(mn, ml);
}

// (H psi) at (k, l, m) from cur at (k -+ 1), the ring's neighbours up and down, and the third
// neighbours' sum (with_third; else the theta term is left out), and U.
__device__ inline cplx march_h(const StageParams &p, const Ring &g, cplx last, cplx here, cplx next, cplx up,
                               cplx down, cplx third_sum, double u, bool with_third) {
    cplx lap = scale(p.inv_dx2, sub(add(next, last), scale(2.0, here)));
    lap = add(lap, add(scale(g.up, sub(up, here)), scale(g.down, sub(down, here))));
    if (with_third) lap = add(lap, scale(g.third, sub(third_sum, scale(2.0, here))));
    return add(scale(-0.5, lap), scale(u, here));
}

// The explicit rings ring_first .. ring_first + ring_count of planes plane_first ..
// plane_first + plane_count, marching in x: a block of (32 j, B) threads covers B rings of 32 j
// points (blockIdx.x the tile, m tiles fastest), blockIdx.y the chunk of planes. The kernel is
// bound by the latency of its loads, not by bandwidth (complex float, half the bytes, gains 13-20%):
// the two values a plane needs from memory are loaded one iteration early, and at 80 registers
// (3 blocks of 256 threads per multiprocessor) it ran fastest of the shapes measured
// (bench/RESULTS.md, issue 31).
template <typename S> __device__ __forceinline__ void march(const StageParams &p) {
    const int n2 = (int)p.n2, n3 = (int)p.n3, m_tiles = (n3 + blockDim.x - 1) / blockDim.x;
    const int l = (int)p.ring_first + (int)(blockIdx.x / m_tiles) * blockDim.y + threadIdx.y;
    if (l >= p.ring_first + p.ring_count) return;  // whole warps: the warp shares its ring
    i64 k, end;
    if (!chunk_of(p, k, end)) return;
    const Point q = point_of(p, (int)(blockIdx.x % m_tiles) * blockDim.x + threadIdx.x);
    const Ring g = ring_at(p, q, l);
    const i64 plane = p.n2 * p.n3;
    const i64 base = (i64)l * p.n3 + q.mc;
    const S *cur = (const S *)p.cur + base, *other = (const S *)p.prev + base;
    S *out = (S *)p.out + base;
    const cplx cc = mk(p.c_re, p.c_im), zero = mk(0.0, 0.0);
    cplx last = load(cur[k * plane]), here = load(cur[(k + 1) * plane]);
    // The two values each plane needs from memory (cur one plane ahead, and prev), loaded one
    // iteration early: a thread keeps two loads in flight while it computes.
    const S *prev_source = p.prev_mode == PREV_IN_PLACE ? out : other;
    S ahead = cur[(k + 2) * plane], prev_ahead = ahead;
    if (p.prev_mode != PREV_CUR) prev_ahead = prev_source[(k + 1) * plane];
    double x_rel = p.x0 + (double)(p.x_offset + k) * p.dx - p.rx;
    for (; k < end; ++k, x_rel += p.dx) {
        const i64 at = (k + 1) * plane;
        const S *row = cur + at;
        const cplx next = load(ahead);
        const cplx prev = p.prev_mode == PREV_CUR ? here : load(prev_ahead);
        if (k + 1 < end) {
            ahead = row[2 * plane];
            if (p.prev_mode != PREV_CUR) prev_ahead = prev_source[at + plane];
        }
        const cplx down = l > 0 ? load(row[-n3]) : zero, up = l + 1 < n2 ? load(row[n3]) : zero;
        const cplx third = third_neighbours(q, row - q.mc, here);
        const cplx hpsi = march_h(p, g, last, here, next, up, down, third, march_potential(p, q, g, k, x_rel), true);
        const double e = march_absorber(p, g, k);
        if (q.inside) put(&out[at], add(scale(e * e, prev), scale(e, mul(cc, hpsi))));
        last = here;
        here = next;
    }
}

extern "C" __global__ void __launch_bounds__(256, 3) stage_march(StageParams p) { march<cplx>(p); }
extern "C" __global__ void __launch_bounds__(256, 3) stage_march_f(StageParams p) { march<cplxf>(p); }

// r^e for 0 <= e < 2048 from the powers r^(2^i), i = 0 .. 10 (rings of up to 1024 points).
__device__ inline cplx power(const cplx *of_two, int e) {
    cplx z = mk(1.0, 0.0);
    for (int i = 0; i < 11; ++i)
        if (e & (1 << i)) z = mul(z, of_two[i]);
    return z;
}

// The cyclic first-order recurrence y_t = r y_{t-1} + e_t (t mod n, |r| < 1) over the block,
// thread t holding e_t (zero past n): y_t = S_t + r^{t+1} y_{n-1}, S_t = sum_{j<=t} r^{t-j} e_j
// the inclusive scan (Kogge-Stone in each warp, the warps' carries in one serial pass of at most
// 32 terms), y_{n-1} = S_{n-1}/(1 - r^n). `of_two` holds r^(2^i) (i = 0 .. 10), r^n (index 11) in
// shared memory; `lane_power` = r^(lane+1) and `own_power` = r^(t+1) are the thread's; `scratch`
// holds 33 values of shared memory.
__device__ cplx cyclic_recurrence(cplx e, const cplx *of_two, cplx lane_power, cplx own_power, int n, cplx *scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    cplx s = e;
#pragma unroll
    for (int i = 0; i < 5; ++i) {
        const cplx t = shfl_up(s, 1 << i);
        if (lane >= (1 << i)) s = add(s, mul(of_two[i], t));
    }
    if (warps > 1) {
        if (lane == 31) scratch[warp] = s;
        __syncthreads();
        if (threadIdx.x == 0) {
            // scratch[v] becomes the scan at the last point before warp v (zero for v = 0).
            cplx carry = mk(0.0, 0.0);
            for (int v = 0; v < warps; ++v) {
                const cplx total = scratch[v];
                scratch[v] = carry;
                carry = add(mul(of_two[5], carry), total);
            }
        }
        __syncthreads();
        if (warp > 0) s = add(s, mul(lane_power, scratch[warp]));
    }
    if ((int)threadIdx.x == n - 1) scratch[32] = divide(s, sub(mk(1.0, 0.0), of_two[11]));
    __syncthreads();
    const cplx y = add(s, mul(own_power, scratch[32]));
    __syncthreads();  // scratch is free again
    return y;
}

// The implicit rings ring_first .. ring_first + ring_count (cylindrical, below rho0): one block
// of N3 threads (rounded up to a warp) per ring (blockIdx.x) and chunk of planes (blockIdx.y),
// marching along x as stage_march. Per plane: the explicit terms, the theta-correction, and the
// cyclic system a h_{m-1} + b h_m + a h_{m+1} = d_m (|b| > 2|a|, constant on the ring) solved by
// the factorisation
//   a S^-1 (S - r)(S - 1/r),   (S y)_m = y_{m+1},   r^2 + (b/a) r + 1 = 0,   |r| < 1,
// as two cyclic recurrences u_m = r u_{m-1} + d_m/a and (m backwards) h_m = r h_{m+1} - r u_m,
// each a parallel scan (cyclic_recurrence). Shared memory: 2 N3 + 46 complex values.
template <typename S> __device__ __forceinline__ void implicit_march(const StageParams &p) {
    extern __shared__ cplx shared[];
    const int n3 = (int)p.n3;
    // ring: 2 N3 values; scratch: 33; solve: r^(2^i) for i = 0 .. 10, r^N3, 1/a.
    cplx *ring = shared, *scratch = shared + 2 * n3, *solve = scratch + 33;
    i64 k, end;
    if (!chunk_of(p, k, end)) return;
    const Point q = point_of(p, threadIdx.x);
    const Ring g = ring_at(p, q, (int)p.ring_first + blockIdx.x);
    const i64 plane = p.n2 * p.n3;
    const i64 base = (i64)g.l * p.n3 + q.mc;
    const S *cur = (const S *)p.cur + base, *other = (const S *)p.prev + base;
    S *out = (S *)p.out + base;
    const cplx zero = mk(0.0, 0.0);
    const cplx cc = mk(p.c_re, p.c_im);
    const double weight = p.alpha + p.beta + p.gamma, alpha = p.alpha / weight;
    const bool corrected = p.beta != 0.0 || p.gamma != 0.0;
    double e_solve = -1.0;  // the E of `solve` and of the powers below
    cplx lane_power = mk(0.0, 0.0), own_power = mk(0.0, 0.0);
    cplx last = load(cur[k * plane]), here = load(cur[(k + 1) * plane]);
    double x_rel = p.x0 + (double)(p.x_offset + k) * p.dx - p.rx;
    for (; k < end; ++k, x_rel += p.dx) {
        const i64 at = (k + 1) * plane;
        const cplx next = load(cur[at + plane]);
        const cplx up = g.l + 1 < p.n2 ? load(cur[at + p.n3]) : zero, down = g.l > 0 ? load(cur[at - p.n3]) : zero;
        const cplx hpsi = march_h(p, g, last, here, next, up, down, zero, march_potential(p, q, g, k, x_rel), false);
        const cplx prev =
            p.prev_mode == PREV_CUR ? here : load(p.prev_mode == PREV_IN_PLACE ? out[at] : other[at]);
        const double e = march_absorber(p, g, k);  // the same on the whole ring
        cplx rhs = add(scale(e * e, prev), scale(e, mul(cc, hpsi)));
        // The implicit theta-correction: rhs += sigma D (beta cur + gamma prev)/weight,
        // sigma = -c E third / 2.
        const cplx sigma = scale(-e * g.third / 2.0, cc);
        if (corrected) {
            const cplx mix = add(scale(p.beta, here), scale(p.gamma, prev));
            if (q.inside) ring[q.m] = mix;
            __syncthreads();
            const cplx d2g = sub(add(ring[q.next], ring[q.last]), scale(2.0, mix));
            rhs = add(rhs, mul(scale(1.0 / weight, sigma), d2g));
            __syncthreads();
        }
        if (e != e_solve) {  // the same E on the whole ring: a uniform branch
            if (threadIdx.x == 0) {
                // The root R of modulus > 1 without cancellation (the sign of the square
                // root along -b/a), then r = 1/R (the roots' product is 1).
                const cplx b = add(mk(1.0, 0.0), scale(2.0 * alpha, sigma)), a = scale(-alpha, sigma);
                const cplx ba = divide(b, a);
                cplx root = csqrt(sub(mul(ba, ba), mk(4.0, 0.0)));
                if (root.re * ba.re + root.im * ba.im > 0.0) root = scale(-1.0, root);
                solve[0] = divide(mk(2.0, 0.0), sub(root, ba));
                for (int i = 1; i < 11; ++i) solve[i] = mul(solve[i - 1], solve[i - 1]);
                solve[11] = power(solve, n3);
                solve[12] = divide(mk(1.0, 0.0), a);
            }
            __syncthreads();
            lane_power = power(solve, (threadIdx.x & 31) + 1);
            own_power = power(solve, threadIdx.x + 1);
            e_solve = e;
        }
        const cplx r = solve[0], inv_a = solve[12];
        // Forward: u_m = r u_{m-1} + d_m/a; u kept in `ring` for the backward pass, which runs
        // over v_j = h_{n-1-j}: v_j = r v_{j-1} - r u_{n-1-j}.
        const cplx u = cyclic_recurrence(q.inside ? mul(inv_a, rhs) : mk(0.0, 0.0), solve, lane_power, own_power, n3, scratch);
        if (q.inside) ring[q.m] = u;
        __syncthreads();
        const cplx back = q.inside ? scale(-1.0, mul(r, ring[n3 - 1 - q.m])) : mk(0.0, 0.0);
        const cplx v = cyclic_recurrence(back, solve, lane_power, own_power, n3, scratch);
        // Thread j holds h_{n-1-j}: through shared memory to the thread of that point.
        if (q.inside) ring[n3 + n3 - 1 - q.m] = v;
        __syncthreads();
        if (q.inside) put(&out[at], ring[n3 + q.m]);
        last = here;
        here = next;
    }
}

// The implicit rings' kernel for rings of up to 256 and of up to 1024 points.
extern "C" __global__ void __launch_bounds__(256, 4) stage_implicit_march(StageParams p) { implicit_march<cplx>(p); }
extern "C" __global__ void __launch_bounds__(1024) stage_implicit_march_wide(StageParams p) {
    implicit_march<cplx>(p);
}
extern "C" __global__ void __launch_bounds__(256, 4) stage_implicit_march_f(StageParams p) { implicit_march<cplxf>(p); }
extern "C" __global__ void __launch_bounds__(1024) stage_implicit_march_wide_f(StageParams p) {
    implicit_march<cplxf>(p);
}

// Mirrors src/tdse/cuda.rs SumParams.
struct SumParams {
    StageParams stage;   // grid, potential and slot (stage.cur) of the sums
    u64 reference, partials;
    double centre[3], radius2;
    int what, pad;        // 0 norm, 1 energy, 2 overlap, 3 sphere
};

__device__ inline double cell_weight(const StageParams &p, i64 l) {
    if (p.cylindrical) return ((double)l + 0.5) * p.d2 * p.d2 * p.d3 * p.dx;
    return p.dx * p.d2 * p.d3;
}

// Per-block sums over the owned points of p.stage.cur: partials[2 block + 0..1] (src/tdse/engine.rs
// Sum). Fixed block count and order: the host adds the partials in block order, so results do not
// depend on scheduling.
template <typename S> __device__ __forceinline__ void sums_of(const SumParams &s) {
    const StageParams &p = s.stage;
    const S *psi = (const S *)p.cur;
    const cplx *phi = (const cplx *)s.reference;
    const i64 n2 = p.n2, n3 = p.n3, plane = n2 * n3;
    const i64 n_lines = p.plane_count * n2;
    double a0 = 0.0, a1 = 0.0;
    for (i64 i = blockIdx.x; i < n_lines; i += gridDim.x) {
        const i64 k = i / n2, l = i % n2;
        const Line ln = line_of(p, k, l);
        const double w = cell_weight(p, l);
        const i64 base = (k + 1) * plane + l * n3;
        const S *row = ring_of(p, psi, ln);
        const double *urow = potential_ring(p, ln);
        for (int m = threadIdx.x; m < (int)n3; m += blockDim.x) {
            const cplx z = load(psi[base + m]);
            const double z2 = z.re * z.re + z.im * z.im;
            if (s.what == 0) {
                a0 += w * z2;
            } else if (s.what == 1) {
                const cplx hz = apply_h(p, row, urow, ln, m, 1);
                a0 += w * (z.re * hz.re + z.im * hz.im);
                a1 += w * z2;
            } else if (s.what == 2) {
                const cplx f = phi[k * plane + l * n3 + m];
                a0 += w * (f.re * z.re + f.im * z.im);
                a1 += w * (f.re * z.im - f.im * z.re);
            } else {
                if (distance2(p, ln, m, s.centre[0], s.centre[1], s.centre[2]) < s.radius2) a0 += w * z2;
            }
        }
    }
    // Block reduction in a fixed order.
    __shared__ double r0[1024], r1[1024];
    r0[threadIdx.x] = a0;
    r1[threadIdx.x] = a1;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            r0[threadIdx.x] += r0[threadIdx.x + half];
            r1[threadIdx.x] += r1[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double *out = (double *)s.partials;
        out[2 * blockIdx.x] = r0[0];
        out[2 * blockIdx.x + 1] = r1[0];
    }
}
extern "C" __global__ void sums(SumParams s) { sums_of<cplx>(s); }
extern "C" __global__ void sums_f(SumParams s) { sums_of<cplxf>(s); }

// Multiplies the owned points (n values from offset) by factor.
template <typename S> __device__ __forceinline__ void scale_points(u64 psi_ptr, i64 offset, i64 n, double factor) {
    S *psi = (S *)psi_ptr + offset;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        put(&psi[i], scale(factor, load(psi[i])));
}
extern "C" __global__ void scale_owned(u64 psi, i64 offset, i64 n, double factor) {
    scale_points<cplx>(psi, offset, n, factor);
}
extern "C" __global__ void scale_owned_f(u64 psi, i64 offset, i64 n, double factor) {
    scale_points<cplxf>(psi, offset, n, factor);
}

// Complex floats to complex doubles (widen) and back, rounded to nearest (narrow): n points, for
// the transfers of complex-float slots (src/tdse/cuda.rs), which go through a double buffer.
extern "C" __global__ void widen(u64 src_ptr, u64 dst_ptr, i64 n) {
    const cplxf *src = (const cplxf *)src_ptr;
    cplx *dst = (cplx *)dst_ptr;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) dst[i] = load(src[i]);
}
extern "C" __global__ void narrow(u64 src_ptr, u64 dst_ptr, i64 n) {
    const cplx *src = (const cplx *)src_ptr;
    cplxf *dst = (cplxf *)dst_ptr;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) put(&dst[i], src[i]);
}

// The owned point (eq. 17 index) of value i of a slice (src/tdse/observables.rs slice_source):
// axis 0 x plane, 1 second, 2 third.
__device__ inline i64 slice_source(i64 i, i64 n2, i64 n3, i64 x_offset, int axis, int cylindrical, i64 index) {
    const i64 plane = n2 * n3;
    if (axis == 0) return (index - x_offset) * plane + i;
    if (axis == 1 && cylindrical) {
        const i64 k = i / (2 * n2), j = i % (2 * n2);
        return j < n2 ? k * plane + (n2 - 1 - j) * n3 + (index + n3 / 2) % n3 : k * plane + (j - n2) * n3 + index;
    }
    if (axis == 1 || (axis == 2 && cylindrical)) return (i / n3) * plane + index * n3 + i % n3;
    return (i / n2) * plane + (i % n2) * n3 + index;
}

// |psi|^2 on a slice.
template <typename S>
__device__ __forceinline__ void density_of(u64 psi_ptr, u64 out_ptr, i64 n_out, i64 n2, i64 n3, i64 x_offset,
                                           int axis, int cylindrical, i64 index) {
    const S *psi = (const S *)psi_ptr + n2 * n3;  // skip the ghost plane
    double *out = (double *)out_ptr;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n_out; i += (i64)gridDim.x * blockDim.x) {
        const cplx z = load(psi[slice_source(i, n2, n3, x_offset, axis, cylindrical, index)]);
        out[i] = z.re * z.re + z.im * z.im;
    }
}
extern "C" __global__ void density_slice(u64 psi, u64 out, i64 n_out, i64 n2, i64 n3, i64 x_offset, int axis,
                                         int cylindrical, i64 index) {
    density_of<cplx>(psi, out, n_out, n2, n3, x_offset, axis, cylindrical, index);
}
extern "C" __global__ void density_slice_f(u64 psi, u64 out, i64 n_out, i64 n2, i64 n3, i64 x_offset, int axis,
                                           int cylindrical, i64 index) {
    density_of<cplxf>(psi, out, n_out, n2, n3, x_offset, axis, cylindrical, index);
}

// U - shift (hartree) on a slice, by the stages' own potential_at.
extern "C" __global__ void potential_slice(StageParams p, u64 out_ptr, i64 n_out, int axis, i64 index) {
    double *out = (double *)out_ptr;
    const i64 plane = p.n2 * p.n3;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n_out; i += (i64)gridDim.x * blockDim.x) {
        const i64 src = slice_source(i, p.n2, p.n3, p.x_offset, axis, p.cylindrical, index);
        const Line ln = line_of(p, src / plane, (src % plane) / p.n3);
        out[i] = potential_at(p, ln, potential_ring(p, ln), (int)(src % p.n3));
    }
}
