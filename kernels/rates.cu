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
//   inner integral serially (its own inner breakpoints, in local memory; split over neighbouring
//   threads when there are fewer than half as many outer terms as threads), then a block
//   reduction.

#define BLOCK 128
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

// src/math/panels.rs MAX_BREAKPOINTS: at most 127 graded panels per integral.
#define MAX_BREAKPOINTS 128

// The `stats` argument (src/rates/mod.rs Statistics codes): FERMI_DIRAC, else 1 = Maxwell-Boltzmann.
#define FERMI_DIRAC 0

// a * b rounded on its own: never fused with a following addition (see the header).
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }

// Single precision (src/rates/precision.rs): the integrand templates below take the arithmetic
// type T of the integrand values, double or float. A `<name>_single_kernel` evaluates a pair
// with T = float when fits_single says FP32 holds its integrand (else with T = double; the
// choice is uniform over the warp or block that owns the pair). Only the integrands of
// excitation, ionization and photoionization (its blocking factor) change type: breakpoints,
// abscissae, weights, the black-body flux, the inverse-bremsstrahlung integrand, every sum and
// every prefactor stay double, and the arguments of the occupations ((eps - mu)/T_e) and of the
// cross-sections (eps/E, eps2 = eps0 - E - eps1, the scale a of eq. 8) are formed in double before
// rounding to T once, so no FP32 difference ever cancels.

// Upward and downward integrals (or double integrands).
struct Pair {
    double up;
    double down;
};

// Upward and downward integrals with their derivatives by T_e and by mu (at fixed mu, resp.
// T_e): the slopes of integrals.rs *_with_slopes, computed in the same quadrature pass.
struct PairSlopes {
    Pair value;
    Pair by_te;
    Pair by_mu;
};

// The sums of one pair of integrals: Pair, or PairSlopes when SLOPES.
template <bool SLOPES>
struct SumsOf {
    typedef Pair type;
};
template <>
struct SumsOf<true> {
    typedef PairSlopes type;
};

// The operations the composite quadrature needs on Pair and PairSlopes, element by element:
// `acc += v`, `w v` (never fused with the addition that follows) and the sum over a warp.
__device__ __forceinline__ void add(Pair &acc, const Pair &v) {
    acc.up += v.up;
    acc.down += v.down;
}
__device__ __forceinline__ void add(PairSlopes &acc, const PairSlopes &v) {
    add(acc.value, v.value);
    add(acc.by_te, v.by_te);
    add(acc.by_mu, v.by_mu);
}
__device__ __forceinline__ Pair scaled(double w, const Pair &v) { return Pair{mul(w, v.up), mul(w, v.down)}; }
__device__ __forceinline__ PairSlopes scaled(double w, const PairSlopes &v) {
    return PairSlopes{scaled(w, v.value), scaled(w, v.by_te), scaled(w, v.by_mu)};
}

// Upward and downward integrand factors in the integrands' arithmetic type T.
template <class T>
struct RealPair {
    T up;
    T down;
};

// Electron conditions of one plasma state (integrals.rs Conditions and Electrons): stats,
// T_e [eV], mu [eV], T_r [eV], and 1/T_e [1/eV] formed once for the integrands' slopes.
struct Conditions {
    int stats;
    double te;
    double mu;
    double tr;
    double inverse_te;
};

__device__ Conditions conditions_of(int stats, double te, double mu, double tr) {
    return Conditions{stats, te, mu, tr, 1.0 / te};
}

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
// CPU's order. Used for the inner ionization integral, one thread each. f returns a Pair or a
// PairSlopes (math/panels.rs integrate_graded_sums). With `parts` > 1, only the panels part, part + parts,
// ...: the share of one of `parts` threads that split the integral (their sums add to the whole).
template <class F>
__device__ auto integrate_pair(const Rule &rule, const double *breaks, int count, F f, int part = 0, int parts = 1)
    -> decltype(f(0.0)) {
    decltype(f(0.0)) sum = {};
    for (int i = part; i + 1 < count; i += parts) {
        const double half = 0.5 * (breaks[i + 1] - breaks[i]);
        const double mid = mul(0.5, breaks[i + 1] + breaks[i]);
        decltype(f(0.0)) panel = {};
        for (int j = 0; j < rule.n; ++j) {
            add(panel, scaled(rule.weights[j], f(mid + mul(half, rule.nodes[j]))));
        }
        add(sum, scaled(half, panel));
    }
    return sum;
}

// Term k of the flattened (panel, node) sum of the composite rule over `breaks`:
// half w_node f(mid + half x_node), k = panel * rule.n + node.
template <class F>
__device__ auto composite_term(const Rule &rule, const double *breaks, int k, F f) -> decltype(f(0.0)) {
    const int panel = k / rule.n;
    const int node = k - panel * rule.n;
    const double half = 0.5 * (breaks[panel + 1] - breaks[panel]);
    const double mid = mul(0.5, breaks[panel + 1] + breaks[panel]);
    return scaled(half, scaled(rule.weights[node], f(mid + mul(half, rule.nodes[node]))));
}

// Sum of `v` over the 32 lanes of a warp, returned to every lane.
__device__ Pair warp_sum(Pair v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v.up += __shfl_xor_sync(FULL_MASK, v.up, offset);
        v.down += __shfl_xor_sync(FULL_MASK, v.down, offset);
    }
    return v;
}
__device__ PairSlopes warp_sum(PairSlopes v) {
    return PairSlopes{warp_sum(v.value), warp_sum(v.by_te), warp_sum(v.by_mu)};
}

// The composite rule over `breaks` (in shared memory) by one warp: lanes stride over the
// flattened (panel, node) index; the sums are returned to every lane.
template <class F>
__device__ auto warp_integrate(const Rule &rule, const double *breaks, int count, F f) -> decltype(f(0.0)) {
    decltype(f(0.0)) sum = {};
    const int total = (count - 1) * rule.n;
    for (int k = threadIdx.x % 32; k < total; k += 32) {
        add(sum, composite_term(rule, breaks, k, f));
    }
    return warp_sum(sum);
}

// ---------------------------------------------------------------------------------------------
// Integrands (integrals.rs).

// 1/(1 + e^x) without overflow (fermi.rs occupation_from_exponent), in double (the CR kernels'
// Fermi integrals) or in the integrands' type.
template <class T>
__device__ T occupation_from_exponent(T x) {
    if (x > T(0)) {
        const T e = exp(-x);
        return e / (T(1) + e);
    }
    return T(1) / (T(1) + exp(x));
}

// F = 1/(1 + e^x) and 1 - F from the one exponential e^{-|x|} (integrals.rs Electrons::at):
// F = e^{-x}/(1 + e^{-x}) above x = 0, 1/(1 + e^x) below, each free of overflow on its side.
template <class T>
__device__ RealPair<T> fermi_pair(T x) {
    const T e = exp(-fabs(x));
    const T r = T(1) / (T(1) + e);
    return x > T(0) ? RealPair<T>{e * r, r} : RealPair<T>{r, e * r};
}

// Occupation F(eps) and blocking 1 - F(eps) (paper eqs. 1, 3), as (up, down) = (F, 1 - F);
// Maxwell-Boltzmann: (e^{(mu - eps)/T}, 1).
template <class T>
__device__ RealPair<T> occupation_and_blocking(const Conditions &c, double eps) {
    const T x = (eps - c.mu) / c.te;
    if (c.stats == FERMI_DIRAC) {
        return fermi_pair(x);
    }
    return RealPair<T>{exp(-x), T(1)};
}

// An occupation factor and its slopes at eps (integrals.rs Occupation): F, 1 - F, their
// derivatives by mu, and x = (eps - mu)/T (d/dT = x d/dmu). Double only (the CR runs).
struct Occupation {
    double f, blocking, df_dmu, dblocking_dmu, x;
};

__device__ Occupation occupation_slopes(const Conditions &c, double eps) {
    const double x = (eps - c.mu) / c.te;
    if (c.stats == FERMI_DIRAC) {
        const RealPair<double> o = fermi_pair(x);
        const double s = o.up * o.down * c.inverse_te;
        return Occupation{o.up, o.down, s, -s, x};
    }
    const double f = exp(-x);
    return Occupation{f, 1.0, f * c.inverse_te, 0.0, x};
}

// One occupation factor, F or 1 - F, as (value, d/dmu, x) (integrals.rs Factor).
struct Factor {
    double value, by_mu, x;
};
__device__ Factor occupied(const Occupation &o) { return Factor{o.f, o.df_dmu, o.x}; }
__device__ Factor blocked(const Occupation &o) { return Factor{o.blocking, o.dblocking_dmu, o.x}; }

