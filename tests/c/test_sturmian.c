/*
 * test_sturmian.c: every C entry point of the Sturmian family (src/ffi/sturmian.rs) against
 * numbers known independently of the library, on whatever backend is in use (the CPU, or CUDA
 * on a GPU machine):
 *   (a) the Gauss-Legendre grid of [0, 40]: weights summing to 40, abscissas inside (0, 40) and
 *       at every (ns + 1)-th point, rmax last; any output may be NULL (the others the same);
 *   (b) hydrogenic channels (Z = 1) for both electrons, l = 0: P_1s = 2 r e^-r and
 *       P_2s = r (1 - r/2) e^(-r/2) / sqrt(2) evaluated on the grid's points: the overlap
 *       I[1] = identity (1e-10), I[-1/r] = -<1/r> = -1 and -1/4 (diagonal), the Slater integrals
 *       F0(1s,1s) = 5/8, F0(1s,2s) = 17/81, G0(1s,2s) = 16/729, F0(2s,2s) = 77/512 (1e-8) in both
 *       index orders, and the same channels in a complex basis scaled by e^(i theta): every
 *       product is bilinear (no conjugation), so the overlap is e^(2 i theta) and F0 e^(4 i theta);
 *   (c) the angular coefficient: 4 pi A = 1 for all-s states at l = 0, 0 when the triangle rule
 *       fails, and |A| = sqrt(3)/(4 pi) for (p p) 1S <- (s s) 1S with l = 1 (the reduced matrix
 *       element of P_1(cos theta_12), -1/sqrt(3), times 3/(4 pi));
 *   (d) the helium s-limit (GSF channels from atomgpu_sturmian_add_gsf, N = 8, L = 0 pair
 *       (0, 0)): E0 in (-2.8791, -2.87), above the s-limit -2.879028767 (Goldman) as a
 *       variational bound must be; S-normalised vectors; the Hamiltonian is the one-electron
 *       block plus F0 (4 pi A = 1 for s waves): H = h1 + R^0 (1e-12) and S = Oa x Ob;
 *   (f) atomgpu_sturmian_create_on_devices (2 GPUs, or 2 CPU engines; 1 with a note when one GPU
 *       is visible): channels 1s, 2s (l = 0) and 2p (P = r^2 e^(-r/2) / (2 sqrt 6), l = 1), L = 0
 *       pairs (0, 0) and (1, 1), H and S of 5 x 5 with ld 7 (rows 5-6 untouched): S = identity
 *       (the functions are orthonormal; the (0,0)-(1,1) blocks of S vanish) to 1e-10, H equal to
 *       one handle's within 1e-12 of its largest element, and n_devices 0 and 65 refused;
 *   (e) bad input: status ATOMGPU_ERR_INVALID_ARGUMENT, atomgpu_last_error_arg() at the argument,
 *       its name in the message, the outputs untouched (NULL handle output, l = -1, n = 0, ld too
 *       small, NaN values, unknown electron, a destroyed handle, a line-strength handle, ...).
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_sturmian.c -o test_sturmian \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-12345.0)
#define RMAX 40.0
#define NQ 96
#define NS 9
#define NP (NQ + 1 + NQ * NS)

static double abscissas[NQ], weights[NQ], points[NP];

static void check_abs(const char *what, double got, double want, double tol) {
    checks++;
    if (!(fabs(got - want) <= tol)) {
        failures++;
        printf("FAIL %s: got %.17g, want %.17g (difference %.3g > %.3g)\n", what, got, want, fabs(got - want), tol);
    }
}

static int all_equal(const double *x, size_t n, double value) {
    for (size_t i = 0; i < n; i++)
        if (x[i] != value) return 0;
    return 1;
}

static void fill(double *x, size_t n, double value) {
    for (size_t i = 0; i < n; i++) x[i] = value;
}

/* Hydrogenic radial functions P = r R (Z = 1). */
static double p1s(double r) { return 2.0 * r * exp(-r); }
static double p2s(double r) { return r * (1.0 - 0.5 * r) * exp(-0.5 * r) / sqrt(2.0); }

/* values[NP x 2] (column 0: 1s, column 1: 2s), beta and -1/r at the abscissas. */
static double hyd_values[2 * NP], hyd_beta[2] = {1.0, 2.0}, minus_one_over_r[NQ];

static void make_hydrogenic(void) {
    for (int i = 0; i < NP; i++) {
        hyd_values[i] = p1s(points[i]);
        hyd_values[NP + i] = p2s(points[i]);
    }
    for (int j = 0; j < NQ; j++) minus_one_over_r[j] = -1.0 / abscissas[j];
}

