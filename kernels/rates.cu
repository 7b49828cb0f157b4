// Batched rate integrals of the degenerate-rates paper (Aslanyan, Aslanyan & Tallents, CPC 2017,
// §2.2) on the GPU: the CUDA path of src/rates, launched by src/rates/cuda.rs.
//
// This file transcribes src/rates/integrals.rs line by line (integrands, occupations, upper
// limits, features) and src/math/panels.rs (graded_breakpoints), so that it computes the same
// function as the CPU reference: keep them in step. Plain CUDA C for NVRTC alone (no headers).
//
// Rounding follows the CPU reference step by step:
// - every product that feeds an addition is written mul(a, b) (__dmul_rn), which the compiler may
//   not contract into a fused multiply-add (Rust never contracts), so breakpoints, upper limits
//   and abscissae are bit-identical to the CPU's, and so is every integrand up to the last-place
//   differences of the device's exp/log/log1p/expm1 (at most 1 ulp each, as glibc's);
// - constants and everything that depends only on p or on one plasma state (the tails of the
//   upper limits, the rate prefactors, hbar omega_p, the inverse-bremsstrahlung factor) come from
//   the host, computed by the Rust functions themselves;
// - only the order of the outer quadrature sums differs (lanes / threads and tree reductions
//   instead of one sequential loop): a relative difference of order 1e-15 on sums of
//   positive terms. (An integral that underflows below 2.2e-308 is a sum of subnormal numbers
//   and agrees only to the few bits they hold, on both paths.)
//
// Units: energies and temperatures in eV, rates in s^-1 per ion, heating in eV s^-1 per ion or
// eV cm^-3 s^-1 (inverse bremsstrahlung). Outputs are column-major n_transitions x n_states:
// out[t + n_transitions * s].
//
// Launch layout (BLOCK = 128 threads, WARPS = 4 warps per block, grid-stride loops):
// - excitation_kernel, photoionization_kernel, inverse_bremsstrahlung_kernel: one warp per
//   (transition, state) pair (per state for inverse bremsstrahlung); lane 0 builds the graded
//   breakpoints in shared memory, the 32 lanes stride over the flattened (panel, node) index and
//   the two sums (up, down) are reduced by warp shuffles;
// - ionization_kernel: one block per pair; thread 0 builds the outer breakpoints in shared
//   memory, the 128 threads stride over the flattened outer (panel, node) index, each doing its
//   inner integral serially (its own inner breakpoints, in local memory), then a block reduction.

#define BLOCK 128
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

// src/math/panels.rs MAX_BREAKPOINTS: at most 127 graded panels per integral.
#define MAX_BREAKPOINTS 128

// The `stats` argument (src/rates/mod.rs Statistics codes): FERMI_DIRAC, else 1 = Maxwell-Boltzmann.
#define FERMI_DIRAC 0

// a * b rounded on its own: never fused with a following addition (see the header).
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }

// Upward and downward integrands or integrals.
struct Pair {
    double up;
    double down;
};

// Electron conditions of one plasma state (integrals.rs Conditions): stats, T_e [eV],
// mu [eV], T_r [eV].
struct Conditions {
    int stats;
    double te;
    double mu;
    double tr;
};

// A place where an integrand changes on a short scale: panels are graded geometrically (factor
// 4) away from `at`, starting at width `scale` [eV] (panels.rs Feature).
struct Feature {
    double at;
    double scale;
};

// The per-panel Gauss-Legendre rule on [-1, 1] (nodes and weights from the host).
struct Rule {
    const double *nodes;
    const double *weights;
    int n;
};

// ---------------------------------------------------------------------------------------------
// Graded breakpoints (panels.rs graded_breakpoints).

// Inserts `candidate` into the ascending `out[0..count)` (whose first entry is lo) if it lies
// strictly between lo and hi, is more than `min_gap` from hi and from its neighbours, and fewer
// than MAX_BREAKPOINTS - 1 points are held (so hi still fits); returns the new count.
__device__ int insert_breakpoint(double *out, int count, double hi, double min_gap, double candidate) {
    if (count >= MAX_BREAKPOINTS - 1 || !(candidate > out[0] && hi - candidate > min_gap)) {
        return count;
    }
    // out[0] = lo < candidate, so the scan stops at position >= 1.
    int position = count;
    while (out[position - 1] > candidate) {
        --position;
    }
    // The list is sorted, so only the two neighbours can be within min_gap.
    const bool too_close_below = candidate - out[position - 1] <= min_gap;
    const bool too_close_above = position < count && out[position] - candidate <= min_gap;
    if (too_close_below || too_close_above) {
        return count;
    }
    for (int i = count; i > position; --i) {
        out[i] = out[i - 1];
    }
    out[position] = candidate;
    return count + 1;
}