// (d/dT, d/dmu) of a product of two occupation factors a(eps_a) b(eps_b) (integrals.rs
// product_slopes).
struct Slope {
    double te, mu;
};
__device__ Slope product_slopes(const Factor &a, const Factor &b) {
    const double by_mu_a = a.by_mu * b.value;
    const double by_mu_b = a.value * b.by_mu;
    return Slope{mul(a.x, by_mu_a) + mul(b.x, by_mu_b), by_mu_a + by_mu_b};
}

// w a_up b_up (up) and w a_down b_down (down) with their slopes (integrals.rs weighted_products).
__device__ PairSlopes weighted_products(double w, const Factor &a_up, const Factor &b_up, const Factor &a_down,
                                        const Factor &b_down) {
    const Slope up = product_slopes(a_up, b_up);
    const Slope down = product_slopes(a_down, b_down);
    return PairSlopes{{w * a_up.value * b_up.value, w * a_down.value * b_down.value},
                      {w * up.te, w * down.te},
                      {w * up.mu, w * down.mu}};
}

// Blocking factor 1 - F(eps) alone (the second member of occupation_and_blocking).
template <class T>
__device__ T blocking(const Conditions &c, double eps) {
    const T x = (eps - c.mu) / c.te;
    return c.stats == FERMI_DIRAC ? fermi_pair(x).down : T(1);
}

// Collision strength, paper eq. 6: B0 ln x + B1 + B2/x + B3/x^2 + B4/x^3 + B5/x^4.
template <class T>
__device__ T collision_strength(const T *b, T x) {
    const T r = T(1) / x;
    return mul(b[0], log(x)) + b[1] + mul(r, b[2] + mul(r, b[3] + mul(r, b[4] + mul(r, b[5]))));
}

// Mott-BELI differential ionization cross-section, paper eq. 8, in units of 1e-13 cm^2 eV^2 per
// eV^3, at one incident energy e0 with every factor that does not depend on the outgoing energy
// e1 formed once (integrals.rs CrossSection): for ionization energy ei [eV], BELI c[0..5),
// a = (sqrt(e0^2 + 4 ei^2) - e0)/2 (formed in double by the caller), b = a + ei and
// e2 = e0 - ei - e1,
// dsigma/d eps1 = A/(2 e0) [1/((e1 + a)(e1 + b)) + 1/((e2 + a)(e2 + b))]
//   + sum_{k=1..4} k B_k (e1^{k-1} + e2^{k-1}) / (2 ei e0^{k+1}).
template <class T>
struct CrossSection {
    double shared;  // e0 - ei: e2 = shared - e1 (double, as the occupations take it)
    T a, b;
    T mott;         // A / (2 e0)
    T powers[4];    // k B_k / (2 ei e0^{k+1}), k = 1..4
};

template <class T>
__device__ CrossSection<T> cross_section_at(const T *c, double ei, double e0, double a) {
    CrossSection<T> s;
    const double scale = 1.0 / (2.0 * ei * e0);
    double pe0 = e0;
    for (int k = 1; k < 5; ++k) {
        s.powers[k - 1] = (T)((double)k * (double)c[k] / pe0 * scale);
        pe0 *= e0;
    }
    s.shared = e0 - ei;
    s.a = (T)a;
    s.b = (T)(a + ei);
    s.mott = (T)((double)c[0] * ei * scale);
    return s;
}

// 1/q1 + 1/q2: one quotient in double (q1 q2 stays within 1e-60..1e40 over the rates' domain),
// two reciprocals in single precision, whose range the product could leave.
__device__ __forceinline__ double reciprocal_sum(double q1, double q2) { return (q1 + q2) / (q1 * q2); }
__device__ __forceinline__ float reciprocal_sum(float q1, float q2) { return 1.0f / q1 + 1.0f / q2; }

// dsigma/d eps1 of `s` at outgoing energies e1 and e2 = s.shared - e1 (both formed in double).
template <class T>
__device__ T cross_section(const CrossSection<T> &s, double e1_wide, double e2_wide) {
    const T e1 = (T)e1_wide, e2 = (T)e2_wide;
    const T q1 = (e1 + s.a) * (e1 + s.b);
    const T q2 = (e2 + s.a) * (e2 + s.b);
    return s.mott * reciprocal_sum(q1, q2) + T(2) * s.powers[0] + s.powers[1] * (e1 + e2) +
           s.powers[2] * (e1 * e1 + e2 * e2) + s.powers[3] * (e1 * e1 * e1 + e2 * e2 * e2);
}

// precision.rs single_precision_fits: FP32 holds the integrands of a transition of energy e [eV]
// in state c, with fit coefficients coef[0..n), when |mu|/T_e <= 30, (e + |mu|)/T_e <= 60 and every
// coefficient is 0 or of magnitude in [1e-30, 1e30].
__device__ bool fits_single(const Conditions &c, double e, const double *coef, int n) {
    bool fits = fabs(c.mu) / c.te <= 30.0 && (e + fabs(c.mu)) / c.te <= 60.0;
    for (int k = 0; k < n; ++k) {
        const double m = fabs(coef[k]);
        fits = fits && (m == 0.0 || (m >= 1e-30 && m <= 1e30));
    }
    return fits;
}

// Black-body photon flux per unit photon energy PHI eps^2 / (e^{eps/T_r} - 1)
// [cm^-2 s^-1 eV^-1]; `phi` = 8 pi c / (hc)^3 [cm^-2 s^-1 eV^-3].
__device__ double black_body_flux(double phi, double eps, double tr) {
    return phi * eps * eps / expm1(eps / tr);
}

// ln(1 + e^x) without overflow or loss of digits. Double only, single precision included: the
// inverse-bremsstrahlung integrand is a difference of two of these, which FP32 would cancel.
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
// One integral by one warp: lane 0 builds the breakpoints in `breaks` (this warp's shared-memory
// row) and broadcasts their count, the lanes share the composite sum; every lane gets the result. Used by the batched kernels
// and by the collisional-radiative kernel.

// Excitation integrals (up, down) without the prefactor K and the weights (integrals.rs excitation),
// with their slopes when SLOPES (integrals.rs excitation_with_slopes; T = double).
template <class T, bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type excitation_warp(const Rule &rule, const Conditions &c, double e,
                                                         const double *b, double thermal, double *breaks) {
    int count = 0;
    if (threadIdx.x % 32 == 0) {
        count = excitation_breakpoints(c, e, thermal, breaks);
    }
    __syncwarp();
    count = __shfl_sync(FULL_MASK, count, 0);
    T fit[6];
    for (int k = 0; k < 6; ++k) {
        fit[k] = b[k];
    }
    const auto sum = warp_integrate(rule, breaks, count, [&](double eps) {
        if constexpr (SLOPES) {
            const double omega_eps = collision_strength<double>(fit, eps / e);
            const Occupation a = occupation_slopes(c, eps);
            const Occupation o = occupation_slopes(c, eps - e);
            return weighted_products(omega_eps, occupied(a), blocked(o), occupied(o), blocked(a));
        } else {
            const T omega_eps = collision_strength<T>(fit, eps / e);
            const RealPair<T> in = occupation_and_blocking<T>(c, eps);
            const RealPair<T> out = occupation_and_blocking<T>(c, eps - e);
            return Pair{omega_eps * in.up * out.down, omega_eps * out.up * in.down};
        }
    });
    __syncwarp();
    return sum;
}

// Photoionization rate and heating integrals (integrals.rs photoionization), with their slopes
// when SLOPES (integrals.rs photoionization_with_slopes: only the blocking factor moves).
template <class T, bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type photoionization_warp(const Rule &rule, const Conditions &c, double e,
                                                             double d0, double d1, double phi, double thermal,
                                                             double radiation, double *breaks) {
    int count = 0;
    if (threadIdx.x % 32 == 0) {
        count = photoionization_breakpoints(c, e, thermal, radiation, breaks);
    }
    __syncwarp();
    count = __shfl_sync(FULL_MASK, count, 0);
    const auto sum = warp_integrate(rule, breaks, count, [&](double eps) {
        const double r = e / eps;
        const double sigma = r * r * (d0 + mul(d1, r));
        if constexpr (SLOPES) {
            const Occupation o = occupation_slopes(c, eps - e);
            const double absorbed = sigma * black_body_flux(phi, eps, c.tr);
            const double rate = absorbed * o.blocking;
            const double by_mu = absorbed * o.dblocking_dmu;
            return PairSlopes{{rate, (eps - e) * rate}, {o.x * by_mu, (eps - e) * (o.x * by_mu)}, {by_mu, (eps - e) * by_mu}};
        } else {
            const double rate = sigma * black_body_flux(phi, eps, c.tr) * (double)blocking<T>(c, eps - e);
            return Pair{rate, (eps - e) * rate};
        }
    });
    __syncwarp();
    return sum;
}