/* (a) */
static void test_grid(void) {
    fill(abscissas, NQ, SENTINEL), fill(weights, NQ, SENTINEL), fill(points, NP, SENTINEL);
    if (!check_ok("grid (40, 96, 9)", atomgpu_sturmian_grid(RMAX, NQ, NS, abscissas, weights, points))) exit(1);
    double sum = 0.0;
    int inside = 1, at_points = 1, ascending = 1;
    for (int j = 0; j < NQ; j++) {
        sum += weights[j];
        inside &= abscissas[j] > 0.0 && abscissas[j] < RMAX;
        at_points &= points[j * (NS + 1)] == abscissas[j];
    }
    for (int i = 1; i < NP; i++) ascending &= points[i] > points[i - 1];
    check_rel("grid: the weights sum to rmax", sum, RMAX, 1e-13);
    check("grid: abscissas inside (0, rmax)", inside);
    check("grid: abscissa j at point j (ns + 1)", at_points);
    check("grid: points ascending", ascending);
    check("grid: rmax last", points[NP - 1] == RMAX);
    /* Outputs not wanted may be NULL: the others come out the same. */
    double a2[NQ], w2[NQ], p2[NP];
    fill(a2, NQ, SENTINEL), fill(w2, NQ, SENTINEL), fill(p2, NP, SENTINEL);
    if (check_ok("grid: NULL points", atomgpu_sturmian_grid(RMAX, NQ, NS, a2, w2, NULL)))
        check("grid: NULL points: same abscissas and weights",
              memcmp(a2, abscissas, sizeof a2) == 0 && memcmp(w2, weights, sizeof w2) == 0);
    if (check_ok("grid: points alone", atomgpu_sturmian_grid(RMAX, NQ, NS, NULL, NULL, p2)))
        check("grid: points alone: the same points", memcmp(p2, points, sizeof p2) == 0);
}

/* Index of the two-electron function (na, nb) of a 2 x 2 channel pair in `order`. */
static int pair_index(int na, int nb, int order) { return order == ATOMGPU_ORDER_A_FASTEST ? na + 2 * nb : nb + 2 * na; }

