// TDSE family kernels (paper: tdse-cylindrical-gpu.txt). Compiled by NVRTC alone: no CUDA headers.
// The same functions as src/tdse/cpu.rs: one thread block per ring (x_k, rho_l) of N_theta points
// (or per z line of a Cartesian grid), threads along theta (eq. 17: theta fastest, so a warp reads
// consecutive addresses). A stage (src/tdse/scheme.rs) is
//   h = P prev + c E [H0 cur - 1/2 D1 (alpha h + beta cur + gamma prev)/(alpha + beta + gamma)]
//                                                                      on rings below rho0,
//   h = P prev + c E [H cur]                                                 elsewhere,
// E = exp(-delta W), P = E^2; the implicit rings solve their cyclic tridiagonal system in shared
// memory by the Thomas algorithm with Sherman-Morrison (eqs. 11-16, src/tdse/tridiagonal.rs).
// Stored wavefunctions hold a ghost plane before and after the owned planes.

typedef unsigned long long u64;
typedef long long i64;

struct cplx {
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
    i64 n2, n3, nx_global, x_offset, plane_first, plane_count;
    double dx, d2, d3, x0, y0, z0;
    double c_re, c_im, delta, alpha, beta, gamma;
    double absorber_width, absorber_strength;
    double ion[10];  // z, z_core, a1, a2, a3, polarisability, cutoff, core amplitude, core exponent, soft core
    double rx, ry, rz;
    int cylindrical, implicit_rings, prev_mode, array_potential, has_ion, pad;
};

enum { PREV_IN_PLACE = 0, PREV_CUR = 1, PREV_OTHER = 2 };

// Absorber profile (depth/L)^2 at index i of n with step h (src/tdse/potential.rs Absorber).
__device__ inline double absorber_profile(double width, i64 i, i64 n, double h, int low) {
    if (width <= 0.0) return 0.0;
    const double from_high = (double)(n - 1 - i) * h, from_low = (double)i * h;
    double w = 0.0;
    if (from_high < width) { const double t = (width - from_high) / width; w += t * t; }
    if (low && from_low < width) { const double t = (width - from_low) / width; w += t * t; }
    return w;
}