// Ascending breakpoints of [lo, hi] graded around `features`; returns count (>= 2, out[0] = lo,
// out[count - 1] = hi). Candidates, in this order: for each feature with finite `at` and finite
// positive `scale`, `at`, then at - scale 4^j and at + scale 4^j for j = 0, 1, ... while
// scale 4^j <= hi - lo; a candidate is kept when it lies in (lo, hi), more than 1e-12 (hi - lo)
// from every point held, while fewer than MAX_BREAKPOINTS - 1 points are held.
__device__ int graded_breakpoints(double lo, double hi, const Feature *features, int n_features, double *out) {
    const double width = hi - lo;
    const double min_gap = 1e-12 * width;
    out[0] = lo;
    int count = 1;
    for (int f = 0; f < n_features; ++f) {
        const Feature feature = features[f];
        if (!(isfinite(feature.at) && isfinite(feature.scale) && feature.scale > 0.0)) {
            continue;
        }
        count = insert_breakpoint(out, count, hi, min_gap, feature.at);
        double distance = feature.scale;
        // isfinite(distance) is panels.rs's `distance < INFINITY` (distance > 0 here).
        while (distance <= width && isfinite(distance)) {
            count = insert_breakpoint(out, count, hi, min_gap, feature.at - distance);
            count = insert_breakpoint(out, count, hi, min_gap, feature.at + distance);
            distance *= 4.0;
        }
    }
    out[count] = hi;
    return count + 1;
}

// Fermi-edge features (at `edges`, width 2 T_e) only under Fermi-Dirac statistics
// (integrals.rs push_edges). Returns the new feature count.
__device__ int push_edges(const Conditions &c, const double *edges, int n_edges, Feature *features, int count) {
    if (c.stats == FERMI_DIRAC) {
        for (int i = 0; i < n_edges; ++i) {
            features[count++] = Feature{edges[i], 2.0 * c.te};
        }
    }
    return count;
}

// ---------------------------------------------------------------------------------------------
// Composite Gauss-Legendre quadrature (integrals.rs integrate_pair).

// The one composite loop, serial: sum over panels of half * sum_j w_j f(mid + half x_j), in the
// CPU's order. Used for the inner ionization integral, one thread each.
template <class F>
__device__ Pair integrate_pair(const Rule &rule, const double *breaks, int count, F f) {
    Pair sum = {0.0, 0.0};
    for (int i = 0; i + 1 < count; ++i) {
        const double half = 0.5 * (breaks[i + 1] - breaks[i]);
        const double mid = mul(0.5, breaks[i + 1] + breaks[i]);
        Pair panel = {0.0, 0.0};
        for (int j = 0; j < rule.n; ++j) {
            const Pair v = f(mid + mul(half, rule.nodes[j]));
            panel.up += mul(rule.weights[j], v.up);
            panel.down += mul(rule.weights[j], v.down);
        }
        sum.up += mul(half, panel.up);
        sum.down += mul(half, panel.down);
    }
    return sum;
}

// Term k of the flattened (panel, node) sum of the composite rule over `breaks`:
// half w_node f(mid + half x_node), k = panel * rule.n + node.
template <class F>
__device__ Pair composite_term(const Rule &rule, const double *breaks, int k, F f) {
    const int panel = k / rule.n;
    const int node = k - panel * rule.n;
    const double half = 0.5 * (breaks[panel + 1] - breaks[panel]);
    const double mid = mul(0.5, breaks[panel + 1] + breaks[panel]);
    const Pair v = f(mid + mul(half, rule.nodes[node]));
    return Pair{mul(half, mul(rule.weights[node], v.up)), mul(half, mul(rule.weights[node], v.down))};
}

// Sum of `v` over the 32 lanes of a warp, returned to every lane.
__device__ Pair warp_sum(Pair v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v.up += __shfl_xor_sync(FULL_MASK, v.up, offset);
        v.down += __shfl_xor_sync(FULL_MASK, v.down, offset);
    }
    return v;
}