/* (b), real basis. */
static void test_hydrogenic(void) {
    atomgpu_sturmian *h = NULL;
    char what[160];
    if (!check_ok("create (real, Gauss-Legendre)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, &h))) return;
    for (int32_t e = ATOMGPU_ELECTRON_A; e <= ATOMGPU_ELECTRON_B; e++) {
        snprintf(what, sizeof what, "add_channel hydrogenic 1s, 2s (electron %d)", (int)e);
        check_ok(what, atomgpu_sturmian_add_channel(h, e, 0, 2, hyd_values, NP, hyd_beta, minus_one_over_r, NULL));
    }
    /* One-electron matrices with a leading dimension of 3 (row 2 must stay untouched), 2 columns. */
    for (int32_t e = ATOMGPU_ELECTRON_A; e <= ATOMGPU_ELECTRON_B; e++) {
        double overlap[6], potential[6];
        fill(overlap, 6, SENTINEL), fill(potential, 6, SENTINEL);
        snprintf(what, sizeof what, "one_electron (electron %d, l = 0, ld = 3)", (int)e);
        if (!check_ok(what, atomgpu_sturmian_one_electron(h, e, 0, overlap, 3, 2, potential, 3, 2))) continue;
        check_abs("overlap <1s|1s> = 1", overlap[0], 1.0, 1e-10);
        check_abs("overlap <2s|1s> = 0", overlap[1], 0.0, 1e-10);
        check_abs("overlap <1s|2s> = 0", overlap[3], 0.0, 1e-10);
        check_abs("overlap <2s|2s> = 1", overlap[4], 1.0, 1e-10);
        check_abs("I[-1/r] <1s|-1/r|1s> = -1", potential[0], -1.0, 1e-10);
        check_abs("I[-1/r] <2s|-1/r|2s> = -1/4", potential[4], -0.25, 1e-10);
        check("one_electron: row 3 (past N) untouched", overlap[2] == SENTINEL && potential[5] == SENTINEL);
    }
    /* Slater integrals, l = 0, in both orders; ld = 5 (row 4 untouched) and 5 columns where 4 are
     * needed (column 4 untouched). */
    for (int32_t order = ATOMGPU_ORDER_A_FASTEST; order <= ATOMGPU_ORDER_B_FASTEST; order++) {
        enum { LD = 5 };
        double r[LD * 5];
        fill(r, LD * 5, SENTINEL);
        snprintf(what, sizeof what, "repulsion (0 0 0 0, l = 0, order %d)", (int)order);
        if (!check_ok(what, atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, order, r, LD, 5))) continue;
#define R(npa, npb, na, nb) r[pair_index(npa, npb, order) + LD * pair_index(na, nb, order)]
        check_abs("F0(1s,1s) = 5/8", R(0, 0, 0, 0), 5.0 / 8.0, 1e-8);
        check_abs("F0(1s,2s) = 17/81", R(0, 1, 0, 1), 17.0 / 81.0, 1e-8);
        check_abs("F0(2s,1s) = 17/81", R(1, 0, 1, 0), 17.0 / 81.0, 1e-8);
        check_abs("G0(1s,2s) = 16/729", R(0, 1, 1, 0), 16.0 / 729.0, 1e-8);
        check_abs("F0(2s,2s) = 77/512", R(1, 1, 1, 1), 77.0 / 512.0, 1e-8);
#undef R
        int untouched = 1;
        for (int c = 0; c < 4; c++) untouched &= r[4 + LD * c] == SENTINEL;
        check("repulsion: row past N'a N'b untouched", untouched);
        check("repulsion: column past Na Nb untouched", all_equal(r + 4 * LD, LD, SENTINEL));
    }
    /* repulsion_dev: NULL device pointer everywhere; a host pointer on the CPU backend. */
    {
        double host[16];
        fill(host, 16, SENTINEL);
        expect_invalid("repulsion_dev: NULL out_dev", atomgpu_sturmian_repulsion_dev(h, 0, 0, 0, 0, 0, 0, NULL, 16, 4), 8,
                   "out_dev", 1);
        int32_t backend = -1, major, minor;
        int64_t total, free_bytes;
        char name[128];
        if (check_ok("device_info", atomgpu_device_info(&backend, name, sizeof name, &total, &free_bytes, &major, &minor)) &&
            backend == ATOMGPU_BACKEND_CPU)
            expect_invalid("repulsion_dev on the CPU backend",
                       atomgpu_sturmian_repulsion_dev(h, 0, 0, 0, 0, 0, 0, host, 16, 4), 8, "out_dev",
                       all_equal(host, 16, SENTINEL));
        expect_invalid("repulsion_dev: len_out_dev = 0", atomgpu_sturmian_repulsion_dev(h, 0, 0, 0, 0, 0, 0, host, 0, 4), 9,
                       "len_out_dev",
                   all_equal(host, 16, SENTINEL));
    }
    atomgpu_sturmian_destroy(h);
}

/* (b), complex basis: the hydrogenic functions times c = e^(i theta). */
static void test_complex(void) {
    const double theta = 0.3;
    const double complex c = cexp(I * theta);
    double complex *values = malloc(2 * NP * sizeof *values), beta[2] = {1.0, 2.0};
    atomgpu_sturmian *h = NULL;
    if (values == NULL) return;
    for (int i = 0; i < 2 * NP; i++) values[i] = c * hyd_values[i];
    if (!check_ok("create (complex)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 1, &h))) goto done;
    for (int32_t e = ATOMGPU_ELECTRON_A; e <= ATOMGPU_ELECTRON_B; e++)
        check_ok("add_channel (complex)", atomgpu_sturmian_add_channel(h, e, 0, 2, (const double *)values, NP,
                                                                        (const double *)beta, minus_one_over_r, NULL));
    double complex overlap[4], potential[4], r[16];
    if (check_ok("one_electron (complex)",
                 atomgpu_sturmian_one_electron(h, ATOMGPU_ELECTRON_A, 0, (double *)overlap, 2, 2, (double *)potential, 2, 2))) {
        double complex c2 = c * c;
        check_abs("complex overlap <1s|1s> = c^2 (re)", creal(overlap[0]), creal(c2), 1e-10);
        check_abs("complex overlap <1s|1s> = c^2 (im)", cimag(overlap[0]), cimag(c2), 1e-10);
        check_abs("complex overlap <2s|1s> = 0", cabs(overlap[1]), 0.0, 1e-10);
        check_abs("complex I[-1/r] <2s|2s> = -c^2/4 (im)", cimag(potential[3]), -0.25 * cimag(c2), 1e-10);
    }
    if (check_ok("repulsion (complex)", atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, ATOMGPU_ORDER_A_FASTEST,
                                                                  (double *)r, 4, 4))) {
        double complex want = 5.0 / 8.0 * c * c * c * c;
        check_abs("complex F0(1s,1s) = 5/8 c^4 (re)", creal(r[0]), creal(want), 1e-8);
        check_abs("complex F0(1s,1s) = 5/8 c^4 (im)", cimag(r[0]), cimag(want), 1e-8);
    }
    atomgpu_sturmian_destroy(h);
done:
    free(values);
}

/* (c) */
static void test_angular(void) {
    double a = SENTINEL;
    if (check_ok("angular all s, l = 0", atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, 0, &a)))
        check_rel("4 pi A(0 0; 0 0 0 0; 0) = 1", 4.0 * k_pi * a, 1.0, 1e-14);
    a = SENTINEL;
    if (check_ok("angular all s, l = 1", atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, 1, &a)))
        check("A = 0 when the triangle rule fails (s s, l = 1)", a == 0.0);
    a = SENTINEL;
    if (check_ok("angular (p p) <- (s s), l = 1", atomgpu_sturmian_angular(0, 0, 1, 1, 0, 0, 1, &a)))
        check_rel("|A(0 0; 1 1 0 0; 1)| = sqrt(3)/(4 pi)", fabs(a), sqrt(3.0) / (4.0 * k_pi), 1e-13);
    a = SENTINEL;
    expect_invalid("angular: |m| > l_total", atomgpu_sturmian_angular(0, 1, 0, 0, 0, 0, 0, &a), 2, "m", a == SENTINEL);
    expect_invalid("angular: l = -1", atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, -1, &a), 7, "l", a == SENTINEL);
    expect_invalid("angular: NULL value", atomgpu_sturmian_angular(0, 0, 0, 0, 0, 0, 0, NULL), 8, "value", 1);
}