// The absorption factor A(w) of the inverse bremsstrahlung (ln[(1 + e^eta)/(1 + e^{eta - w/T})],
// Maxwell-Boltzmann e^eta (1 - e^{-w/T}); integrals.rs absorption_slopes).
__device__ double absorption(const Conditions &c, double eta, double w) {
    return c.stats == FERMI_DIRAC ? softplus(eta) - softplus(eta - w / c.te) : exp(eta) * -expm1(-w / c.te);
}

// (dA/dT, dA/dmu) of the absorption factor `absorbed` = A(w) (integrals.rs absorption_slopes):
// dA/dmu = s(eta) s(w/T - eta) (1 - e^{-w/T})/T (Maxwell-Boltzmann A/T), dA/dT = -eta dA/dmu -
// (w/T^2) s(eta - w/T) (Maxwell-Boltzmann e^{eta - w/T}), s(x) = 1/(1 + e^{-x}).
__device__ Slope absorption_slopes(const Conditions &c, double eta, double w, double absorbed) {
    const double te = c.te;
    double by_mu, edge;
    if (c.stats == FERMI_DIRAC) {
        by_mu = occupation_from_exponent(-eta) * occupation_from_exponent(eta - w / te) * -expm1(-w / te) / te;
        edge = occupation_from_exponent(w / te - eta);
    } else {
        by_mu = absorbed / te;
        edge = exp(eta - w / te);
    }
    return Slope{mul(-eta, by_mu) - mul(w / (te * te), edge), by_mu};
}

// The inverse-bremsstrahlung integral without its factor (integrals.rs inverse_bremsstrahlung) in
// `.up` (of the value, and of the slopes when SLOPES: d/dT and d/dmu of the integral alone).
template <bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type inverse_bremsstrahlung_warp(const Rule &rule, const Conditions &c,
                                                                    double eps_c, double thermal, double radiation,
                                                                    double *breaks) {
    int count = 0;
    if (threadIdx.x % 32 == 0) {
        count = inverse_bremsstrahlung_breakpoints(c, eps_c, thermal, radiation, breaks);
    }
    __syncwarp();
    count = __shfl_sync(FULL_MASK, count, 0);
    const double eta = c.mu / c.te;
    const auto sum = warp_integrate(rule, breaks, count, [&](double w) {
        const double absorbed = absorption(c, eta, w);
        const double photons = expm1(w / c.tr);
        if constexpr (SLOPES) {
            const Slope a = absorption_slopes(c, eta, w, absorbed);
            return PairSlopes{{absorbed / photons, 0.0}, {a.te / photons, 0.0}, {a.mu / photons, 0.0}};
        } else {
            return Pair{absorbed / photons, 0.0};
        }
    });
    __syncwarp();
    return sum;
}

// The outer integrand of the ionization double integral at incident energy e0 (integrals.rs
// ionization): 2 e0 F(e0) int_0^{(e0-E)/2} dsigma/d eps1 (1-F(eps1)) (1-F(eps2)) d eps1 (up) and
// 2 e0 (1-F(e0)) int ... F(eps1) F(eps2) d eps1 (down), the inner integral serial on this thread.
// With SLOPES (T = double), also their slopes (integrals.rs ionization_with_slopes): the inner
// integrals of the slopes of the inner occupations, and 2 e0 (F' I + F I') outside. The result is
// linear in the inner sums, so with `parts` > 1 it is the share of inner panels part, part +
// parts, ... (integrate_pair), and the `parts` shares add to the whole.
template <class T, bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type ionization_outer(const Rule &rule, const Conditions &c, double e,
                                                          const double *coef, double e0, int part = 0,
                                                          int parts = 1) {
    const double half = mul(0.5, e0 - e);
    if (half <= 0.0) {
        return {};
    }
    const double a = mul(0.5, sqrt(mul(e0, e0) + mul(4.0 * e, e)) - e0);
    Feature features[3] = {{0.0, a}};
    const double edges[2] = {c.mu, mul(2.0, half) - c.mu};
    const int n = push_edges(c, edges, 2, features, 1);
    double inner[MAX_BREAKPOINTS];
    const int m = graded_breakpoints(0.0, half, features, n, inner);
    T fit[5];
    for (int k = 0; k < 5; ++k) {
        fit[k] = coef[k];
    }
    const CrossSection<T> cross = cross_section_at<T>(fit, e, e0, a);
    const auto in = integrate_pair(rule, inner, m, [&](double e1) {
        const double e2 = cross.shared - e1;
        const T sigma = cross_section<T>(cross, e1, e2);
        if constexpr (SLOPES) {
            const Occupation o1 = occupation_slopes(c, e1);
            const Occupation o2 = occupation_slopes(c, e2);
            return weighted_products(sigma, blocked(o1), blocked(o2), occupied(o1), occupied(o2));
        } else {
            const RealPair<T> o1 = occupation_and_blocking<T>(c, e1);
            const RealPair<T> o2 = occupation_and_blocking<T>(c, e2);
            return Pair{sigma * o1.down * o2.down, sigma * o1.up * o2.up};
        }
    }, part, parts);
    if constexpr (SLOPES) {
        const Occupation o0 = occupation_slopes(c, e0);
        const double w = 2.0 * e0;
        const Pair v = in.value;
        return PairSlopes{{w * o0.f * v.up, w * o0.blocking * v.down},
                          {w * (mul(o0.x * o0.df_dmu, v.up) + mul(o0.f, in.by_te.up)),
                           w * (mul(o0.x * o0.dblocking_dmu, v.down) + mul(o0.blocking, in.by_te.down))},
                          {w * (mul(o0.df_dmu, v.up) + mul(o0.f, in.by_mu.up)),
                           w * (mul(o0.dblocking_dmu, v.down) + mul(o0.blocking, in.by_mu.down))}};
    } else {
        const RealPair<T> o0 = occupation_and_blocking<T>(c, e0);
        return Pair{2.0 * e0 * o0.up * in.up, 2.0 * e0 * o0.down * in.down};
    }
}

// Ionization integrals (up, down) without prefactor and weights, by one warp: lane 0 builds the
// outer breakpoints in `breaks` (shared), the lanes stride over the flattened outer (panel, node)
// index, each doing its inner integral serially. Used by the collisional-radiative kernels; the
// batched kernel, and the state-rates kernel for few states, spread one integral over a block.
// With SLOPES (T = double), the integrals' slopes too.
template <class T, bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type ionization_warp(const Rule &rule, const Conditions &c, double e,
                                                         const double *coef, double thermal, double *breaks) {
    int count = 0;
    if (threadIdx.x % 32 == 0) {
        count = ionization_breakpoints(c, e, thermal, breaks);
    }
    __syncwarp();
    count = __shfl_sync(FULL_MASK, count, 0);
    const auto sum = warp_integrate(rule, breaks, count,
                                    [&](double e0) { return ionization_outer<T, SLOPES>(rule, c, e, coef, e0); });
    __syncwarp();
    return sum;
}

// Ionization integrals (up, down) without prefactor and weights by the whole block: thread 0
// builds the outer breakpoints in `outer` (shared, with `outer_count`), the threads stride over the
// flattened outer (panel, node) index, each doing its inner integral serially, and the warps'
// sums meet in `partial` (shared, one per warp). The result is valid in thread 0. With SLOPES
// (T = double), the integrals' slopes too. When the block has at least twice as many threads as
// outer terms (a few tens at 8 nodes per panel), each outer term's inner panels are split over
// blockDim.x / terms neighbouring threads (ionization_outer's parts): the same sum, a shorter
// serial chain per thread.
template <class T, bool SLOPES = false>
__device__ typename SumsOf<SLOPES>::type ionization_block(const Rule &rule, const Conditions &c, double e,
                                                          const double *coef, double thermal, double *outer,
                                                          int *outer_count, typename SumsOf<SLOPES>::type *partial) {
    if (threadIdx.x == 0) {
        *outer_count = ionization_breakpoints(c, e, thermal, outer);
    }
    __syncthreads();
    typename SumsOf<SLOPES>::type sum = {};
    const int total = (*outer_count - 1) * rule.n;
    const int parts = max(1, (int)blockDim.x / max(total, 1));
    for (int k = threadIdx.x; k < total * parts; k += blockDim.x) {
        const int part = k % parts;
        add(sum, composite_term(rule, outer, k / parts, [&](double e0) {
                return ionization_outer<T, SLOPES>(rule, c, e, coef, e0, part, parts);
            }));
    }
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0) {
        partial[threadIdx.x / 32] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x / 32); ++w) {
            add(sum, partial[w]);
        }
    }
    return sum;
}

