// TDSE family kernels (paper: tdse-cylindrical-gpu.txt). Compiled by NVRTC alone: no CUDA headers.
// The same functions as src/tdse/cpu.rs: one thread block per ring (x_k, rho_l) of N_theta points
// (or per z line of a Cartesian grid), threads along theta (eq. 17: theta fastest, so a warp reads
// consecutive addresses). A stage (src/tdse/scheme.rs) is
//   h = P prev + c E [H0 cur - 1/2 D1 (alpha h + beta cur + gamma prev)/(alpha + beta + gamma)]
//                                                                      on rings below rho0,
//   h = P prev + c E [H cur]                                                 elsewhere,
// E = exp(-delta W), P = E^2; the implicit rings solve their cyclic tridiagonal system in shared
// memory (solve_ring: the same solution as the Thomas algorithm with Sherman-Morrison of eqs. 11-16
// in src/tdse/tridiagonal.rs, by a factorisation that needs no division in its serial passes).
// Stored wavefunctions hold a ghost plane before and after the owned planes. The explicit rings
// (stage_explicit) and the implicit ones (stage_implicit) are separate kernels, so that the
// explicit one, which does nearly all the work, carries none of the solve's registers.

typedef unsigned long long u64;
typedef long long i64;

// 16-byte aligned, so that a point is one 128-bit load or store.
struct alignas(16) cplx {
    double re, im;
};
__device__ inline cplx mk(double re, double im) { cplx z; z.re = re; z.im = im; return z; }
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
    i64 n2, n3, nx_global, x_offset, plane_first, plane_count, ring_first, ring_count;
    double dx, inv_dx2, d2, d3, x0, y0, z0;
    double c_re, c_im, delta, alpha, beta, gamma;
    double shift;    // hartree subtracted from U (imaginary time: the energy estimate; else 0)
    double ion[10];  // z, z_core, a1, a2, a3, polarisability, cutoff, core amplitude, core exponent, soft core
    double rx, ry, rz;
    int cylindrical, implicit_rings, prev_mode, array_potential, has_ion, pad;
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
__device__ inline const cplx *ring_of(const StageParams &p, const cplx *psi, const Line &ln) {
    return psi + ((ln.k + 1) * p.n2 + ln.l) * p.n3;
}
__device__ inline const double *potential_ring(const StageParams &p, const Line &ln) {
    return p.array_potential ? (const double *)p.potential + (ln.k * p.n2 + ln.l) * p.n3 : nullptr;
}