// The composite rule over `breaks` (in shared memory) by one warp: lanes stride over the
// flattened (panel, node) index; the sums are returned to every lane.
template <class F>
__device__ Pair warp_integrate(const Rule &rule, const double *breaks, int count, F f) {
    Pair sum = {0.0, 0.0};
    const int total = (count - 1) * rule.n;
    for (int k = threadIdx.x % 32; k < total; k += 32) {
        const Pair term = composite_term(rule, breaks, k, f);
        sum.up += term.up;
        sum.down += term.down;
    }
    return warp_sum(sum);
}

// ---------------------------------------------------------------------------------------------
// Integrands (integrals.rs).

// 1/(1 + e^x) without overflow (fermi.rs occupation_from_exponent).
__device__ double occupation_from_exponent(double x) {
    if (x > 0.0) {
        const double e = exp(-x);
        return e / (1.0 + e);
    }
    return 1.0 / (1.0 + exp(x));
}

// Occupation F(eps) and blocking 1 - F(eps) (paper eqs. 1, 3), as (up, down) = (F, 1 - F);
// Maxwell-Boltzmann: (e^{(mu - eps)/T}, 1).
__device__ Pair occupation_and_blocking(const Conditions &c, double eps) {
    const double x = (eps - c.mu) / c.te;
    if (c.stats == FERMI_DIRAC) {
        return Pair{occupation_from_exponent(x), occupation_from_exponent(-x)};
    }
    return Pair{exp(-x), 1.0};
}

// Blocking factor 1 - F(eps) alone (the second member of occupation_and_blocking).
__device__ double blocking(const Conditions &c, double eps) {
    const double x = (eps - c.mu) / c.te;
    return c.stats == FERMI_DIRAC ? occupation_from_exponent(-x) : 1.0;
}

// Collision strength, paper eq. 6: B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4.
__device__ double collision_strength(const double *b, double x) {
    const double r = 1.0 / x;
    return mul(b[0], log(x)) + b[1] + mul(r, b[2] + mul(r, b[3] + mul(r, b[4] + mul(r, b[5]))));
}

// Mott-BELI differential ionization cross-section, paper eq. 8, in units of 1e-13 cm^2 eV^2 per
// eV^3, for incident energy e0, outgoing energy e1, ionization energy ei [eV], BELI c[0..5).
__device__ double differential_ionization(const double *c, double ei, double e0, double e1) {
    const double e2 = e0 - e1 - ei;
    const double a = mul(0.5, sqrt(mul(e0, e0) + mul(4.0 * ei, ei)) - e0);
    const double b = a + ei;
    double sum = mul(c[0] * ei, 1.0 / ((e1 + a) * (e1 + b)) + 1.0 / ((e2 + a) * (e2 + b)));
    double p1 = 1.0, p2 = 1.0, pe0 = e0;
    for (int k = 1; k < 5; ++k) {
        sum += (double)k * c[k] * (p1 + p2) / pe0;
        p1 = mul(p1, e1);
        p2 = mul(p2, e2);
        pe0 *= e0;
    }
    return sum / (2.0 * ei * e0);
}

// Black-body photon flux per unit photon energy PHI eps^2 / (e^{eps/T_r} - 1)
// [cm^-2 s^-1 eV^-1]; `phi` = 8 pi c / (hc)^3 [cm^-2 s^-1 eV^-3].
__device__ double black_body_flux(double phi, double eps, double tr) {
    return phi * eps * eps / expm1(eps / tr);
}

// ln(1 + e^x) without overflow or loss of digits.
__device__ double softplus(double x) {
    if (x > 0.0) {
        return x + log1p(exp(-x));
    }
    return log1p(exp(x));
}

// ---------------------------------------------------------------------------------------------
// Per-pair setup: upper limits and features, then the breakpoints (integrals.rs).
// `thermal` = thermal_tail(p) = p ln 10 + 12, `radiation` = radiation_tail(p) (from the host).

// Excitation: [E, E + max(mu, 0) + T_e thermal], features at E (scales E, T_e) and, under
// Fermi-Dirac, the edges mu and E + mu.
__device__ int excitation_breakpoints(const Conditions &c, double e, double thermal, double *breaks) {
    const double hi = e + fmax(c.mu, 0.0) + mul(c.te, thermal);
    Feature features[4] = {{e, e}, {e, c.te}};
    const double edges[2] = {c.mu, e + c.mu};
    const int n = push_edges(c, edges, 2, features, 2);
    return graded_breakpoints(e, hi, features, n, breaks);
}