// ---------------------------------------------------------------------------------------------
// Kernels. Each takes one RatesLaunch (src/rates/cuda.rs RatesLaunch, same field order), filled
// by one launch function on the host; a kernel reads the fields its comment names, the others
// are 0 (NULL). Each batched kernel has a twin `<name>_single_kernel` with the same argument for
// single precision: FP32 integrands for the pairs fits_single allows, FP64 for the rest (a
// separate kernel, so that the double one keeps its own register allocation).

struct RatesLaunch {
    long long n_transitions;  // transitions of the batch (inverse bremsstrahlung: 0)
    long long n_states;       // plasma states
    int stats;                // FERMI_DIRAC, else 1 = Maxwell-Boltzmann
    int n_nodes;              // Gauss-Legendre nodes per panel
    const double *nodes;      // the rule on [-1, 1], n_nodes each
    const double *weights;
    double thermal;           // Quadrature::thermal_tail (decay length in T_e)
    double radiation;         // Quadrature::radiation_tail (decay length in T_r)
    double prefactor;         // excitation, ionization: K [eV^-1 s^-1, eV^-4 s^-1]; photoionization: phi
    const double *te;         // per state: T_e [eV]
    const double *mu;         // per state: mu [eV]
    const double *tr;         // per state: T_r [eV] (photoionization, inverse bremsstrahlung)
    const double *energy;     // per transition: E [eV]
    const double *coefficients;  // omega B0..B5 (excitation) or beli C0..C4 (ionization),
                                 // coefficient-major: coefficients[k * n_transitions + t]
    const double *g_lower;    // per transition (excitation, ionization)
    const double *g_upper;
    const double *d0;         // per transition: D0, D1 [cm^2] (photoionization)
    const double *d1;
    const double *eps_c;      // per state: hbar omega_p [eV] (inverse bremsstrahlung)
    const double *factor;     // per state: A_FF Z2N (sqrt(pi)/2) G T PHI (inverse bremsstrahlung)
    double *up;               // outputs, n_transitions x n_states: up[t + n_transitions * s]
    double *down;
    double *heating;          // inverse bremsstrahlung: per state [eV cm^-3 s^-1]
};
// cuda.rs asserts the same size of its RatesLaunch: a field added on one side only fails a build.
static_assert(sizeof(RatesLaunch) == 176, "RatesLaunch must match src/rates/cuda.rs");

// Collisional excitation J_up (up) and de-excitation J_down (down) [s^-1], paper eqs. 5, 6, 9:
// J_up = K int_E^hi Omega(eps/E) F(eps) (1 - F(eps - E)) d eps,
// J_down = (g_l/g_u) K int_E^hi Omega(eps/E) F(eps - E) (1 - F(eps)) d eps,
// K = `prefactor` = G sqrt(2/m_e) pi a0^2 Ry [eV^-1 s^-1]; `coefficients` holds B0..B5.
template <bool SINGLE>
__device__ void excitation_batch(const RatesLaunch &p) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {p.nodes, p.weights, p.n_nodes};
    const long long n_transitions = p.n_transitions;
    const long long n_pairs = n_transitions * p.n_states;
    for (long long pair = (long long)blockIdx.x * WARPS + warp; pair < n_pairs; pair += (long long)gridDim.x * WARPS) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = conditions_of(p.stats, p.te[s], p.mu[s], 0.0);
        const double e = p.energy[t];
        double b[6];
        for (int k = 0; k < 6; ++k) {
            b[k] = p.coefficients[k * n_transitions + t];
        }
        const Pair sum = SINGLE && fits_single(c, e, b, 6) ? excitation_warp<float>(rule, c, e, b, p.thermal, breaks[warp])
                                                           : excitation_warp<double>(rule, c, e, b, p.thermal, breaks[warp]);
        if (threadIdx.x % 32 == 0) {
            p.up[pair] = p.prefactor * sum.up;
            p.down[pair] = p.prefactor * sum.down * p.g_lower[t] / p.g_upper[t];
        }
        __syncwarp();
    }
}
extern "C" __global__ void __launch_bounds__(BLOCK) excitation_kernel(RatesLaunch p) { excitation_batch<false>(p); }
extern "C" __global__ void __launch_bounds__(BLOCK) excitation_single_kernel(RatesLaunch p) {
    excitation_batch<true>(p);
}

// Collisional ionization K_up (up) and three-body recombination K_down (down) [s^-1], paper
// eqs. 7, 8, 10:
// K_up = K int_E^hi d eps0 2 eps0 F(eps0) int_0^{(eps0-E)/2} d eps1 dsigma/d eps1 (1-F(eps1)) (1-F(eps2)),
// K_down = (g_l/g_u) K int_E^hi d eps0 2 eps0 (1-F(eps0)) int_0^{(eps0-E)/2} d eps1 dsigma/d eps1 F(eps1) F(eps2),
// eps2 = eps0 - E - eps1, K = `prefactor` = G sqrt(2/m_e) 1e-13 cm^2 eV^2 [eV^-4 s^-1];
// `coefficients` holds C0..C4. The inner range [0, (eps0-E)/2] is graded around 0 (scale a of
// eq. 8) and, under Fermi-Dirac, the edges mu and eps0 - E - mu.
template <bool SINGLE>
__device__ void ionization_batch(const RatesLaunch &p) {
    __shared__ double outer[MAX_BREAKPOINTS];
    __shared__ int outer_count;
    __shared__ Pair partial[WARPS];
    const Rule rule = {p.nodes, p.weights, p.n_nodes};
    const long long n_transitions = p.n_transitions;
    const long long n_pairs = n_transitions * p.n_states;
    for (long long pair = blockIdx.x; pair < n_pairs; pair += gridDim.x) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = conditions_of(p.stats, p.te[s], p.mu[s], 0.0);
        const double e = p.energy[t];
        double coef[5];
        for (int k = 0; k < 5; ++k) {
            coef[k] = p.coefficients[k * n_transitions + t];
        }
        const Pair sum = SINGLE && fits_single(c, e, coef, 5)
                             ? ionization_block<float>(rule, c, e, coef, p.thermal, outer, &outer_count, partial)
                             : ionization_block<double>(rule, c, e, coef, p.thermal, outer, &outer_count, partial);
        if (threadIdx.x == 0) {
            p.up[pair] = p.prefactor * sum.up;
            p.down[pair] = p.prefactor * sum.down * p.g_lower[t] / p.g_upper[t];
        }
        __syncthreads();
    }
}
extern "C" __global__ void __launch_bounds__(BLOCK) ionization_kernel(RatesLaunch p) { ionization_batch<false>(p); }
extern "C" __global__ void __launch_bounds__(BLOCK) ionization_single_kernel(RatesLaunch p) {
    ionization_batch<true>(p);
}

// Photoionization rate L (up) [s^-1] and photoelectron heating H (down) [eV s^-1] per ion in a
// black-body field at T_r, paper eqs. 11-13, 16:
// L = int_E^hi sigma(eps) Phi(eps) (1 - F(eps - E)) d eps, H = int_E^hi (eps - E) sigma Phi (1-F) d eps,
// sigma = D0 (E/eps)^2 + D1 (E/eps)^3 [cm^2]; `prefactor` = phi = 8 pi c / (hc)^3 [cm^-2 s^-1 eV^-3].
template <bool SINGLE>
__device__ void photoionization_batch(const RatesLaunch &p) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {p.nodes, p.weights, p.n_nodes};
    const long long n_transitions = p.n_transitions;
    const long long n_pairs = n_transitions * p.n_states;
    const double phi = p.prefactor;
    for (long long pair = (long long)blockIdx.x * WARPS + warp; pair < n_pairs; pair += (long long)gridDim.x * WARPS) {
        const long long t = pair % n_transitions;
        const long long s = pair / n_transitions;
        const Conditions c = conditions_of(p.stats, p.te[s], p.mu[s], p.tr[s]);
        const double e = p.energy[t];
        const double d0_t = p.d0[t];
        const double d1_t = p.d1[t];
        const Pair sum = SINGLE && fits_single(c, e, nullptr, 0)
                             ? photoionization_warp<float>(rule, c, e, d0_t, d1_t, phi, p.thermal, p.radiation, breaks[warp])
                             : photoionization_warp<double>(rule, c, e, d0_t, d1_t, phi, p.thermal, p.radiation, breaks[warp]);
        if (threadIdx.x % 32 == 0) {
            p.up[pair] = sum.up;
            p.down[pair] = sum.down;
        }
        __syncwarp();
    }
}
extern "C" __global__ void __launch_bounds__(BLOCK) photoionization_kernel(RatesLaunch p) {
    photoionization_batch<false>(p);
}
extern "C" __global__ void __launch_bounds__(BLOCK) photoionization_single_kernel(RatesLaunch p) {
    photoionization_batch<true>(p);
}