// V_ion at squared distance r2 (src/tdse/potential.rs IonPotential::value).
__device__ double ion_value(const double *p, double r2) {
    r2 += p[9] * p[9];
    const double r = sqrt(r2);
    double charge = p[1];
    if (p[0] != p[1]) charge += (p[0] - p[1]) * exp(-p[2] * r);
    if (p[3] != 0.0) charge += p[3] * r * exp(-p[4] * r);
    double v = -charge / r;
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

// U at local point (k, l, m).
__device__ inline double potential_at(const StageParams &p, const Line &ln, i64 m) {
    if (p.array_potential) return ((const double *)p.potential)[(ln.k * p.n2 + ln.l) * p.n3 + m];
    const i64 kg = p.x_offset + ln.k;
    double u = ((const double *)p.surface)[kg];
    if (p.has_ion) {
        const double x = p.x0 + (double)kg * p.dx;
        double y, z;
        if (p.cylindrical) {
            double s, c;
            sincos((double)m * p.d3, &s, &c);
            y = ln.rho * c;
            z = ln.rho * s;
        } else {
            y = p.y0 + (double)ln.l * p.d2;
            z = p.z0 + (double)m * p.d3;
        }
        const double dx = x - p.rx, dy = y - p.ry, dz = z - p.rz;
        u += ion_value(p.ion, dx * dx + dy * dy + dz * dz);
    }
    return u;
}

// (H psi) at (k, l, m) of the stored slot psi (ghost plane first); without the theta (z) term when
// with_third is 0.
__device__ inline cplx apply_h(const StageParams &p, const cplx *psi, const Line &ln, i64 m, int with_third) {
    const i64 n2 = p.n2, n3 = p.n3, plane = n2 * n3;
    const i64 at = (ln.k + 1) * plane + ln.l * n3 + m;
    const cplx c = psi[at];
    const double inv_dx2 = 1.0 / (p.dx * p.dx);
    cplx lap = scale(inv_dx2, sub(add(psi[at + plane], psi[at - plane]), scale(2.0, c)));
    const cplx zero = mk(0.0, 0.0);
    const cplx up = ln.l + 1 < n2 ? psi[at + n3] : zero;
    const cplx down = ln.l > 0 ? psi[at - n3] : zero;
    lap = add(lap, add(scale(ln.up, sub(up, c)), scale(ln.down, sub(down, c))));
    if (with_third) {
        const i64 row = at - m;
        cplx next, last;
        if (p.cylindrical) {
            next = psi[row + (m + 1 == n3 ? 0 : m + 1)];
            last = psi[row + (m == 0 ? n3 - 1 : m - 1)];
        } else {
            next = m + 1 < n3 ? psi[at + 1] : zero;
            last = m > 0 ? psi[at - 1] : zero;
        }
        lap = add(lap, scale(ln.third, sub(add(next, last), scale(2.0, c))));
    }
    return add(scale(-0.5, lap), scale(potential_at(p, ln, m), c));
}

// Line i of the launch: the implicit rings of every plane first (so their serial solves start
// early and overlap the explicit rings), then the explicit ones.
__device__ inline void line_index(const StageParams &p, i64 i, i64 &k, i64 &l) {
    const i64 implicit = p.implicit_rings, explicit_rings = p.n2 - p.implicit_rings;
    const i64 n_implicit = p.plane_count * implicit;
    if (i < n_implicit) {
        k = p.plane_first + i / implicit;
        l = i % implicit;
    } else {
        const i64 j = i - n_implicit;
        k = p.plane_first + j / explicit_rings;
        l = implicit + j % explicit_rings;
    }
}

// Solves the cyclic system (b, a) of one ring in place in h (src/tdse/tridiagonal.rs), one thread.
__device__ void solve_ring(cplx b, cplx a, cplx *h, cplx *cp, cplx *q, i64 n) {
    const cplx gamma = mk(-b.re, -b.im);
    cplx diag = sub(b, gamma);
    cp[0] = divide(a, diag);
    h[0] = divide(h[0], diag);
    q[0] = divide(gamma, diag);
    const cplx a_over_gamma = divide(a, gamma);
    for (i64 k = 1; k < n; ++k) {
        diag = k == n - 1 ? sub(b, mul(a, a_over_gamma)) : b;
        const cplx den = sub(diag, mul(a, cp[k - 1]));
        const double inv = 1.0 / (den.re * den.re + den.im * den.im);
        const cplx rden = mk(den.re * inv, -den.im * inv);
        cp[k] = mul(a, rden);
        h[k] = mul(sub(h[k], mul(a, h[k - 1])), rden);
        const cplx u = k == n - 1 ? a : mk(0.0, 0.0);
        q[k] = mul(sub(u, mul(a, q[k - 1])), rden);
    }
    for (i64 k = n - 2; k >= 0; --k) {
        h[k] = sub(h[k], mul(cp[k], h[k + 1]));
        q[k] = sub(q[k], mul(cp[k], q[k + 1]));
    }
    const cplx factor = divide(add(h[0], mul(a_over_gamma, h[n - 1])),
                               add(mk(1.0, 0.0), add(q[0], mul(a_over_gamma, q[n - 1]))));
    for (i64 k = 0; k < n; ++k) h[k] = sub(h[k], mul(factor, q[k]));
}

extern "C" __global__ void stage(StageParams p) {
    extern __shared__ cplx ring[];  // 3 N3 values on implicit rings: h, c', q
    cplx *out = (cplx *)p.out;
    const cplx *cur = (const cplx *)p.cur;
    const cplx *other = (const cplx *)p.prev;
    const i64 n2 = p.n2, n3 = p.n3, plane = n2 * n3;
    const i64 n_lines = p.plane_count * n2;
    const cplx c = mk(p.c_re, p.c_im);
    for (i64 i = blockIdx.x; i < n_lines; i += gridDim.x) {
        i64 k, l;
        line_index(p, i, k, l);
        const Line ln = line_of(p, k, l);
        const int implicit = l < p.implicit_rings;
        const i64 base = (k + 1) * plane + l * n3;
        const double w_line = p.absorber_strength *
            (absorber_profile(p.absorber_width, p.x_offset + k, p.nx_global, p.dx, 1) +
             absorber_profile(p.absorber_width, l, n2, p.d2, !p.cylindrical));
        for (i64 m = threadIdx.x; m < n3; m += blockDim.x) {
            double w = w_line;
            if (!p.cylindrical) w += p.absorber_strength * absorber_profile(p.absorber_width, m, n3, p.d3, 1);
            const double e = w > 0.0 ? exp(-p.delta * w) : 1.0;
            const cplx hpsi = apply_h(p, cur, ln, m, !implicit);
            const cplx prev = p.prev_mode == PREV_IN_PLACE ? out[base + m]
                            : p.prev_mode == PREV_CUR ? cur[base + m] : other[base + m];
            const cplx f = add(scale(e * e, prev), scale(e, mul(c, hpsi)));
            if (implicit) ring[m] = f; else out[base + m] = f;
        }
        if (!implicit) continue;
        // The implicit theta-correction of this ring: rhs += sigma D (beta cur + gamma prev)/weight,
        // sigma = -c E third / 2; prev is still unwritten in `out` (in place) at this point.
        const double e = w_line > 0.0 ? exp(-p.delta * w_line) : 1.0;
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
        if (threadIdx.x == 0) {
            const double alpha = p.alpha / weight;
            const cplx b = add(mk(1.0, 0.0), scale(2.0 * alpha, sigma));
            const cplx a = scale(-alpha, sigma);
            solve_ring(b, a, ring, ring + n3, ring + 2 * n3, n3);
        }
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
        for (i64 m = threadIdx.x; m < n3; m += blockDim.x) {
            const cplx z = psi[base + m];
            const double z2 = z.re * z.re + z.im * z.im;
            if (s.what == 0) {
                a0 += w * z2;
            } else if (s.what == 1) {
                const cplx hz = apply_h(p, psi, ln, m, 1);
                a0 += w * (z.re * hz.re + z.im * hz.im);
                a1 += w * z2;
            } else if (s.what == 2) {
                const cplx f = phi[k * plane + l * n3 + m];
                a0 += w * (f.re * z.re + f.im * z.im);
                a1 += w * (f.re * z.im - f.im * z.re);
            } else {
                const i64 kg = p.x_offset + k;
                const double x = p.x0 + (double)kg * p.dx;
                double y, zz;
                if (p.cylindrical) {
                    double sn, cs;
                    sincos((double)m * p.d3, &sn, &cs);
                    y = ln.rho * cs;
                    zz = ln.rho * sn;
                } else {
                    y = p.y0 + (double)l * p.d2;
                    zz = p.z0 + (double)m * p.d3;
                }
                const double dx = x - s.centre[0], dy = y - s.centre[1], dz = zz - s.centre[2];
                if (dx * dx + dy * dy + dz * dz < s.radius2) a0 += w * z2;
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

// |psi|^2 on a slice (src/tdse/observables.rs slice_source): axis 0 x plane, 1 second, 2 third.
extern "C" __global__ void density_slice(u64 psi_ptr, u64 out_ptr, i64 n_out, i64 n2, i64 n3, i64 x_offset,
                                         int axis, int cylindrical, i64 index) {
    const cplx *psi = (const cplx *)psi_ptr + n2 * n3;  // skip the ghost plane
    double *out = (double *)out_ptr;
    const i64 plane = n2 * n3;
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n_out; i += (i64)gridDim.x * blockDim.x) {
        i64 src;
        if (axis == 0) {
            src = (index - x_offset) * plane + i;
        } else if (axis == 1 && cylindrical) {
            const i64 k = i / (2 * n2), j = i % (2 * n2);
            src = j < n2 ? k * plane + (n2 - 1 - j) * n3 + (index + n3 / 2) % n3 : k * plane + (j - n2) * n3 + index;
        } else if (axis == 1 || (axis == 2 && cylindrical)) {
            src = (i / n3) * plane + index * n3 + i % n3;
        } else {
            src = (i / n2) * plane + (i % n2) * n3 + index;
        }
        const cplx z = psi[src];
        out[i] = z.re * z.re + z.im * z.im;
    }
}