/* (d) */
static void test_helium_s_limit(void) {
    enum { N = 8, K = 3 };
    const atomgpu_gsf_params gsf = {2.0, -2.2, 2.0, 1.0, N + 10, 2.0};
    const atomgpu_sturmian_params params = {0, 0, -2.2, -2.2, 2.0, 1.0, ATOMGPU_EXCHANGE_NONE};
    const int32_t la[1] = {0}, lb[1] = {0};
    atomgpu_sturmian *h = NULL;
    double beta[N];
    int64_t n = -1;
    double *ham = NULL, *s = NULL, *h1 = NULL, *s1 = NULL, *r0 = NULL, *vectors = NULL;
    if (!check_ok("create (helium)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, &h))) return;
    fill(beta, N, SENTINEL);
    check_ok("add_gsf electron a, l = 0", atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, N, &gsf, beta));
    check_ok("add_gsf electron b, l = 0 (beta NULL)", atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_B, 0, N, &gsf, NULL));
    int ascending = 1;
    for (int i = 1; i < N; i++) ascending &= beta[i] > beta[i - 1];
    check("add_gsf: beta finite and ascending", ascending && isfinite(beta[0]) && isfinite(beta[N - 1]));
    if (!check_ok("hamiltonian_size", atomgpu_sturmian_hamiltonian_size(h, &params, 1, la, lb, &n))) goto done;
    check("hamiltonian_size = N^2", n == N * N);
    if (n != N * N) goto done;
    ham = malloc(n * n * sizeof *ham), s = malloc(n * n * sizeof *s), h1 = malloc(n * n * sizeof *h1);
    s1 = malloc(n * n * sizeof *s1), r0 = malloc(n * n * sizeof *r0), vectors = malloc(n * K * sizeof *vectors);
    if (!ham || !s || !h1 || !s1 || !r0 || !vectors) goto done;
    if (!check_ok("hamiltonian", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, ATOMGPU_ORDER_A_FASTEST, ham, n, n,
                                                              s, n, n)))
        goto done;
    if (check_ok("one_electron_block", atomgpu_sturmian_one_electron_block(h, &params, 0, 0, ATOMGPU_ORDER_A_FASTEST, h1,
                                                                           n, n, s1, n, n)) &&
        check_ok("repulsion (helium, l = 0)", atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, ATOMGPU_ORDER_A_FASTEST, r0, n, n))) {
        double dh = 0.0, ds = 0.0, scale = 0.0;
        for (int64_t i = 0; i < n * n; i++) {
            dh = fmax(dh, fabs(ham[i] - (h1[i] + r0[i])));
            ds = fmax(ds, fabs(s[i] - s1[i]));
            scale = fmax(scale, fabs(ham[i]));
        }
        check_abs("H = one-electron block + R^0 (s waves: 4 pi A = 1)", dh / scale, 0.0, 1e-12);
        check_abs("S = Oa x Ob (one_electron_block)", ds, 0.0, 1e-14);
    }
    double energies[K];
    fill(energies, K, SENTINEL);
    if (check_ok("solve", atomgpu_sturmian_solve(n, ham, n, s, n, K, energies, vectors, n, K))) {
        printf("helium s-limit, N = %d: E0 = %.10f (s-limit -2.879028767)\n", N, energies[0]);
        check("helium s-limit E0 in (-2.8791, -2.87)", energies[0] > -2.8791 && energies[0] < -2.87);
        check("solve: energies ascending", energies[0] <= energies[1] && energies[1] <= energies[2]);
        /* c^T S c = 1 for the lowest vector. */
        double norm = 0.0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) norm += vectors[i] * s[i + n * j] * vectors[j];
        check_abs("solve: c^T S c = 1", norm, 1.0, 1e-10);
        /* vectors = NULL: the energies alone (an eigenvalue-only solve), the same to 1e-12. */
        double energies_only[K];
        fill(energies_only, K, SENTINEL);
        if (check_ok("solve: NULL vectors", atomgpu_sturmian_solve(n, ham, n, s, n, K, energies_only, NULL, 0, 0)))
            for (int i = 0; i < K; i++) check_rel("solve: NULL vectors: same energies", energies_only[i], energies[i], 1e-12);
        /* The exchange-symmetrised (singlet) basis: N(N+1)/2 functions; the ground state is a
         * singlet, so its lowest energy is the direct one (P12 commutes with H). */
        atomgpu_sturmian_params singlet = params;
        singlet.exchange = ATOMGPU_EXCHANGE_SYMMETRIC;
        int64_t ns = -1;
        double e_singlet = SENTINEL;
        if (check_ok("hamiltonian_size (singlet)", atomgpu_sturmian_hamiltonian_size(h, &singlet, 1, la, lb, &ns)))
            check("hamiltonian_size (singlet) = N(N+1)/2", ns == N * (N + 1) / 2);
        if (ns == N * (N + 1) / 2 &&
            check_ok("hamiltonian (singlet)", atomgpu_sturmian_hamiltonian(h, &singlet, 1, la, lb, ATOMGPU_ORDER_A_FASTEST,
                                                                          h1, ns, ns, s1, ns, ns)) &&
            check_ok("solve (singlet)", atomgpu_sturmian_solve(ns, h1, ns, s1, ns, 1, &e_singlet, r0, ns, 1)))
            check_abs("singlet E0 = direct E0", e_singlet, energies[0], 1e-10);
        atomgpu_sturmian_params bad_exchange = params;
        bad_exchange.exchange = 3;
        int64_t untouched_size = -7;
        expect_invalid("hamiltonian_size: exchange = 3",
                   atomgpu_sturmian_hamiltonian_size(h, &bad_exchange, 1, la, lb, &untouched_size), 2, "params",
                   untouched_size == -7);
    }
    /* Bad input to solve, outputs untouched. */
    fill(energies, K, SENTINEL);
    expect_invalid("solve: n = 0", atomgpu_sturmian_solve(0, ham, n, s, n, K, energies, vectors, n, K), 1, "n",
               all_equal(energies, K, SENTINEL));
    expect_invalid("solve: ld_h < n", atomgpu_sturmian_solve(n, ham, n - 1, s, n, K, energies, vectors, n, K), 3, "ld_h",
               all_equal(energies, K, SENTINEL));
    expect_invalid("solve: NULL s", atomgpu_sturmian_solve(n, ham, n, NULL, n, K, energies, vectors, n, K), 4, "s",
               all_equal(energies, K, SENTINEL));
    expect_invalid("solve: k = 0", atomgpu_sturmian_solve(n, ham, n, s, n, 0, energies, vectors, n, K), 6, "k",
               all_equal(energies, K, SENTINEL));
    expect_invalid("solve: NULL energies", atomgpu_sturmian_solve(n, ham, n, s, n, K, NULL, vectors, n, K), 7, "energies", 1);
    expect_invalid("solve: ld_vectors < n", atomgpu_sturmian_solve(n, ham, n, s, n, K, energies, vectors, n - 1, K), 9,
                   "ld_vectors", all_equal(energies, K, SENTINEL));
    expect_invalid("solve: cols_vectors < k", atomgpu_sturmian_solve(n, ham, n, s, n, K, energies, vectors, n, K - 1), 10,
                   "cols_vectors", all_equal(energies, K, SENTINEL));
    /* Bad input to the assembly. */
    {
        const int32_t bad_l[1] = {-1}, missing[1] = {3};
        atomgpu_sturmian_params bad = params;
        int64_t size = -7;
        fill(h1, n * n, SENTINEL);
        bad.m = 1;
        expect_invalid("hamiltonian: M = 1 > L = 0", atomgpu_sturmian_hamiltonian(h, &bad, 1, la, lb, 0, h1, n, n, s1, n, n), 2,
                   "params", all_equal(h1, n * n, SENTINEL));
        bad = params;
        bad.energy_a = NAN;
        expect_invalid("hamiltonian: NaN energy", atomgpu_sturmian_hamiltonian(h, &bad, 1, la, lb, 0, h1, n, n, s1, n, n), 2,
                   "params", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: n_pairs = 0", atomgpu_sturmian_hamiltonian(h, &params, 0, la, lb, 0, h1, n, n, s1, n, n), 3,
                   "n_pairs", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: la = -1", atomgpu_sturmian_hamiltonian(h, &params, 1, bad_l, lb, 0, h1, n, n, s1, n, n), 4,
                   "la", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: no channel lb = 3", atomgpu_sturmian_hamiltonian(h, &params, 1, la, missing, 0, h1, n, n, s1, n, n),
                   5, "lb", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: order 2", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, 2, h1, n, n, s1, n, n), 6, "order",
                   all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: ld_h < n", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, 0, h1, n - 1, n, s1, n, n),
                   8, "ld_h", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: cols_h < n", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, 0, h1, n, n - 1, s1, n, n),
                   9, "cols_h", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: NULL s", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, 0, h1, n, n, NULL, n, n), 10,
                   "s", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian: cols_s < n", atomgpu_sturmian_hamiltonian(h, &params, 1, la, lb, 0, h1, n, n, s1, n, 0),
                   12, "cols_s", all_equal(h1, n * n, SENTINEL));
        expect_invalid("hamiltonian_size: n_pairs = -1", atomgpu_sturmian_hamiltonian_size(h, &params, -1, la, lb, &size),
                   3, "n_pairs", size == -7);
        expect_invalid("hamiltonian_size: NULL lb", atomgpu_sturmian_hamiltonian_size(h, &params, 1, la, NULL, &size), 5,
                   "lb", size == -7);
        expect_invalid("hamiltonian_size: NULL size", atomgpu_sturmian_hamiltonian_size(h, &params, 1, la, lb, NULL), 6,
                   "size", 1);
        expect_invalid("hamiltonian_size: NULL params", atomgpu_sturmian_hamiltonian_size(h, NULL, 1, la, lb, &size), 2,
                   "params", size == -7);
        expect_invalid("one_electron_block: ld_s < Na Nb",
                   atomgpu_sturmian_one_electron_block(h, &params, 0, 0, 0, h1, n, n, s1, n - 1, n), 10, "ld_s",
                   all_equal(h1, n * n, SENTINEL));
        expect_invalid("one_electron_block: cols_s < Na Nb",
                   atomgpu_sturmian_one_electron_block(h, &params, 0, 0, 0, h1, n, n, s1, n, n - 1), 11, "cols_s",
                   all_equal(h1, n * n, SENTINEL));
        expect_invalid("one_electron_block: NULL params",
                   atomgpu_sturmian_one_electron_block(h, NULL, 0, 0, 0, h1, n, n, s1, n, n), 2, "params",
                   all_equal(h1, n * n, SENTINEL));
        expect_invalid("repulsion: no channel lpa = 1", atomgpu_sturmian_repulsion(h, 1, 0, 0, 0, 0, 0, h1, n, n), 2, "lpa",
                   all_equal(h1, n * n, SENTINEL));
        expect_invalid("repulsion: ld_out < N'a N'b", atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, 0, h1, n - 1, n), 9,
                   "ld_out", all_equal(h1, n * n, SENTINEL));
        expect_invalid("repulsion: cols_out < Na Nb", atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, 0, h1, n, n - 1), 10,
                   "cols_out", all_equal(h1, n * n, SENTINEL));
        expect_invalid("add_gsf: NULL params", atomgpu_sturmian_add_gsf(h, 0, 1, N, NULL, NULL), 5, "params", 1);
        atomgpu_gsf_params bad_gsf = gsf;
        bad_gsf.n_parent = 401;
        expect_invalid("add_gsf: n_parent > 400", atomgpu_sturmian_add_gsf(h, 0, 1, N, &bad_gsf, beta), 5, "params", 1);
        bad_gsf = gsf;
        bad_gsf.energy = -1.0; /* above -Z^2/2 = -2 for l = 0 */
        fill(beta, N, SENTINEL);
        expect_invalid("add_gsf: energy above the lowest level", atomgpu_sturmian_add_gsf(h, 0, 0, N, &bad_gsf, beta), 5,
                   "params", all_equal(beta, N, SENTINEL));
        expect_invalid("add_gsf: l = 41", atomgpu_sturmian_add_gsf(h, 0, 41, N, &gsf, beta), 3, "l",
                   all_equal(beta, N, SENTINEL));
        /* The failed add_gsf calls left the channels in place. */
        check_ok("hamiltonian_size after failed calls", atomgpu_sturmian_hamiltonian_size(h, &params, 1, la, lb, &size));
        check("hamiltonian_size unchanged", size == N * N);
    }