// Inverse-bremsstrahlung heating [eV cm^-3 s^-1] of each state, paper eqs. 14-15:
// H = factor int_{eps_c}^hi ln[(1 + e^{mu/T}) / (1 + e^{(mu-w)/T})] / (e^{w/T_r} - 1) dw
// (Maxwell-Boltzmann: e^{mu/T} (1 - e^{-w/T}) in place of the logarithm), with per state
// eps_c = hbar omega_p [eV] and factor = A_FF Z2N (sqrt(pi)/2) G T PHI [cm^-3 s^-1 eV^-1]
// (integrals.rs inverse_bremsstrahlung). One warp per state.
extern "C" __global__ void __launch_bounds__(BLOCK) inverse_bremsstrahlung_kernel(RatesLaunch p) {
    __shared__ double breaks[WARPS][MAX_BREAKPOINTS];
    const int warp = threadIdx.x / 32;
    const Rule rule = {p.nodes, p.weights, p.n_nodes};
    for (long long s = (long long)blockIdx.x * WARPS + warp; s < p.n_states; s += (long long)gridDim.x * WARPS) {
        const Conditions c = conditions_of(p.stats, p.te[s], p.mu[s], p.tr[s]);
        const double sum = inverse_bremsstrahlung_warp(rule, c, p.eps_c[s], p.thermal, p.radiation, breaks[warp]).up;
        if (threadIdx.x % 32 == 0) {
            p.heating[s] = p.factor[s] * sum;
        }
        __syncwarp();
    }
}

// ---------------------------------------------------------------------------------------------
// Collisional-radiative RK4 on the device (src/rates/cr, launched by src/rates/cr/cuda.rs): one
// block of CR_BLOCK threads per CR system advances it `n_steps` classical RK4 steps, recomputing
// every rate at every stage, with no host round trip. Transcribes src/rates/cr/host.rs (the
// right-hand side and the RK4 combination) and src/rates/fermi.rs (temperature from energy
// density).
//
// State y = (N_0..N_{n-1}, u): populations [cm^-3] and the free-electron kinetic energy density
// [eV cm^-3]. At every stage: n_e = sum Z_l N_l; (T_e, mu) by Newton on eta (the block computes
// the Fermi-Dirac integrals together); then the warps share the rate integrals (one integral per
// warp, the double integrals first), and thread 0 assembles dy/dt.

#define CR_BLOCK 256
#define CR_WARPS (CR_BLOCK / 32)
#define STATUS_OK 0
#define STATUS_ENERGY_BELOW_GROUND_STATE 1
#define STATUS_NOT_CONVERGED 2
// +infinity (NVRTC has no math.h INFINITY).
#define CR_INFINITY __longlong_as_double(0x7ff0000000000000LL)

// The atomic model, packed by the host (cr/cuda.rs PackedModel): in `real`, charge[n], then per
// excitation energy, B0..B5 (coefficient-major), g_lower, g_upper, then per ionization energy,
// C0..C4 (coefficient-major), g_lower, g_upper, D0, D1; in `index`, excitation lower, upper,
// ionization lower, upper.
struct CrModel {
    int n_levels, n_exc, n_ion;
    const double *charge;
    const double *exc_energy, *exc_omega, *exc_g_lower, *exc_g_upper;
    const double *ion_energy, *ion_beli, *ion_g_lower, *ion_g_upper, *ion_d0, *ion_d1;
    const int *exc_lower, *exc_upper, *ion_lower, *ion_upper;
};

__device__ CrModel unpack_model(int n_levels, int n_exc, int n_ion, const double *real, const int *index) {
    CrModel m;
    m.n_levels = n_levels;
    m.n_exc = n_exc;
    m.n_ion = n_ion;
    m.charge = real;
    m.exc_energy = m.charge + n_levels;
    m.exc_omega = m.exc_energy + n_exc;
    m.exc_g_lower = m.exc_omega + 6 * n_exc;
    m.exc_g_upper = m.exc_g_lower + n_exc;
    m.ion_energy = m.exc_g_upper + n_exc;
    m.ion_beli = m.ion_energy + n_ion;
    m.ion_g_lower = m.ion_beli + 5 * n_ion;
    m.ion_g_upper = m.ion_g_lower + n_ion;
    m.ion_d0 = m.ion_g_upper + n_ion;
    m.ion_d1 = m.ion_d0 + n_ion;
    m.exc_lower = index;
    m.exc_upper = index + n_exc;
    m.ion_lower = index + 2 * n_exc;
    m.ion_upper = index + 2 * n_exc + n_ion;
    return m;
}

// Constants from the host (cr/cuda.rs CrConstants), each computed by the Rust function named.
struct CrConstants {
    double thermal, radiation;  // Quadrature::thermal_tail, radiation_tail
    double tr;                  // T_r [eV]
    double exc_prefactor;       // constants::excitation_prefactor [eV^-1 s^-1]
    double ion_prefactor;       // constants::ionization_prefactor [eV^-4 s^-1]
    double phi;                 // constants::photon_flux_factor [cm^-2 s^-1 eV^-3]
    double kramers;             // constants::kramers_free_free [eV^7/2 cm^5]
    double degeneracy;          // constants::free_electron_degeneracy [eV^-3/2 cm^-3]
    double sqrt_pi;             // sqrt(pi)
    double plasma;              // 4 pi alpha (hbar c)^3 / m_e c^2: (hbar omega_p)^2 = plasma n_e [eV^2 cm^3]
    double nq;                  // constants::quantum_density_factor [eV^-3/2 cm^-3]
    double ground;              // (3/5) (hc)^2/(2 m_e c^2) (3/(8 pi))^{2/3}: u_0 = ground n_e^{5/3}
};

// The scalars of one cr_rk4_kernel launch (cr/cuda.rs CrLaunch, same field order).
struct CrLaunch {
    int n_systems, n_levels, n_exc, n_ion;
    int stats;   // 0 Fermi-Dirac, 1 Maxwell-Boltzmann
    int n_nodes; // Gauss-Legendre nodes per panel of the rates
    int fd_n;    // nodes of the Fermi-Dirac integrals
    int ionization_by_warp;  // state-rates kernels: 1 one warp per ionization, 0 one block (8-byte aligns `constants`)
    CrConstants constants;
    double dt;                // RK4 step [s]
    long long n_steps;        // steps of this launch
    long long first_step;     // index of its first step in the run (for error reports)
    long long scratch_len;    // doubles of scratch per system
    long long sample_stride;  // doubles per system in `sample`
};

// Per-system scratch in global memory (CR_SCRATCH doubles per level plus per transition).
struct CrScratch {
    double *y, *ys, *k1, *k2, *k3, *k4;
    double *j_up, *j_down, *k_up, *k_down, *l_rate, *l_heat;
    double *ib;
    double *eta;  // eta = mu/T of the last stage (warm start of the next); NaN before the first
};

__device__ CrScratch cr_scratch(double *base, int n_levels, int n_exc, int n_ion) {
    const int m = n_levels + 1;
    CrScratch s;
    s.y = base;
    s.ys = s.y + m;
    s.k1 = s.ys + m;
    s.k2 = s.k1 + m;
    s.k3 = s.k2 + m;
    s.k4 = s.k3 + m;
    s.j_up = s.k4 + m;
    s.j_down = s.j_up + n_exc;
    s.k_up = s.j_down + n_exc;
    s.k_down = s.k_up + n_ion;
    s.l_rate = s.k_down + n_ion;
    s.l_heat = s.l_rate + n_ion;
    s.ib = s.l_heat + n_ion;
    s.eta = s.ib + 1;
    return s;
}