// Ionization (outer): [E, E + 2 max(mu, 0) + T_e (thermal + 3)], features at E (scales E, T_e)
// and, under Fermi-Dirac, the edges mu, E + mu and E + 2 mu.
__device__ int ionization_breakpoints(const Conditions &c, double e, double thermal, double *breaks) {
    const double hi = e + mul(2.0, fmax(c.mu, 0.0)) + mul(c.te, thermal + 3.0);
    Feature features[5] = {{e, e}, {e, c.te}};
    const double edges[3] = {c.mu, e + c.mu, e + mul(2.0, c.mu)};
    const int n = push_edges(c, edges, 3, features, 2);
    return graded_breakpoints(e, hi, features, n, breaks);
}

// Photoionization: [E, E + max(mu, 0) + max(T_r radiation, T_e thermal)], features at E (scales
// E, T_r, T_e) and, under Fermi-Dirac, the edge E + mu.
__device__ int photoionization_breakpoints(const Conditions &c, double e, double thermal, double radiation,
                                           double *breaks) {
    const double hi = e + fmax(c.mu, 0.0) + fmax(c.tr * radiation, c.te * thermal);
    Feature features[4] = {{e, e}, {e, c.tr}, {e, c.te}};
    const double edges[1] = {e + c.mu};
    const int n = push_edges(c, edges, 1, features, 3);
    return graded_breakpoints(e, hi, features, n, breaks);
}

// Inverse bremsstrahlung: [eps_c, max(eps_c, mu) + max(T_r radiation, T_e thermal)], features at
// eps_c = hbar omega_p (scales eps_c, T_r, T_e) and, under Fermi-Dirac, the edge mu.
__device__ int inverse_bremsstrahlung_breakpoints(const Conditions &c, double eps_c, double thermal, double radiation,
                                                  double *breaks) {
    const double hi = fmax(eps_c, c.mu) + fmax(c.tr * radiation, c.te * thermal);
    Feature features[4] = {{eps_c, eps_c}, {eps_c, c.tr}, {eps_c, c.te}};
    const double edges[1] = {c.mu};
    const int n = push_edges(c, edges, 1, features, 3);
    return graded_breakpoints(eps_c, hi, features, n, breaks);
}

// ---------------------------------------------------------------------------------------------
// Kernels. Common arguments: n_transitions, n_states; stats (0 = Fermi-Dirac,
// 1 = Maxwell-Boltzmann); the rule (nodes, weights, n_nodes); thermal, radiation (tails of the
// upper limits); per state te [eV] and mu [eV] (and tr [eV]); per transition the parameters,
// coefficient arrays coefficient-major (coef[k * n_transitions + t]).

// Collisional excitation J_up (up) and de-excitation J_down (down) [s^-1], paper eqs. 5, 6, 9:
// J_up = K int_E^hi Omega(eps/E) F(eps) (1 - F(eps - E)) d eps,
// J_down = (g_l/g_u) K int_E^hi Omega(eps/E) F(eps - E) (1 - F(eps)) d eps,
// K = `prefactor` = G sqrt(2/m_e) pi a0^2 Ry [eV^-1 s^-1]; `omega` holds B0..B5.
extern "C" __global__ void __launch_bounds__(BLOCK)
excitation_kernel(long long n_transitions, long long n_states, int stats, const double *__restrict__ nodes,
                  const double *__restrict__ weights, int n_nodes, double thermal, double prefactor,
                  const double *__restrict__ te, const double *__restrict__ mu,
                  const double *__restrict__ energy, const double *__restrict__ omega,
                  const double *__restrict__ g_lower, const double *__restrict__ g_upper,
                  double *__restrict__ up, double *__restrict__ down) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    __shared__ int counts[WARPS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {nodes, weights, n_nodes};
    const long long n_pairs = n_transitions * n_states;
    for (long long pair = (long long)blockIdx.x * WARPS + warp; pair < n_pairs; pair += (long long)gridDim.x * WARPS) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = {stats, te[s], mu[s], 0.0};
        const double e = energy[t];
        double b[6];
        for (int k = 0; k < 6; ++k) {
            b[k] = omega[k * n_transitions + t];
        }
        if (threadIdx.x % 32 == 0) {
            counts[warp] = excitation_breakpoints(c, e, thermal, breaks[warp]);
        }
        __syncwarp();
        const Pair sum = warp_integrate(rule, breaks[warp], counts[warp], [&](double eps) {
            const double omega_eps = collision_strength(b, eps / e);
            const Pair in = occupation_and_blocking(c, eps);
            const Pair out = occupation_and_blocking(c, eps - e);
            return Pair{omega_eps * in.up * out.down, omega_eps * out.up * in.down};
        });
        if (threadIdx.x % 32 == 0) {
            up[pair] = prefactor * sum.up;
            down[pair] = prefactor * sum.down * g_lower[t] / g_upper[t];
        }
        __syncwarp();
    }
}