done:
    free(ham), free(s), free(h1), free(s1), free(r0), free(vectors);
    atomgpu_sturmian_destroy(h);
}

/* (e) */
static void test_bad_input(void) {
    atomgpu_sturmian *h = NULL, *out = (atomgpu_sturmian *)&checks; /* a sentinel, never a handle */
    atomgpu_sturmian *const before = out;
    double a[NQ], w[NQ], p[NP], overlap[4], potential[4];
    fill(a, NQ, SENTINEL), fill(w, NQ, SENTINEL), fill(p, NP, SENTINEL);
    expect_invalid("grid: rmax = 0", atomgpu_sturmian_grid(0.0, NQ, NS, a, w, p), 1, "rmax", all_equal(a, NQ, SENTINEL));
    expect_invalid("grid: nq = 0", atomgpu_sturmian_grid(RMAX, 0, NS, a, w, p), 2, "nq", all_equal(a, NQ, SENTINEL));
    expect_invalid("grid: even ns", atomgpu_sturmian_grid(RMAX, NQ, 8, a, w, p), 3, "ns", all_equal(a, NQ, SENTINEL));
    expect_invalid("create: NULL handle output", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, NULL), 7, "handle", 1);
    expect_invalid("create: is_complex = 2", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 2, &out), 6, "is_complex",
               out == before);
    expect_invalid("create: NaN rmax", atomgpu_sturmian_create(NAN, NQ, NS, NULL, NULL, 0, &out), 1, "rmax", out == before);
    expect_invalid("create: weights without abscissas", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, weights, 0, &out), 4,
               "abscissas", out == before);
    {
        double decreasing[NQ];
        for (int j = 0; j < NQ; j++) decreasing[j] = abscissas[NQ - 1 - j];
        expect_invalid("create: abscissas decreasing", atomgpu_sturmian_create(RMAX, NQ, NS, decreasing, weights, 0, &out), 4,
                   "abscissas", out == before);
    }
    /* The caller's grid (the Gauss-Legendre one given explicitly) works. */
    if (!check_ok("create (caller's grid)", atomgpu_sturmian_create(RMAX, NQ, NS, abscissas, weights, 0, &h))) return;
    double *bad_values = malloc(2 * NP * sizeof *bad_values);
    if (bad_values == NULL) return;
    memcpy(bad_values, hyd_values, 2 * NP * sizeof *bad_values);
    bad_values[NP + 17] = NAN;
    expect_invalid("add_channel: NULL handle", atomgpu_sturmian_add_channel(NULL, 0, 0, 2, hyd_values, NP, hyd_beta,
                                                                        minus_one_over_r, NULL),
               1, "handle", 1);
    expect_invalid("add_channel: unknown electron 2",
               atomgpu_sturmian_add_channel(h, 2, 0, 2, hyd_values, NP, hyd_beta, minus_one_over_r, NULL), 2, "electron",
               1);
    expect_invalid("add_channel: l = -1",
               atomgpu_sturmian_add_channel(h, 0, -1, 2, hyd_values, NP, hyd_beta, minus_one_over_r, NULL), 3, "l", 1);
    expect_invalid("add_channel: l = 201",
               atomgpu_sturmian_add_channel(h, 0, 201, 2, hyd_values, NP, hyd_beta, minus_one_over_r, NULL), 3, "l", 1);
    expect_invalid("add_channel: n = 0",
               atomgpu_sturmian_add_channel(h, 0, 0, 0, hyd_values, NP, hyd_beta, minus_one_over_r, NULL), 4, "n", 1);
    expect_invalid("add_channel: NaN in values",
               atomgpu_sturmian_add_channel(h, 0, 0, 2, bad_values, NP, hyd_beta, minus_one_over_r, NULL), 5, "values", 1);
    expect_invalid("add_channel: NULL values",
               atomgpu_sturmian_add_channel(h, 0, 0, 2, NULL, NP, hyd_beta, minus_one_over_r, NULL), 5, "values", 1);
    expect_invalid("add_channel: ld_values < n_points",
               atomgpu_sturmian_add_channel(h, 0, 0, 2, hyd_values, NP - 1, hyd_beta, minus_one_over_r, NULL), 6, "ld_values",
               1);
    {
        const double inf_beta[2] = {1.0, INFINITY};
        expect_invalid("add_channel: infinite beta",
                   atomgpu_sturmian_add_channel(h, 0, 0, 2, hyd_values, NP, inf_beta, minus_one_over_r, NULL), 7, "beta",
                   1);
    }
    expect_invalid("add_channel: NULL generating", atomgpu_sturmian_add_channel(h, 0, 0, 2, hyd_values, NP, hyd_beta, NULL, NULL),
               8, "generating", 1);
    /* None of those added a channel. */
    fill(overlap, 4, SENTINEL), fill(potential, 4, SENTINEL);
    expect_invalid("repulsion: no channel after failed add_channel calls",
               atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, 0, overlap, 4, 1), 2, "lpa", all_equal(overlap, 4, SENTINEL));
    check_ok("add_channel electron a", atomgpu_sturmian_add_channel(h, 0, 0, 2, hyd_values, NP, hyd_beta, minus_one_over_r,
                                                                    minus_one_over_r));
    expect_invalid("one_electron: ld_overlap < N", atomgpu_sturmian_one_electron(h, 0, 0, overlap, 1, 2, potential, 2, 2), 5,
               "ld_overlap", all_equal(overlap, 4, SENTINEL) && all_equal(potential, 4, SENTINEL));
    expect_invalid("one_electron: ld_generating < N", atomgpu_sturmian_one_electron(h, 0, 0, overlap, 2, 2, potential, 1, 2),
               8, "ld_generating", all_equal(overlap, 4, SENTINEL) && all_equal(potential, 4, SENTINEL));
    expect_invalid("one_electron: cols_generating < N",
               atomgpu_sturmian_one_electron(h, 0, 0, overlap, 2, 2, potential, 2, 1), 9, "cols_generating",
               all_equal(overlap, 4, SENTINEL) && all_equal(potential, 4, SENTINEL));
    expect_invalid("one_electron: NULL generating", atomgpu_sturmian_one_electron(h, 0, 0, overlap, 2, 2, NULL, 2, 2), 7,
               "generating", all_equal(overlap, 4, SENTINEL));
    expect_invalid("one_electron: unknown electron", atomgpu_sturmian_one_electron(h, -1, 0, overlap, 2, 2, potential, 2, 2),
               2, "electron", all_equal(overlap, 4, SENTINEL));
    expect_invalid("repulsion: l = -1", atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, -1, 0, overlap, 4, 1), 6, "l",
               all_equal(overlap, 4, SENTINEL));
    /* A handle of another family. */
    {
        const double dipole[3] = {0.0, 0.0, 1.0};
        atomgpu_linestrength *ls = NULL;
        if (check_ok("linestrength_create", atomgpu_linestrength_create(1, dipole, 1, 0, &ls))) {
            atomgpu_sturmian *other = (atomgpu_sturmian *)ls;
            expect_invalid("one_electron: a line-strength handle",
                       atomgpu_sturmian_one_electron(other, 0, 0, overlap, 2, 2, potential, 2, 2), 1, "handle",
                       all_equal(overlap, 4, SENTINEL));
            expect_invalid("destroy: a line-strength handle", atomgpu_sturmian_destroy(other), 1, "handle", 1);
            check_ok("the line-strength handle survives", atomgpu_linestrength_destroy(ls));
        }
    }
    /* A destroyed handle. */
    check_ok("destroy", atomgpu_sturmian_destroy(h));
    expect_invalid("one_electron: a destroyed handle", atomgpu_sturmian_one_electron(h, 0, 0, overlap, 2, 2, potential, 2, 2), 1,
               "handle", all_equal(overlap, 4, SENTINEL) && all_equal(potential, 4, SENTINEL));
    expect_invalid("add_channel: a destroyed handle",
               atomgpu_sturmian_add_channel(h, 0, 0, 2, hyd_values, NP, hyd_beta, minus_one_over_r, NULL), 1, "handle", 1);
    expect_invalid("destroy twice", atomgpu_sturmian_destroy(h), 1, "handle", 1);
    check_ok("destroy NULL", atomgpu_sturmian_destroy(NULL));
    free(bad_values);
}