// Sum of (a, b, c) over the block; the result is valid in thread 0.
__device__ void block_sum3(double *v, double (*partial)[3]) {
    for (int offset = 16; offset > 0; offset /= 2) {
        for (int i = 0; i < 3; ++i) {
            v[i] += __shfl_xor_sync(FULL_MASK, v[i], offset);
        }
    }
    if (threadIdx.x % 32 == 0) {
        for (int i = 0; i < 3; ++i) {
            partial[threadIdx.x / 32][i] = v[i];
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < CR_WARPS; ++w) {
            for (int i = 0; i < 3; ++i) {
                v[i] += partial[w][i];
            }
        }
    }
    __syncthreads();
}

// Normalised Fermi-Dirac integrals [F_{-1/2}, F_{1/2}, F_{3/2}](eta) by the whole block, valid in
// thread 0 (fermi.rs fermi_dirac_integrals: int_0^inf 2 t^{2j+1}/(1 + e^{t^2 - eta}) dt over
// [0, sqrt(max(eta, 0) + 60)], graded around 0 (scale 1) and the edge sqrt(eta) (scale
// min(1/sqrt(eta), 1)), 64-point rule `fd`).
__device__ void fermi_integrals_block(double eta, const Rule &fd, double *breaks, int *count, double (*partial)[3],
                                      double *out) {
    if (threadIdx.x == 0) {
        const double t_max = sqrt(fmax(eta, 0.0) + 60.0);
        Feature features[2] = {{0.0, 1.0}, {0.0, 0.0}};
        if (eta > 0.0) {
            const double t0 = sqrt(eta);
            features[1] = Feature{t0, fmin(1.0 / t0, 1.0)};
        }
        *count = graded_breakpoints(0.0, t_max, features, 2, breaks);
    }
    __syncthreads();
    double v[3] = {0.0, 0.0, 0.0};
    const int total = (*count - 1) * fd.n;
    for (int k = threadIdx.x; k < total; k += CR_BLOCK) {
        const int panel = k / fd.n;
        const int node = k - panel * fd.n;
        const double half = 0.5 * (breaks[panel + 1] - breaks[panel]);
        const double mid = mul(0.5, breaks[panel + 1] + breaks[panel]);
        const double t = mid + mul(half, fd.nodes[node]);
        const double t2 = t * t;
        const double w = mul(half, fd.weights[node]) * 2.0 * occupation_from_exponent(t2 - eta);
        v[0] += w;
        v[1] += mul(w, t2);
        v[2] += mul(w, t2 * t2);
    }
    block_sum3(v, partial);
    if (threadIdx.x == 0) {
        out[0] = v[0] / 1.772453850905516;   // Gamma(1/2)
        out[1] = v[1] / 0.886226925452758;   // Gamma(3/2)
        out[2] = v[2] / 1.329340388179137;   // Gamma(5/2)
    }
}

// (T_e, mu) of the electron gas of energy density u and density ne (fermi.rs
// temperature_from_energy_density), into shared te_mu; returns a STATUS_* code (same in every
// thread). Newton on g(eta) = ln F_{3/2} - (5/3) ln F_{1/2} = ln(u / ne^{5/3} / (1.5 N_Q^{-2/3})),
// kept inside a bracket, from the previous stage's eta. When `integrals` is not NULL, thread 0
// also writes there the normalised [F_{-1/2}, F_{1/2}, F_{3/2}] at the result's eta (e^eta each
// under Maxwell-Boltzmann): fermi.rs density_and_energy_slopes_from takes them.
__device__ int electron_conditions(int stats, double u, double ne, const CrConstants &k, const Rule &fd,
                                   double *eta_memory, double *te_mu, double *integrals = nullptr) {
    __shared__ double breaks[MAX_BREAKPOINTS];
    __shared__ int count;
    __shared__ double partial[CR_WARPS][3];
    __shared__ double eta_shared;
    __shared__ int state;  // 0: iterate, 1: converged, else failure
    if (stats != FERMI_DIRAC) {
        // Maxwell-Boltzmann: T = u / (1.5 n_e), mu = T ln(n_e / (N_Q T^{3/2})); u must stay > 0.
        if (threadIdx.x == 0) {
            const double t = u / (1.5 * ne);
            te_mu[0] = t;
            te_mu[1] = t * log(ne / (k.nq * pow(t, 1.5)));
            state = u > 0.0 && isfinite(u) && ne > 0.0 ? STATUS_OK : STATUS_ENERGY_BELOW_GROUND_STATE;
            if (integrals != nullptr) {
                const double f = exp(te_mu[1] / te_mu[0]);
                integrals[0] = integrals[1] = integrals[2] = f;
            }
        }
        __syncthreads();
        return state;
    }
    double lo = -CR_INFINITY, hi = CR_INFINITY, target = 0.0;
    if (threadIdx.x == 0) {
        state = 0;
        if (!(u > k.ground * pow(ne, 5.0 / 3.0) * (1.0 + 1e-13)) || !isfinite(u) || !(ne > 0.0)) {
            state = 100 + STATUS_ENERGY_BELOW_GROUND_STATE;
        }
        target = log(u / pow(ne, 5.0 / 3.0) / (1.5 * pow(k.nq, -2.0 / 3.0)));
        double eta = *eta_memory;
        if (isnan(eta)) {
            const double t_mb = u / (1.5 * ne);
            eta = fmin(log(ne / (k.nq * pow(t_mb, 1.5))), 50.0);
        }
        eta_shared = eta;
    }
    __syncthreads();
    double f[3];
    for (int iteration = 0; iteration < 300 && state == 0; ++iteration) {
        const double eta = eta_shared;
        fermi_integrals_block(eta, fd, breaks, &count, partial, f);
        if (threadIdx.x == 0) {
            const double g = log(f[2]) - 5.0 / 3.0 * log(f[1]);
            const double dg = f[1] / f[2] - 5.0 / 3.0 * f[0] / f[1];
            const double residual = g - target;
            if (residual > 0.0) {
                lo = fmax(lo, eta);
            } else {
                hi = fmin(hi, eta);
            }
            double next = eta - residual / dg;
            if (!(next > lo && next < hi)) {
                if (isfinite(lo) && isfinite(hi)) {
                    next = 0.5 * (lo + hi);
                } else if (isfinite(lo)) {
                    next = lo + 2.0 * (1.0 + fabs(lo));
                } else {
                    next = hi - 2.0 * (1.0 + fabs(hi));
                }
            }
            const double step = fabs(next - eta);
            eta_shared = next;
            if (step <= 4.0 * 2.220446049250313e-16 * fmax(fabs(next), 1.0)) {
                state = 1;
            } else if (iteration == 299) {
                state = 100 + STATUS_NOT_CONVERGED;
            }
        }
        __syncthreads();
    }
    if (state != 1) {
        return state - 100;
    }
    // F_{1/2} at the converged eta, then T and mu.
    const double eta = eta_shared;
    fermi_integrals_block(eta, fd, breaks, &count, partial, f);
    if (threadIdx.x == 0) {
        const double t = pow(ne / (k.nq * f[1]), 2.0 / 3.0);
        te_mu[0] = t;
        te_mu[1] = eta * t;
        *eta_memory = eta;
        if (integrals != nullptr) {
            integrals[0] = f[0];
            integrals[1] = f[1];
            integrals[2] = f[2];
        }
    }
    __syncthreads();
    return STATUS_OK;
}

// Writes the sums of one pair of integrals into `out`: the upward one times k at `up`, the
// downward one times k g_lower/g_upper at `down` (integrals.rs with_weights); a PairSlopes's
// slopes by T_e and mu go `stride` and 2 `stride` further.
__device__ void store_sums(double *out, long long stride, int up, int down, const Pair &v, double k, double g_lower,
                           double g_upper) {
    out[up] = k * v.up;
    out[down] = k * v.down * g_lower / g_upper;
}
__device__ void store_sums(double *out, long long stride, int up, int down, const PairSlopes &v, double k,
                           double g_lower, double g_upper) {
    store_sums(out, stride, up, down, v.value, k, g_lower, g_upper);
    store_sums(out + stride, stride, up, down, v.by_te, k, g_lower, g_upper);
    store_sums(out + 2 * stride, stride, up, down, v.by_mu, k, g_lower, g_upper);
}

// The BELI coefficients C0..C4 of ionization i of the model (coefficient-major in `ion_beli`).
struct Beli {
    double c[5];
};
__device__ Beli beli_of(const CrModel &m, int i) {
    Beli b;
    for (int q = 0; q < 5; ++q) {
        b.c[q] = m.ion_beli[q * m.n_ion + i];
    }
    return b;
}