// Collisional ionization K_up (up) and three-body recombination K_down (down) [s^-1], paper
// eqs. 7, 8, 10:
// K_up = K int_E^hi d eps0 2 eps0 F(eps0) int_0^{(eps0-E)/2} d eps1 dsigma/d eps1 (1-F(eps1)) (1-F(eps2)),
// K_down = (g_l/g_u) K int_E^hi d eps0 2 eps0 (1-F(eps0)) int_0^{(eps0-E)/2} d eps1 dsigma/d eps1 F(eps1) F(eps2),
// eps2 = eps0 - E - eps1, K = `prefactor` = G sqrt(2/m_e) 1e-13 cm^2 eV^2 [eV^-4 s^-1];
// `beli` holds C0..C4. The inner range [0, (eps0-E)/2] is graded around 0 (scale a of eq. 8)
// and, under Fermi-Dirac, the edges mu and eps0 - E - mu.
extern "C" __global__ void __launch_bounds__(BLOCK)
ionization_kernel(long long n_transitions, long long n_states, int stats, const double *__restrict__ nodes,
                  const double *__restrict__ weights, int n_nodes, double thermal, double prefactor,
                  const double *__restrict__ te, const double *__restrict__ mu,
                  const double *__restrict__ energy, const double *__restrict__ beli,
                  const double *__restrict__ g_lower, const double *__restrict__ g_upper,
                  double *__restrict__ up, double *__restrict__ down) {
    __shared__ double outer[MAX_BREAKPOINTS];
    __shared__ int outer_count;
    __shared__ Pair partial[WARPS];
    const Rule rule = {nodes, weights, n_nodes};
    const long long n_pairs = n_transitions * n_states;
    for (long long pair = blockIdx.x; pair < n_pairs; pair += gridDim.x) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = {stats, te[s], mu[s], 0.0};
        const double e = energy[t];
        double coef[5];
        for (int k = 0; k < 5; ++k) {
            coef[k] = beli[k * n_transitions + t];
        }
        if (threadIdx.x == 0) {
            outer_count = ionization_breakpoints(c, e, thermal, outer);
        }
        __syncthreads();
        Pair sum = {0.0, 0.0};
        const int total = (outer_count - 1) * rule.n;
        for (int k = threadIdx.x; k < total; k += BLOCK) {
            const Pair term = composite_term(rule, outer, k, [&](double e0) {
                const double half = mul(0.5, e0 - e);
                if (half <= 0.0) {
                    return Pair{0.0, 0.0};
                }
                const double a = mul(0.5, sqrt(mul(e0, e0) + mul(4.0 * e, e)) - e0);
                Feature features[3] = {{0.0, a}};
                const double edges[2] = {c.mu, mul(2.0, half) - c.mu};
                const int n = push_edges(c, edges, 2, features, 1);
                double inner[MAX_BREAKPOINTS];
                const int m = graded_breakpoints(0.0, half, features, n, inner);
                const Pair in = integrate_pair(rule, inner, m, [&](double e1) {
                    const double sigma = differential_ionization(coef, e, e0, e1);
                    const Pair o1 = occupation_and_blocking(c, e1);
                    const Pair o2 = occupation_and_blocking(c, e0 - e - e1);
                    return Pair{sigma * o1.down * o2.down, sigma * o1.up * o2.up};
                });
                const Pair o0 = occupation_and_blocking(c, e0);
                return Pair{2.0 * e0 * o0.up * in.up, 2.0 * e0 * o0.down * in.down};
            });
            sum.up += term.up;
            sum.down += term.down;
        }
        sum = warp_sum(sum);
        if (threadIdx.x % 32 == 0) {
            partial[threadIdx.x / 32] = sum;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            Pair total_sum = partial[0];
            for (int w = 1; w < WARPS; ++w) {
                total_sum.up += partial[w].up;
                total_sum.down += partial[w].down;
            }
            up[pair] = prefactor * total_sum.up;
            down[pair] = prefactor * total_sum.down * g_lower[t] / g_upper[t];
        }
        __syncthreads();
    }
}