/* (f) */
static double p2p(double r) { return r * r * exp(-0.5 * r) / (2.0 * sqrt(6.0)); }

static int spread_handle(int32_t n_devices, atomgpu_sturmian **h) {
    static double p2p_values[NP];
    const double beta_2p[1] = {2.0};
    for (int i = 0; i < NP; i++) p2p_values[i] = p2p(points[i]);
    int32_t s = atomgpu_sturmian_create_on_devices(RMAX, NQ, NS, NULL, NULL, 0, n_devices, h);
    if (s == ATOMGPU_ERR_INVALID_ARGUMENT && atomgpu_last_error_arg() == 7 && n_devices > 1) {
        printf("note: %d GPUs asked for, fewer visible: the spread case runs on one\n", (int)n_devices);
        s = atomgpu_sturmian_create_on_devices(RMAX, NQ, NS, NULL, NULL, 0, 1, h);
    }
    if (!check_ok("create_on_devices", s)) return 0;
    int ok = 1;
    for (int32_t e = ATOMGPU_ELECTRON_A; e <= ATOMGPU_ELECTRON_B; e++) {
        ok &= check_ok("add_channel 1s, 2s", atomgpu_sturmian_add_channel(*h, e, 0, 2, hyd_values, NP, hyd_beta,
                                                                        minus_one_over_r, NULL));
        ok &= check_ok("add_channel 2p", atomgpu_sturmian_add_channel(*h, e, 1, 1, p2p_values, NP, beta_2p,
                                                                    minus_one_over_r, NULL));
    }
    return ok;
}