// (H psi) at point m of the ring `row` (from ring_of); without the theta (z) term when with_third
// is 0.
__device__ inline cplx apply_h(const StageParams &p, const cplx *row, const double *urow, const Line &ln, int m,
                               int with_third) {
    const int n2 = (int)p.n2, n3 = (int)p.n3, plane = n2 * n3;
    const cplx *at = row + m;
    const cplx c = at[0];
    cplx lap = scale(p.inv_dx2, sub(add(at[plane], at[-plane]), scale(2.0, c)));
    const cplx zero = mk(0.0, 0.0);
    const cplx up = ln.l + 1 < n2 ? at[n3] : zero;
    const cplx down = ln.l > 0 ? at[-n3] : zero;
    lap = add(lap, add(scale(ln.up, sub(up, c)), scale(ln.down, sub(down, c))));
    if (with_third) {
        cplx next, last;
        if (p.cylindrical) {
            next = row[m + 1 == n3 ? 0 : m + 1];
            last = row[m == 0 ? n3 - 1 : m - 1];
        } else {
            next = m + 1 < n3 ? at[1] : zero;
            last = m > 0 ? at[-1] : zero;
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

// Solves the cyclic system a h_{k-1} + b h_k + a h_{k+1} = d_k (k mod n, |b| > 2|a|) in place in
// h, with the whole block. The CPU reference uses the Thomas algorithm with Sherman-Morrison
// (src/tdse/tridiagonal.rs, eqs. 11-16), whose serial chain of complex divisions is slow on one GPU
// thread; here the constant coefficients allow the factorisation
//   a S^-1 (S - r)(S - 1/r),   (S y)_k = y_{k+1},   r^2 + (b/a) r + 1 = 0,   |r| < 1,
// into two first-order cyclic recurrences, each one serial pass of complex multiply-adds (no
// division) plus a parallel closure:
//   u_{k+1} = r u_k + d_{k+1}/a (forward),   h_k = r h_{k+1} - r u_k (backward),
// with u_0 = U_n/(1 - r^n) and h_n = h_0 = Y_0/(1 - r^n) from the passes started at zero.
// u and pw (r^0 .. r^n) are shared scratch of n and n + 1 values.
__device__ void solve_ring(cplx b, cplx a, cplx *h, cplx *u, cplx *pw, i64 n) {
    // The root of modulus > 1 without cancellation (the sign of the square root along -b/a),
    // then r = 1/R (the roots' product is 1).
    const cplx ba = divide(b, a);
    cplx root = csqrt(sub(mul(ba, ba), mk(4.0, 0.0)));
    if (root.re * ba.re + root.im * ba.im > 0.0) root = scale(-1.0, root);
    const cplx r = divide(mk(2.0, 0.0), sub(root, ba));
    const cplx inv_a = divide(mk(1.0, 0.0), a);
    if (threadIdx.x == 0) {
        // Forward pass from U_0 = 0 (stored in u), powers alongside.
        cplx acc = mk(0.0, 0.0), power = mk(1.0, 0.0);
        for (i64 k = 0; k < n; ++k) {
            u[k] = acc;
            pw[k] = power;
            acc = add(mul(r, acc), mul(inv_a, h[k + 1 == n ? 0 : k + 1]));
            power = mul(r, power);
        }
        pw[n] = power;
        u[0] = divide(acc, sub(mk(1.0, 0.0), power));  // u_0; U_n = acc
    }
    __syncthreads();
    const cplx u0 = u[0];
    for (i64 k = threadIdx.x + 1; k < n; k += blockDim.x) u[k] = add(u[k], mul(pw[k], u0));
    __syncthreads();
    if (threadIdx.x == 0) {
        // Backward pass from Y_n = 0 (stored in h).
        cplx acc = mk(0.0, 0.0);
        for (i64 k = n - 1; k >= 0; --k) {
            acc = sub(mul(r, acc), mul(r, u[k]));
            h[k] = acc;
        }
        h[0] = divide(acc, sub(mk(1.0, 0.0), pw[n]));  // h_0; Y_0 = acc
    }
    __syncthreads();
    const cplx h0 = h[0];
    for (i64 k = threadIdx.x + 1; k < n; k += blockDim.x) h[k] = add(h[k], mul(pw[n - k], h0));
}

// The explicit part of a stage on ring (k, l) (local plane k): into `out` on an explicit ring,
// into the shared `ring` (the right-hand side of the implicit solve) on an implicit one. Returns
// the ring's absorber factor E.
__device__ __forceinline__ double line_update(const StageParams &p, const Line &ln, int implicit, cplx *ring) {
    cplx *out = (cplx *)p.out;
    const cplx *cur = (const cplx *)p.cur;
    const cplx *other = (const cplx *)p.prev;
    const i64 k = ln.k, l = ln.l, n3 = p.n3;
    const cplx c = mk(p.c_re, p.c_im);
    const i64 base = ((k + 1) * p.n2 + l) * n3;
    const cplx *row = ring_of(p, cur, ln);
    const double *urow = potential_ring(p, ln);
    const cplx *prev_row = (p.prev_mode == PREV_IN_PLACE ? out : p.prev_mode == PREV_CUR ? cur : other) + base;
    cplx *out_row = out + base;
    const double w_line = ((const double *)p.absorber_x)[p.x_offset + k] + ((const double *)p.absorber_2)[l];
    const double e_line = w_line > 0.0 ? exp(-p.delta * w_line) : 1.0;
    for (int m = threadIdx.x; m < (int)n3; m += blockDim.x) {
        double e = e_line;
        if (!p.cylindrical) {
            const double w = w_line + ((const double *)p.absorber_3)[m];
            e = w > 0.0 ? exp(-p.delta * w) : 1.0;
        }
        const cplx hpsi = apply_h(p, row, urow, ln, m, !implicit);
        const cplx f = add(scale(e * e, prev_row[m]), scale(e, mul(c, hpsi)));
        if (implicit) ring[m] = f; else out_row[m] = f;
    }
    return e_line;
}

// The explicit rings ring_first .. ring_first + ring_count (all at or above rho0, or every line
// of a Cartesian grid) of planes plane_first .. plane_first + plane_count: no shared memory and
// none of the implicit solve's registers.
extern "C" __global__ void __launch_bounds__(256) stage_explicit(StageParams p) {
    const i64 n_lines = p.plane_count * p.ring_count;
    for (i64 i = blockIdx.x; i < n_lines; i += gridDim.x) {
        const Line ln = line_of(p, p.plane_first + i / p.ring_count, p.ring_first + i % p.ring_count);
        line_update(p, ln, 0, nullptr);
    }
}

// The implicit rings (below rho0) of the same planes, one ring per block with 3 N3 + 1 complex
// values of shared memory (h, u, powers of r): the explicit terms, then the theta-correction.
extern "C" __global__ void __launch_bounds__(256, 4) stage_implicit(StageParams p) {
    extern __shared__ cplx ring[];
    cplx *out = (cplx *)p.out;
    const cplx *cur = (const cplx *)p.cur;
    const cplx *other = (const cplx *)p.prev;
    const i64 n2 = p.n2, n3 = p.n3, plane = n2 * n3;
    const i64 n_lines = p.plane_count * p.ring_count;
    const cplx c = mk(p.c_re, p.c_im);
    for (i64 i = blockIdx.x; i < n_lines; i += gridDim.x) {
        const i64 k = p.plane_first + i / p.ring_count, l = p.ring_first + i % p.ring_count;
        const Line ln = line_of(p, k, l);
        const i64 base = (k + 1) * plane + l * n3;
        const double e = line_update(p, ln, 1, ring);
        // The implicit theta-correction of this ring: rhs += sigma D (beta cur + gamma prev)/weight,
        // sigma = -c E third / 2; prev is still unwritten in `out` (in place) at this point.
        const double weight = p.alpha + p.beta + p.gamma;
        const cplx sigma = scale(-e * ln.third / 2.0, c);
        __syncthreads();
        if (p.beta != 0.0 || p.gamma != 0.0) {
            const cplx *prev_src = p.prev_mode == PREV_IN_PLACE ? out : p.prev_mode == PREV_CUR ? cur : other;
            for (i64 m = threadIdx.x; m < n3; m += blockDim.x) {
                const i64 m1 = m + 1 == n3 ? 0 : m + 1, m2 = m == 0 ? n3 - 1 : m - 1;
                const cplx g0 = add(scale(p.beta, cur[base + m]), scale(p.gamma, prev_src[base + m]));
                const cplx g1 = add(scale(p.beta, cur[base + m1]), scale(p.gamma, prev_src[base + m1]));
                const cplx g2 = add(scale(p.beta, cur[base + m2]), scale(p.gamma, prev_src[base + m2]));
                ring[m] = add(ring[m], mul(scale(1.0 / weight, sigma), sub(add(g1, g2), scale(2.0, g0))));
            }
        }
        __syncthreads();
        const double alpha = p.alpha / weight;
        solve_ring(add(mk(1.0, 0.0), scale(2.0 * alpha, sigma)), scale(-alpha, sigma), ring, ring + n3, ring + 2 * n3, n3);
        __syncthreads();
        for (i64 m = threadIdx.x; m < n3; m += blockDim.x) out[base + m] = ring[m];
        __syncthreads();
    }
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
extern "C" __global__ void sums(SumParams s) {
    const StageParams &p = s.stage;
    const cplx *psi = (const cplx *)p.cur;
    const cplx *phi = (const cplx *)s.reference;
    const i64 n2 = p.n2, n3 = p.n3, plane = n2 * n3;
    const i64 n_lines = p.plane_count * n2;
    double a0 = 0.0, a1 = 0.0;
    for (i64 i = blockIdx.x; i < n_lines; i += gridDim.x) {
        const i64 k = i / n2, l = i % n2;
        const Line ln = line_of(p, k, l);
        const double w = cell_weight(p, l);
        const i64 base = (k + 1) * plane + l * n3;
        const cplx *row = ring_of(p, psi, ln);
        const double *urow = potential_ring(p, ln);
        for (int m = threadIdx.x; m < (int)n3; m += blockDim.x) {
            const cplx z = psi[base + m];
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

// Multiplies the owned points (n values from offset) by factor.
extern "C" __global__ void scale_owned(u64 psi_ptr, i64 offset, i64 n, double factor) {
    cplx *psi = (cplx *)psi_ptr + offset;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        psi[i] = scale(factor, psi[i]);
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
extern "C" __global__ void density_slice(u64 psi_ptr, u64 out_ptr, i64 n_out, i64 n2, i64 n3, i64 x_offset,
                                         int axis, int cylindrical, i64 index) {
    const cplx *psi = (const cplx *)psi_ptr + n2 * n3;  // skip the ghost plane
    double *out = (double *)out_ptr;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n_out; i += (i64)gridDim.x * blockDim.x) {
        const cplx z = psi[slice_source(i, n2, n3, x_offset, axis, cylindrical, index)];
        out[i] = z.re * z.re + z.im * z.im;
    }
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