// Photoionization rate L (up) [s^-1] and photoelectron heating H (down) [eV s^-1] per ion in a
// black-body field at T_r, paper eqs. 11-13, 16:
// L = int_E^hi sigma(eps) Phi(eps) (1 - F(eps - E)) d eps, H = int_E^hi (eps - E) sigma Phi (1-F) d eps,
// sigma = D0 (E/eps)^2 + D1 (E/eps)^3 [cm^2]; `phi` = 8 pi c / (hc)^3 [cm^-2 s^-1 eV^-3].
extern "C" __global__ void __launch_bounds__(BLOCK)
photoionization_kernel(long long n_transitions, long long n_states, int stats, const double *__restrict__ nodes,
                       const double *__restrict__ weights, int n_nodes, double thermal, double radiation,
                       double phi, const double *__restrict__ te, const double *__restrict__ mu,
                       const double *__restrict__ tr, const double *__restrict__ energy,
                       const double *__restrict__ d0, const double *__restrict__ d1, double *__restrict__ up,
                       double *__restrict__ down) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    __shared__ int counts[WARPS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {nodes, weights, n_nodes};
    const long long n_pairs = n_transitions * n_states;
    for (long long pair = (long long)blockIdx.x * WARPS + warp; pair < n_pairs; pair += (long long)gridDim.x * WARPS) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = {stats, te[s], mu[s], tr[s]};
        const double e = energy[t];
        const double d0_t = d0[t];
        const double d1_t = d1[t];
        if (threadIdx.x % 32 == 0) {
            counts[warp] = photoionization_breakpoints(c, e, thermal, radiation, breaks[warp]);
        }
        __syncwarp();
        const Pair sum = warp_integrate(rule, breaks[warp], counts[warp], [&](double eps) {
            const double r = e / eps;
            const double sigma = r * r * (d0_t + mul(d1_t, r));
            const double rate = sigma * black_body_flux(phi, eps, c.tr) * blocking(c, eps - e);
            return Pair{rate, (eps - e) * rate};
        });
        if (threadIdx.x % 32 == 0) {
            up[pair] = sum.up;
            down[pair] = sum.down;
        }
        __syncwarp();
    }
}

// Inverse-bremsstrahlung heating [eV cm^-3 s^-1] of each state, paper eqs. 14-15:
// H = factor int_{eps_c}^hi ln[(1 + e^{mu/T}) / (1 + e^{(mu-w)/T})] / (e^{w/T_r} - 1) dw
// (Maxwell-Boltzmann: e^{mu/T} (1 - e^{-w/T}) in place of the logarithm), with per state
// eps_c = hbar omega_p [eV] and factor = A_FF Z2N (sqrt(pi)/2) G T PHI [cm^-3 s^-1 eV^-1]
// (integrals.rs inverse_bremsstrahlung). One warp per state.
extern "C" __global__ void __launch_bounds__(BLOCK)
inverse_bremsstrahlung_kernel(long long n_states, int stats, const double *__restrict__ nodes,
                              const double *__restrict__ weights, int n_nodes, double thermal, double radiation,
                              const double *__restrict__ te, const double *__restrict__ mu,
                              const double *__restrict__ tr, const double *__restrict__ eps_c,
                              const double *__restrict__ factor, double *__restrict__ heating) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    __shared__ int counts[WARPS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {nodes, weights, n_nodes};
    for (long long s = (long long)blockIdx.x * WARPS + warp; s < n_states; s += (long long)gridDim.x * WARPS) {
        const Conditions c = {stats, te[s], mu[s], tr[s]};
        if (threadIdx.x % 32 == 0) {
            counts[warp] = inverse_bremsstrahlung_breakpoints(c, eps_c[s], thermal, radiation, breaks[warp]);
        }
        __syncwarp();
        const double eta = c.mu / c.te;
        const Pair sum = warp_integrate(rule, breaks[warp], counts[warp], [&](double w) {
            const double absorbed = c.stats == FERMI_DIRAC ? softplus(eta) - softplus(eta - w / c.te)
                                                           : exp(eta) * -expm1(-w / c.te);
            return Pair{absorbed / expm1(w / c.tr), 0.0};
        });
        if (threadIdx.x % 32 == 0) {
            heating[s] = factor[s] * sum.up;
        }
        __syncwarp();
    }
}