// Stores ionization i's sums (K_up, K_down without prefactor and weights) into a state's output
// `o` (layout of cr_state_rates_kernel's output), as store_sums does.
template <class Sums>
__device__ void store_ionization(double *o, long long stride, const CrModel &m, const CrConstants &k, int i,
                                 const Sums &sum) {
    store_sums(o, stride, 2 * m.n_exc + i, 2 * m.n_exc + m.n_ion + i, sum, k.ion_prefactor, m.ion_g_lower[i],
               m.ion_g_upper[i]);
}

// One task of a state's rates by one warp, into `rates` (layout of cr_state_rates_kernel's output
// and of CrScratch from j_up on): tasks 0..n_exc-1 the excitations (J_up, J_down), n_exc..
// n_exc+n_ion-1 the photoionizations (L, H_L), n_exc+n_ion the inverse-bremsstrahlung heating for
// sum_Z Z^2 N_Z = `z2n` [cm^-3] at density `ne` [cm^-3]. With SLOPES, also the slopes by T_e and
// mu (`stride` and 2 `stride` further) and, at 3 `stride`, d/dn_e of the heating
// (integrals.rs inverse_bremsstrahlung_with_slopes). Lane 0 writes.
template <bool SLOPES = false>
__device__ void warp_rate_task(const CrModel &m, const Rule &rule, const Conditions &c, const CrConstants &k, int task,
                               double ne, double z2n, double *breaks, double *rates, long long stride) {
    const int n_exc = m.n_exc, n_ion = m.n_ion;
    const bool lane0 = threadIdx.x % 32 == 0;
    if (task < n_exc) {
        const int i = task;
        double b[6];
        for (int q = 0; q < 6; ++q) {
            b[q] = m.exc_omega[q * n_exc + i];
        }
        const auto sum = excitation_warp<double, SLOPES>(rule, c, m.exc_energy[i], b, k.thermal, breaks);
        if (lane0) {
            store_sums(rates, stride, i, n_exc + i, sum, k.exc_prefactor, m.exc_g_lower[i], m.exc_g_upper[i]);
        }
    } else if (task < n_exc + n_ion) {
        const int i = task - n_exc;
        const auto sum = photoionization_warp<double, SLOPES>(rule, c, m.ion_energy[i], m.ion_d0[i], m.ion_d1[i], k.phi,
                                                              k.thermal, k.radiation, breaks);
        if (lane0) {
            store_sums(rates, stride, 2 * n_exc + 2 * n_ion + i, 2 * n_exc + 3 * n_ion + i, sum, 1.0, 1.0, 1.0);
        }
    } else {
        const double eps_c = sqrt(mul(k.plasma, ne));
        const auto sum = inverse_bremsstrahlung_warp<SLOPES>(rule, c, eps_c, k.thermal, k.radiation, breaks);
        if (lane0) {
            const double factor = mul(mul(mul(mul(mul(mul(k.kramers, z2n), 0.5), k.sqrt_pi), k.degeneracy), c.te), k.phi);
            const int at = 2 * n_exc + 4 * n_ion;
            if constexpr (SLOPES) {
                const double s = sum.value.up;
                rates[at] = mul(factor, s);
                rates[stride + at] = factor * (s / c.te + sum.by_te.up);
                rates[2 * stride + at] = factor * sum.by_mu.up;
                const double at_cut = absorption(c, c.mu / c.te, eps_c) / expm1(eps_c / c.tr);
                rates[3 * stride] = -factor * at_cut * eps_c / (2.0 * ne);
            } else {
                rates[at] = mul(factor, sum.up);
            }
        }
    }
}

// dy/dt at `y` into `dy` (host.rs derivatives); returns a STATUS_* code (same in every thread).
__device__ int cr_derivatives(const CrModel &m, int stats, const Rule &rule, const Rule &fd, const CrConstants &k,
                              const CrScratch &s, const double *y, double *dy) {
    __shared__ double breaks[CR_WARPS][MAX_BREAKPOINTS];
    __shared__ double te_mu[2];
    __shared__ double ne_z2n[2];
    const int n = m.n_levels;
    if (threadIdx.x == 0) {
        double ne = 0.0, z2n = 0.0;
        for (int l = 0; l < n; ++l) {
            ne += mul(m.charge[l], y[l]);
            z2n += mul(mul(m.charge[l], m.charge[l]), y[l]);
        }
        ne_z2n[0] = ne;
        ne_z2n[1] = z2n;
    }
    __syncthreads();
    const int status = electron_conditions(stats, y[n], ne_z2n[0], k, fd, s.eta, te_mu);
    if (status != STATUS_OK) {
        return status;
    }
    const Conditions c = conditions_of(stats, te_mu[0], te_mu[1], k.tr);
    const int warp = threadIdx.x / 32;
    const bool lane0 = threadIdx.x % 32 == 0;
    const int n_tasks = 2 * m.n_ion + m.n_exc + 1;
    for (int task = warp; task < n_tasks; task += CR_WARPS) {
        if (task < m.n_ion) {
            const int i = task;
            const Beli coef = beli_of(m, i);
            const Pair sum = ionization_warp<double>(rule, c, m.ion_energy[i], coef.c, k.thermal, breaks[warp]);
            if (lane0) {
                s.k_up[i] = k.ion_prefactor * sum.up;
                s.k_down[i] = k.ion_prefactor * sum.down * m.ion_g_lower[i] / m.ion_g_upper[i];
            }
        } else {
            warp_rate_task(m, rule, c, k, task - m.n_ion, ne_z2n[0], ne_z2n[1], breaks[warp], s.j_up, 0);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int l = 0; l <= n; ++l) {
            dy[l] = 0.0;
        }
        for (int i = 0; i < m.n_exc; ++i) {
            const int lo = m.exc_lower[i], up_level = m.exc_upper[i];
            const double up = mul(s.j_up[i], y[lo]);
            const double down = mul(s.j_down[i], y[up_level]);
            dy[lo] += down - up;
            dy[up_level] += up - down;
            dy[n] += mul(m.exc_energy[i], down - up);
        }
        for (int i = 0; i < m.n_ion; ++i) {
            const int lo = m.ion_lower[i], up_level = m.ion_upper[i];
            const double up = mul(s.k_up[i] + s.l_rate[i], y[lo]);
            const double down = mul(s.k_down[i], y[up_level]);
            dy[lo] += down - up;
            dy[up_level] += up - down;
            dy[n] += mul(m.ion_energy[i], mul(s.k_down[i], y[up_level]) - mul(s.k_up[i], y[lo])) + mul(s.l_heat[i], y[lo]);
        }
        dy[n] += *s.ib;
    }
    __syncthreads();
    return STATUS_OK;
}

// ys = y + h k (host.rs `stage`), by the block.
__device__ void cr_stage(int m, const double *y, const double *k, double h, double *ys) {
    for (int i = threadIdx.x; i < m; i += CR_BLOCK) {
        ys[i] = y[i] + mul(h, k[i]);
    }
    __syncthreads();
}