static void test_spread_over_devices(void) {
    enum { N = 5, LD = 7 };
    const atomgpu_sturmian_params params = {0, 0, -0.5, -0.5, 1.0, 1.0, ATOMGPU_EXCHANGE_NONE};
    const int32_t la[2] = {0, 1}, lb[2] = {0, 1};
    atomgpu_sturmian *spread = NULL, *one = NULL;
    double hs[LD * N], ss[LD * N], h1[LD * N], s1[LD * N];
    fill(hs, LD * N, SENTINEL), fill(ss, LD * N, SENTINEL), fill(h1, LD * N, SENTINEL), fill(s1, LD * N, SENTINEL);
    if (spread_handle(2, &spread) && spread_handle(1, &one) &&
        check_ok("hamiltonian (spread)",
                 atomgpu_sturmian_hamiltonian(spread, &params, 2, la, lb, ATOMGPU_ORDER_A_FASTEST, hs, LD, N, ss, LD, N)) &&
        check_ok("hamiltonian (one engine)",
                 atomgpu_sturmian_hamiltonian(one, &params, 2, la, lb, ATOMGPU_ORDER_A_FASTEST, h1, LD, N, s1, LD, N))) {
        double ds = 0.0, dh = 0.0, scale = 0.0;
        int untouched = 1;
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < N; i++) {
                ds = fmax(ds, fabs(ss[i + LD * j] - (i == j ? 1.0 : 0.0)));
                dh = fmax(dh, fabs(hs[i + LD * j] - h1[i + LD * j]));
                scale = fmax(scale, fabs(h1[i + LD * j]));
            }
            for (int i = N; i < LD; i++) untouched &= hs[i + LD * j] == SENTINEL && ss[i + LD * j] == SENTINEL;
        }
        check_abs("spread: S = identity (orthonormal 1s, 2s, 2p)", ds, 0.0, 1e-10);
        check_abs("spread: H equals one engine's", dh / scale, 0.0, 1e-12);
        check("spread: rows past n untouched", untouched);
    }
    atomgpu_sturmian_destroy(spread);
    atomgpu_sturmian_destroy(one);
    atomgpu_sturmian *out = (atomgpu_sturmian *)&checks; /* a sentinel, never a handle */
    atomgpu_sturmian *const before = out;
    expect_invalid("create_on_devices: n_devices = 0",
                   atomgpu_sturmian_create_on_devices(RMAX, NQ, NS, NULL, NULL, 0, 0, &out), 7, "n_devices", out == before);
    expect_invalid("create_on_devices: n_devices = 65",
                   atomgpu_sturmian_create_on_devices(RMAX, NQ, NS, NULL, NULL, 0, 65, &out), 7, "n_devices", out == before);
    expect_invalid("create_on_devices: NULL handle output",
                   atomgpu_sturmian_create_on_devices(RMAX, NQ, NS, NULL, NULL, 0, 1, NULL), 8, "handle", 1);
}

int main(void) {
    test_grid();
    make_hydrogenic();
    test_hydrogenic();
    test_complex();
    test_angular();
    test_helium_s_limit();
    test_spread_over_devices();
    test_bad_input();
    printf("test_sturmian: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