// Advances every system (one block each) p.n_steps RK4 steps of p.dt [s] from its state in
// `scratch` (y at the start of each system's region, which has p.scratch_len doubles), then,
// when `sample` is not NULL, copies y into it (n_levels + 1 doubles per system, stride
// p.sample_stride). A failure stores its STATUS_* code and the step in `status[2 * system]`,
// `status[2 * system + 1]` and stops that system (later launches leave it alone).
extern "C" __global__ void __launch_bounds__(CR_BLOCK)
cr_rk4_kernel(CrLaunch p, const double *__restrict__ model_real, const int *__restrict__ model_index,
              const double *__restrict__ nodes, const double *__restrict__ weights,
              const double *__restrict__ fd_nodes, const double *__restrict__ fd_weights, double *scratch,
              double *sample, long long *status) {
    const int system = blockIdx.x;
    if (system >= p.n_systems || status[2 * system] != STATUS_OK) {
        return;
    }
    const int n_levels = p.n_levels, stats = p.stats;
    const CrConstants constants = p.constants;
    const double dt = p.dt;
    const CrModel m = unpack_model(n_levels, p.n_exc, p.n_ion, model_real, model_index);
    const Rule rule = {nodes, weights, p.n_nodes};
    const Rule fd = {fd_nodes, fd_weights, p.fd_n};
    const CrScratch s = cr_scratch(scratch + system * p.scratch_len, n_levels, p.n_exc, p.n_ion);
    const int dim = n_levels + 1;
    const double half_dt = 0.5 * dt;
    for (long long step = 0; step < p.n_steps; ++step) {
        int st = cr_derivatives(m, stats, rule, fd, constants, s, s.y, s.k1);
        if (st == STATUS_OK) {
            cr_stage(dim, s.y, s.k1, half_dt, s.ys);
            st = cr_derivatives(m, stats, rule, fd, constants, s, s.ys, s.k2);
        }
        if (st == STATUS_OK) {
            cr_stage(dim, s.y, s.k2, half_dt, s.ys);
            st = cr_derivatives(m, stats, rule, fd, constants, s, s.ys, s.k3);
        }
        if (st == STATUS_OK) {
            cr_stage(dim, s.y, s.k3, dt, s.ys);
            st = cr_derivatives(m, stats, rule, fd, constants, s, s.ys, s.k4);
        }
        if (st != STATUS_OK) {
            if (threadIdx.x == 0) {
                status[2 * system] = st;
                status[2 * system + 1] = p.first_step + step;
            }
            return;
        }
        for (int i = threadIdx.x; i < dim; i += CR_BLOCK) {
            s.y[i] += mul(dt / 6.0, s.k1[i] + mul(2.0, s.k2[i]) + mul(2.0, s.k3[i]) + s.k4[i]);
        }
        __syncthreads();
    }
    if (sample != nullptr) {
        for (int i = threadIdx.x; i < dim; i += CR_BLOCK) {
            sample[system * p.sample_stride + i] = s.y[i];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rates of one CR model at many electron states (src/rates/cr/mod.rs rates_at, launched by
// src/rates/cr/cuda.rs rates_at): the evaluation the stiff integrator needs for every stage of
// every system. Two launches:
// - cr_conditions_kernel: one block per state inverts (u, n_e) to (T_e, mu) (electron_conditions);
// - cr_state_rates_kernel: the rates of every state, spread over the whole GPU, in one of two
//   layouts chosen by p.ionization_by_warp (src/rates/cr/cuda.rs Layout):
//   - by block (few states, where latency counts): per state, one block per ionization (the
//     outer nodes over the block's threads, each inner integral serial, as ionization_kernel),
//     then blocks whose warps take one excitation, photoionization or the inverse
//     bremsstrahlung each;
//   - by warp (many states, where throughput counts): every task of every state, ionizations
//     included, one warp, over the flattened (state, task) index. An ionization's outer
//     integral has ~40-100 (panel, node) terms, so a block of 256 threads leaves most of them
//     idle; a warp keeps its lanes busy.
// Output per state (stride 2 n_exc + 4 n_ion + 1): J_up[n_exc], J_down[n_exc], K_up[n_ion],
// K_down[n_ion], L[n_ion], H_L[n_ion], inverse-bremsstrahlung heating per unit Z^2 N. Its twin
// cr_state_slopes_kernel also gives every rate's slopes (integrals.rs *_with_slopes): per state
// the rates, their d/dT_e, their d/dmu (each block of that stride), then d/dn_e of the heating.

// `states` holds (u [eV cm^-3], n_e [cm^-3]) per state and `eta_guess` a start for Newton's
// eta = mu/T (NaN: the Maxwell-Boltzmann guess); `conditions` receives (T_e, mu) per state,
// `integrals` the three Fermi integrals at its eta (electron_conditions) and `status` a STATUS_*
// code.
extern "C" __global__ void __launch_bounds__(CR_BLOCK)
cr_conditions_kernel(CrLaunch p, const double *__restrict__ fd_nodes, const double *__restrict__ fd_weights,
                     const double *__restrict__ states, const double *__restrict__ eta_guess,
                     double *__restrict__ conditions, double *__restrict__ integrals,
                     long long *__restrict__ status) {
    __shared__ double te_mu[2];
    const Rule fd = {fd_nodes, fd_weights, p.fd_n};
    for (long long s = blockIdx.x; s < p.n_systems; s += gridDim.x) {
        double eta_memory = eta_guess[s];
        const int st = electron_conditions(p.stats, states[2 * s], states[2 * s + 1], p.constants, fd, &eta_memory, te_mu,
                                           integrals + 3 * s);
        if (threadIdx.x == 0) {
            status[s] = st;
            conditions[2 * s] = te_mu[0];
            conditions[2 * s + 1] = te_mu[1];
        }
        __syncthreads();
    }
}

// The rates (and, with SLOPES, their slopes) of every state: output per state `stride` = 2 n_exc +
// 4 n_ion + 1 values, with SLOPES 3 `stride` + 1 (the values, their d/dT_e, their d/dmu, then
// d/dn_e of the inverse-bremsstrahlung heating).
template <bool SLOPES>
__device__ void state_rates(const CrLaunch &p, const double *model_real, const int *model_index, const double *nodes,
                            const double *weights, const double *states, const double *conditions,
                            const long long *status, double *out) {
    __shared__ double outer[MAX_BREAKPOINTS];
    __shared__ int outer_count;
    __shared__ typename SumsOf<SLOPES>::type partial[CR_WARPS];
    __shared__ double breaks[CR_WARPS][MAX_BREAKPOINTS];
    const CrModel m = unpack_model(p.n_levels, p.n_exc, p.n_ion, model_real, model_index);
    const CrConstants k = p.constants;
    const Rule rule = {nodes, weights, p.n_nodes};
    const int n_exc = p.n_exc, n_ion = p.n_ion;
    const int warp_tasks = n_exc + n_ion + 1;
    const long long stride = 2 * n_exc + 4 * n_ion + 1;
    const long long out_stride = SLOPES ? 3 * stride + 1 : stride;
    // Units of work: by warp, each warp takes one task of a state (its ionizations first, then
    // the tasks of warp_rate_task); by block, each block takes one ionization of a state or
    // CR_WARPS of its warp tasks. Every unit of a state at once, over the flattened index.
    const bool by_warp = p.ionization_by_warp != 0;
    const int warp = threadIdx.x / 32;
    const int per_state = n_ion + (by_warp ? warp_tasks : (warp_tasks + CR_WARPS - 1) / CR_WARPS);
    const long long n_units = (long long)p.n_systems * per_state;
    const long long first = by_warp ? (long long)blockIdx.x * CR_WARPS + warp : blockIdx.x;
    const long long step = by_warp ? (long long)gridDim.x * CR_WARPS : gridDim.x;
    for (long long unit = first; unit < n_units; unit += step) {
        const long long s = unit / per_state;
        const int slot = (int)(unit - s * per_state);
        if (status[s] != STATUS_OK) {
            continue;
        }
        const Conditions c = conditions_of(p.stats, conditions[2 * s], conditions[2 * s + 1], k.tr);
        double *o = out + s * out_stride;
        if (slot < n_ion) {
            const Beli coef = beli_of(m, slot);
            const double e = m.ion_energy[slot];
            if (by_warp) {
                const auto sum = ionization_warp<double, SLOPES>(rule, c, e, coef.c, k.thermal, breaks[warp]);
                if (threadIdx.x % 32 == 0) {
                    store_ionization(o, stride, m, k, slot, sum);
                }
            } else {
                const auto sum =
                    ionization_block<double, SLOPES>(rule, c, e, coef.c, k.thermal, outer, &outer_count, partial);
                if (threadIdx.x == 0) {
                    store_ionization(o, stride, m, k, slot, sum);
                }
                __syncthreads();
            }
            continue;
        }
        const int task = by_warp ? slot - n_ion : (slot - n_ion) * CR_WARPS + warp;
        if (task <= n_exc + n_ion) {
            warp_rate_task<SLOPES>(m, rule, c, k, task, states[2 * s + 1], 1.0, breaks[warp], o, stride);
        }
    }
}

// cr_state_rates_kernel, and its twin with the slopes cr_state_slopes_kernel (a separate kernel,
// so that the plain one keeps its own register allocation), over the same arguments.
#define CR_STATE_RATES_KERNEL(name, slopes)                                                                            \
    extern "C" __global__ void __launch_bounds__(CR_BLOCK)                                                            \
        name(CrLaunch p, const double *__restrict__ model_real, const int *__restrict__ model_index,                \
             const double *__restrict__ nodes, const double *__restrict__ weights,                                   \
             const double *__restrict__ states, const double *__restrict__ conditions,                               \
             const long long *__restrict__ status, double *__restrict__ out) {                                       \
        state_rates<slopes>(p, model_real, model_index, nodes, weights, states, conditions, status, out);           \
    }
CR_STATE_RATES_KERNEL(cr_state_rates_kernel, false)
CR_STATE_RATES_KERNEL(cr_state_slopes_kernel, true)
