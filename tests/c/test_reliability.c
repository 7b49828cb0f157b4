/*
 * test_reliability.c: the reliability suite of the C ABI. Every case runs in a forked child, so
 * that a crash or a hang is COUNTED rather than fatal to the suite, and the last line is
 * `N passed, M failed` (exit status 0 only when M is 0).
 *
 * The cases, generated over every exported function of include/atomgpu.h:
 *  - the argument classes: NULL for each pointer that must not be NULL, sizes 0 / -1 / 2^62,
 *    NaN and +Inf in each floating-point input, bad enums, bad CSR, small leading dimensions:
 *    status ATOMGPU_ERR_INVALID_ARGUMENT, atomgpu_last_error_arg() at the argument, its name in
 *    the message, every output untouched; and each function once with valid arguments (status 0,
 *    finite outputs), so that a refused variant is refused for its own argument;
 *  - allocation never aborts: sizes no memory holds are ATOMGPU_ERR_OUT_OF_MEMORY or, when their
 *    byte count overflows, invalid arguments; a valid 200000-level CR model;
 *  - handles defend themselves: double destroy, use after destroy and a handle of the other
 *    family for every function that takes one, made-up pointers;
 *  - no silent non-finite output: finite but absurd inputs are refused or ATOMGPU_ERR_NOT_FINITE,
 *    never NaN/Inf with status 0;
 *  - runaway runs: n_steps = 2^62 is refused, a time limit and a progress callback stop long runs
 *    (ATOMGPU_ERR_CANCELLED, outputs untouched);
 *  - the TDSE family's entry points likewise (a 32-point cylindrical fixture);
 *  - threads: 8 threads on one shared CR model, on one shared line-strength handle and on one
 *    shared Sturmian handle give bit-identical results.
 * A child that returns ATOMGPU_ERR_INTERNAL (a caught panic) fails its case.
 *
 * Build and run (from the repository root, after `cargo build --release`; scripts/test-all.sh
 * does both):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_reliability.c -o test_reliability \
 *      -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release -lm -pthread
 * RELIABILITY_FILTER=TEXT1|TEXT2 runs only the cases whose name contains one of the texts.
 */
#define _POSIX_C_SOURCE 200809L

#include "atomgpu.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include <unistd.h>

#define SENTINEL (-12345.0)
#define ISENTINEL (-7)
#define HUGE_SIZE ((int64_t)1 << 62)
#define CASE_SECONDS 60

/* ------------------------------------------------------------------------------------------ */
/* Verdicts (inside a child). */

static int fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    printf("    ");
    vprintf(format, args);
    printf("\n");
    va_end(args);
    return 1;
}

static char last_message[2048];

static const char *message(void) {
    atomgpu_last_error_message(last_message, sizeof last_message);
    return last_message;
}

/* `status` is ATOMGPU_ERR_INVALID_ARGUMENT at argument `position` whose message names `name`. */
static int refused(int32_t status, int32_t position, const char *name) {
    char quoted[128];
    snprintf(quoted, sizeof quoted, "`%s`", name);
    if (status != ATOMGPU_ERR_INVALID_ARGUMENT)
        return fail("status %d (%s), want ATOMGPU_ERR_INVALID_ARGUMENT at `%s`: %s", (int)status,
                    atomgpu_status_string(status), name, message());
    if (atomgpu_last_error_arg() != position)
        return fail("argument position %d, want %d (%s): %s", (int)atomgpu_last_error_arg(), (int)position, name,
                    message());
    if (strstr(message(), quoted) == NULL) return fail("message does not name %s: %s", quoted, message());
    return 0;
}

static int status_is(int32_t status, int32_t want, const char *fragment) {
    if (status != want)
        return fail("status %d (%s), want %d (%s): %s", (int)status, atomgpu_status_string(status), (int)want,
                    atomgpu_status_string(want), message());
    if (fragment != NULL && strstr(message(), fragment) == NULL)
        return fail("message lacks \"%s\": %s", fragment, message());
    return 0;
}

static int all_equal(const double *x, size_t n, double value) {
    for (size_t i = 0; i < n; i++)
        if (x[i] != value) return 0;
    return 1;
}

static int all_finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

static void fill(double *x, size_t n, double value) {
    for (size_t i = 0; i < n; i++) x[i] = value;
}

/* A progress callback that records what it saw and stops the call at its `stop_at`-th report
 * (never when stop_at <= 0). */
struct progress_record {
    int calls, stop_at;
    double done, total;
    char task[64];
};

static int32_t record_progress(void *user_data, const char *task, double done, double total) {
    struct progress_record *r = user_data;
    r->calls++;
    r->done = done, r->total = total;
    snprintf(r->task, sizeof r->task, "%s", task);
    return r->calls == r->stop_at;
}

/* ------------------------------------------------------------------------------------------ */
/* Breaking one argument of a call: `brk` = kind * 100 + the argument's 1-based position. */

enum { K_NULL = 1, K_ZERO = 2, K_NEG = 3, K_HUGE = 4, K_NAN = 5, K_INF = 6 };

static int brk = 0;

#define BRK(kind, pos) (brk == (kind)*100 + (pos))
/* A pointer argument at `pos`: NULL when broken so. */
#define P(ptr, pos) (BRK(K_NULL, pos) ? NULL : (ptr))
/* A size argument at `pos`: 0, -1 or 2^62 when broken so. */
#define N(n, pos) (BRK(K_ZERO, pos) ? 0 : BRK(K_NEG, pos) ? -1 : BRK(K_HUGE, pos) ? HUGE_SIZE : (n))
/* A floating-point scalar at `pos`: NaN or +Inf when broken so. */
#define X(x, pos) (BRK(K_NAN, pos) ? (double)NAN : BRK(K_INF, pos) ? (double)INFINITY : (x))

/* A floating-point input array at `pos`: NULL, or a copy whose element 0 is NaN or +Inf. */
static double poisoned_copies[16][64];
static int n_poisoned = 0;
static const double *A(const double *values, size_t n, int pos) {
    if (BRK(K_NULL, pos)) return NULL;
    if (!BRK(K_NAN, pos) && !BRK(K_INF, pos)) return values;
    double *copy = poisoned_copies[n_poisoned++ % 16];
    memcpy(copy, values, n * sizeof *copy);
    copy[0] = BRK(K_NAN, pos) ? (double)NAN : (double)INFINITY;
    return copy;
}

/* A field of a struct argument at `pos` (a descriptor's arrays and settings), broken only when
 * the argument row under test names that field: the rows of one struct argument share its
 * position, so the field's name tells which of them breaks (`brk_field`, set from the row). */
static const char *brk_field = NULL;
#define FIELD(name) (brk_field != NULL && strcmp(brk_field, (name)) == 0)
#define PF(ptr, pos, name) (FIELD(name) ? P(ptr, pos) : (ptr))
#define NF(n, pos, name) (FIELD(name) ? N(n, pos) : (n))
#define XF(x, pos, name) (FIELD(name) ? X(x, pos) : (x))
#define AF(values, n, pos, name) (FIELD(name) ? A(values, n, pos) : (values))

/* ------------------------------------------------------------------------------------------ */
/* Fixtures (made inside each child). */

/* Rates: two plasma states, two transitions. */
static const double te[2] = {1.0, 10.0}, ne[2] = {1e21, 1e22}, tr[2] = {5.0, 50.0};
static const double energy[2] = {5.0, 10.0}, g_lo[2] = {1.0, 2.0}, g_up[2] = {3.0, 1.0};
static const double omega[12] = {0.5, 1.0, 0.3, -0.1, 0.0, 0.0, 0.2, 0.8, 0.1, 0.0, 0.0, 0.0};
static const double beli[10] = {3.0, -0.2, 2.0, -0.5, 0.0, 2.0, 0.1, 1.0, 0.0, 0.0};
static const double d0[2] = {5e-18, 3e-18}, d1[2] = {4e-19, 1e-19}, z2n[2] = {1e21, 2e22};
static const double u_of_state[2] = {1e22, 1e24};

/* CR: level 0 (Z = 1), level 1 (Z = 1), level 2 (Z = 2); excitation 0 -> 1, ionization 1 -> 2. */
#define NL 3
static const double charges[NL] = {1.0, 1.0, 2.0};
static const int64_t x_lower[1] = {0}, x_upper[1] = {1}, i_lower[1] = {1}, i_upper[1] = {2};
static const double x_energy[1] = {5.0}, i_energy[1] = {15.0};
static const double x_omega[6] = {0.5, 1.0, 0.3, -0.1, 0.0, 0.0}, i_beli[5] = {3.0, -0.2, 2.0, -0.5, 0.0};
static const double i_d0[1] = {5e-18}, i_d1[1] = {4e-19};
static const double pops[NL] = {6e20, 3e20, 1e20};

/* The CR model's descriptor: Maxwell-Boltzmann, p = 5 with 8 nodes, T_r = 1 eV. */
static atomgpu_cr_model_desc cr_desc(void) {
    atomgpu_cr_model_desc d = {NL,       charges, NULL, 1,    x_lower, x_upper, x_energy,
                               x_omega,  1,       i_lower, i_upper, i_energy, i_beli, i_d0,
                               i_d1,     ATOMGPU_STATS_MAXWELL_BOLTZMANN, 8, 5.0, 1.0};
    return d;
}

static atomgpu_cr *make_cr(void) {
    atomgpu_cr *model = NULL;
    atomgpu_cr_model_desc d = cr_desc();
    int32_t s = atomgpu_cr_create(&d, &model);
    if (s != ATOMGPU_OK) {
        printf("    fixture: atomgpu_cr_create failed: %s\n", message());
        exit(1);
    }
    return model;
}

static void cr_state(const atomgpu_cr *model, double y[NL + 1]) {
    if (atomgpu_cr_initial_state(model, pops, 3.0, y) != ATOMGPU_OK) {
        printf("    fixture: atomgpu_cr_initial_state failed: %s\n", message());
        exit(1);
    }
}

/* Line strengths: two vibrational functions, block 0 (J = 0: K = 0, tau = 0) with states at 0
 * and 100 cm^-1, block 1 (J = 1: K = 0, tau = 1) with states at 10 and 110 cm^-1, a batch of
 * the two J = 0 states loaded. */
static const double dipole[12] = {0.1, 0.2, 0.2, 0.1, 0.3, 0.1, 0.1, 0.3, 1.0, 0.3, 0.3, 0.8};
static const int64_t ls_v[2] = {0, 1};
static const int32_t ls_k[2] = {0, 0}, ls_tau0[2] = {0, 0}, ls_tau1[2] = {1, 1};
static const double ls_vectors[4] = {0.8, 0.6, -0.6, 0.8};
static const double ls_e0[2] = {0.0, 100.0}, ls_e1[2] = {10.0, 110.0};

static atomgpu_intensity_params ls_params(void) {
    atomgpu_intensity_params p = {296.0, 1.0, 0.0, {-1e9, 1e9}, {-1e9, 1e9}, {-1e9, 1e9}, 0.0, 0.0, 0.0, 4, 0, 0};
    return p;
}

static atomgpu_linestrength *make_ls(void) {
    atomgpu_linestrength *h = NULL;
    int32_t b0 = -1, b1 = -1;
    int ok = atomgpu_linestrength_create(2, dipole, 2, 0, &h) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(h, 0, 1.0, 2, ls_v, ls_k, ls_tau0, 0, NULL, NULL, NULL, &b0) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(h, 1, 3.0, 2, ls_v, ls_k, ls_tau1, 0, NULL, NULL, NULL, &b1) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(h, 0, 2, ls_e0, ls_vectors, 2) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(h, 1, 2, ls_e1, ls_vectors, 2) == ATOMGPU_OK &&
             atomgpu_linestrength_load_lower(h, 0, 2, ls_vectors, 2, 0.0) == ATOMGPU_OK;
    if (!ok) {
        printf("    fixture: line-strength handle: %s\n", message());
        exit(1);
    }
    return h;
}


/* Sturmian: a real basis on the grid (rmax 20, nq 8, ns 1: 17 points) with GSF channels of two
 * functions, l = 0, for both electrons (pair (0, 0): blocks of 4 x 4). */
#define ST_NQ 8
#define ST_NP (ST_NQ + 1 + ST_NQ)
static double st_abscissas[ST_NQ], st_weights[ST_NQ], st_points[ST_NP];
static double st_values[2 * ST_NP], st_generating[ST_NQ], st_central[ST_NQ];
static const double st_beta[2] = {1.0, 2.0};
static const int32_t st_la[1] = {0}, st_lb[1] = {0};
/* A symmetric H and a positive definite S, 4 x 4. */
static const double st_h[16] = {1.0, 0.1, 0.0, 0.0, 0.1, 2.0, 0.1, 0.0, 0.0, 0.1, 3.0, 0.1, 0.0, 0.0, 0.1, 4.0};
static const double st_s[16] = {1.0, 0.2, 0.0, 0.0, 0.2, 1.0, 0.2, 0.0, 0.0, 0.2, 1.0, 0.2, 0.0, 0.0, 0.2, 1.0};

static atomgpu_gsf_params st_gsf(void) {
    atomgpu_gsf_params p = {2.0, -2.2, 2.0, 1.0, 12, 2.0};
    return p;
}

static atomgpu_sturmian_params st_params(void) {
    atomgpu_sturmian_params p = {0, 0, -2.2, -2.2, 2.0, 1.0, ATOMGPU_EXCHANGE_NONE};
    return p;
}

static atomgpu_sturmian *make_st(void) {
    atomgpu_sturmian *h = NULL;
    atomgpu_gsf_params g = st_gsf();
    int ok = atomgpu_sturmian_grid(20.0, ST_NQ, 1, st_abscissas, st_weights, st_points) == ATOMGPU_OK;
    for (int i = 0; i < ST_NP; i++) st_values[i] = 2.0 * st_points[i] * exp(-st_points[i]);
    for (int i = 0; i < ST_NP; i++) st_values[ST_NP + i] = st_points[i] * exp(-0.5 * st_points[i]);
    for (int j = 0; j < ST_NQ; j++) st_generating[j] = -1.0 / st_abscissas[j], st_central[j] = -2.0 / st_abscissas[j];
    ok = ok && atomgpu_sturmian_create(20.0, ST_NQ, 1, NULL, NULL, 0, &h) == ATOMGPU_OK &&
         atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, 2, &g, NULL) == ATOMGPU_OK &&
         atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_B, 0, 2, &g, NULL) == ATOMGPU_OK;
    if (!ok) {
        printf("    fixture: Sturmian handle: %s\n", message());
        exit(1);
    }
    return h;
}

/* ------------------------------------------------------------------------------------------ */
/* One call per function, with argument `brk` broken (0: all valid). Each fills its outputs with
 * sentinels first and returns the status; `untouched` and `finite` say what became of them. */

static int untouched, finite;

static int32_t call_chemical_potential(void) {
    double mu[2];
    fill(mu, 2, SENTINEL);
    int32_t s = atomgpu_rates_chemical_potential((int32_t)N(ATOMGPU_STATS_FERMI_DIRAC, 1), N(2, 2), A(te, 2, 3),
                                                 A(ne, 2, 4), P(mu, 5));
    untouched = all_equal(mu, 2, SENTINEL), finite = all_finite(mu, 2);
    return s;
}

static int32_t call_energy_density(void) {
    double u[2];
    fill(u, 2, SENTINEL);
    int32_t s = atomgpu_rates_energy_density(ATOMGPU_STATS_FERMI_DIRAC, N(2, 2), A(te, 2, 3), A(ne, 2, 4), P(u, 5));
    untouched = all_equal(u, 2, SENTINEL), finite = all_finite(u, 2);
    return s;
}

static int32_t call_temperature(void) {
    double t[2], mu[2];
    fill(t, 2, SENTINEL), fill(mu, 2, SENTINEL);
    int32_t s = atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, N(2, 2), A(u_of_state, 2, 3), A(ne, 2, 4),
                                          P(t, 5), P(mu, 6));
    untouched = all_equal(t, 2, SENTINEL) && all_equal(mu, 2, SENTINEL), finite = all_finite(t, 2) && all_finite(mu, 2);
    return s;
}

static int32_t call_excitation(void) {
    double up[4], down[4];
    fill(up, 4, SENTINEL), fill(down, 4, SENTINEL);
    int32_t s = atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, X(5.0, 2), 8, N(2, 4), A(te, 2, 5), A(ne, 2, 6),
                                         N(2, 7), A(energy, 2, 8), A(omega, 12, 9), A(g_lo, 2, 10), A(g_up, 2, 11),
                                         P(up, 12), P(down, 13));
    untouched = all_equal(up, 4, SENTINEL) && all_equal(down, 4, SENTINEL);
    finite = all_finite(up, 4) && all_finite(down, 4);
    return s;
}

static int32_t call_ionization(void) {
    double up[4], down[4];
    fill(up, 4, SENTINEL), fill(down, 4, SENTINEL);
    int32_t s = atomgpu_rates_ionization(ATOMGPU_STATS_MAXWELL_BOLTZMANN, X(5.0, 2), 8, N(2, 4), A(te, 2, 5),
                                         A(ne, 2, 6), N(2, 7), A(energy, 2, 8), A(beli, 10, 9), A(g_lo, 2, 10),
                                         A(g_up, 2, 11), P(up, 12), P(down, 13));
    untouched = all_equal(up, 4, SENTINEL) && all_equal(down, 4, SENTINEL);
    finite = all_finite(up, 4) && all_finite(down, 4);
    return s;
}

static int32_t call_photoionization(void) {
    double rate[4], heating[4];
    fill(rate, 4, SENTINEL), fill(heating, 4, SENTINEL);
    int32_t s = atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, X(5.0, 2), 8, N(2, 4), A(te, 2, 5),
                                              A(ne, 2, 6), A(tr, 2, 7), N(2, 8), A(energy, 2, 9), A(d0, 2, 10),
                                              A(d1, 2, 11), P(rate, 12), P(heating, 13));
    untouched = all_equal(rate, 4, SENTINEL) && all_equal(heating, 4, SENTINEL);
    finite = all_finite(rate, 4) && all_finite(heating, 4);
    return s;
}

static int32_t call_inverse_bremsstrahlung(void) {
    double heating[2];
    fill(heating, 2, SENTINEL);
    int32_t s = atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, X(5.0, 2), 8, N(2, 4), A(te, 2, 5),
                                                     A(ne, 2, 6), A(tr, 2, 7), A(z2n, 2, 8), P(heating, 9));
    untouched = all_equal(heating, 2, SENTINEL), finite = all_finite(heating, 2);
    return s;
}

static int32_t call_cr_create(void) {
    atomgpu_cr *model = (atomgpu_cr *)&untouched; /* a sentinel value, never a handle */
    atomgpu_cr *before = model;
    atomgpu_cr_model_desc d = cr_desc();
    d.n_levels = NF(NL, 1, "n_levels"), d.charges = AF(charges, NL, 1, "charges");
    d.n_excitations = NF(1, 1, "n_excitations");
    d.excitation_lower = PF(x_lower, 1, "excitation_lower"), d.excitation_upper = PF(x_upper, 1, "excitation_upper");
    d.excitation_energy_ev = AF(x_energy, 1, 1, "excitation_energy_ev");
    d.excitation_omega = AF(x_omega, 6, 1, "excitation_omega");
    d.n_ionizations = NF(1, 1, "n_ionizations");
    d.ionization_lower = PF(i_lower, 1, "ionization_lower"), d.ionization_upper = PF(i_upper, 1, "ionization_upper");
    d.ionization_energy_ev = AF(i_energy, 1, 1, "ionization_energy_ev");
    d.ionization_beli = AF(i_beli, 5, 1, "ionization_beli");
    d.ionization_d0_cm2 = AF(i_d0, 1, 1, "ionization_d0_cm2"), d.ionization_d1_cm2 = AF(i_d1, 1, 1, "ionization_d1_cm2");
    d.accuracy_p = XF(5.0, 1, "accuracy_p"), d.tr_ev = XF(1.0, 1, "tr_ev");
    if (FIELD("stats") && BRK(K_NEG, 1)) d.stats = -1;
    if (FIELD("nodes") && BRK(K_NEG, 1)) d.nodes = -1;
    int32_t s = atomgpu_cr_create(PF(&d, 1, "desc"), BRK(K_NULL, 2) ? NULL : &model);
    untouched = model == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_cr_destroy(model);
    return s;
}

static atomgpu_cr *fixture_cr;
static atomgpu_linestrength *fixture_ls;
static atomgpu_sturmian *fixture_st;
static double fixture_y[NL + 1]; /* a valid state of fixture_cr */

static int32_t call_cr_n_levels(void) {
    int64_t n = ISENTINEL;
    int32_t s = atomgpu_cr_n_levels(P(fixture_cr, 1), P(&n, 2));
    untouched = n == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_cr_initial_state(void) {
    double y[NL + 1];
    fill(y, NL + 1, SENTINEL);
    int32_t s = atomgpu_cr_initial_state(P(fixture_cr, 1), A(pops, NL, 2), X(3.0, 3), P(y, 4));
    untouched = all_equal(y, NL + 1, SENTINEL), finite = all_finite(y, NL + 1);
    return s;
}

static int32_t call_cr_derivatives(void) {
    double y0[NL + 1], dydt[NL + 1], conditions[3];
    memcpy(y0, fixture_y, sizeof y0);
    fill(dydt, NL + 1, SENTINEL), fill(conditions, 3, SENTINEL);
    int32_t s = atomgpu_cr_derivatives(P(fixture_cr, 1), A(y0, NL + 1, 2), P(dydt, 3), P(conditions, 4));
    untouched = all_equal(dydt, NL + 1, SENTINEL) && all_equal(conditions, 3, SENTINEL);
    finite = all_finite(dydt, NL + 1) && all_finite(conditions, 3);
    return s;
}

static int32_t call_cr_run_rk4(void) {
    double y0[NL + 1], y[NL + 1], t[3], te_out[3], ne_out[3], p_out[3 * NL];
    int64_t n_samples = ISENTINEL;
    memcpy(y, fixture_y, sizeof y);
    if (BRK(K_NAN, 2)) y[0] = NAN;
    if (BRK(K_INF, 2)) y[NL] = INFINITY;
    memcpy(y0, y, sizeof y);
    fill(t, 3, SENTINEL), fill(te_out, 3, SENTINEL), fill(ne_out, 3, SENTINEL), fill(p_out, 3 * NL, SENTINEL);
    int32_t s = atomgpu_cr_run_rk4(P(fixture_cr, 1), P(y, 2), X(1e-16, 3), N(4, 4), N(2, 5), N(3, 6), P(&n_samples, 7),
                                   P(t, 8), P(te_out, 9), P(ne_out, 10), P(p_out, 11));
    untouched = n_samples == ISENTINEL && all_equal(t, 3, SENTINEL) && all_equal(te_out, 3, SENTINEL) &&
                all_equal(p_out, 3 * NL, SENTINEL) && memcmp(y, y0, sizeof y) == 0;
    finite = all_finite(y, NL + 1) && all_finite(t, 3) && all_finite(te_out, 3) && all_finite(p_out, 3 * NL);
    return s;
}

static int32_t call_cr_run_stiff(void) {
    double y0[NL + 1], y[NL + 1], te_out[2], ne_out[2], p_out[2 * NL];
    const double times[2] = {1e-15, 2e-15};
    memcpy(y, fixture_y, sizeof y);
    if (BRK(K_NAN, 2)) y[0] = NAN;
    if (BRK(K_INF, 2)) y[NL] = INFINITY;
    memcpy(y0, y, sizeof y);
    fill(te_out, 2, SENTINEL), fill(ne_out, 2, SENTINEL), fill(p_out, 2 * NL, SENTINEL);
    int32_t s = atomgpu_cr_run_stiff(P(fixture_cr, 1), P(y, 2), N(2, 3), A(times, 2, 4), X(1e-6, 5), X(1e-10, 6),
                                     P(te_out, 7), P(ne_out, 8), P(p_out, 9));
    untouched = all_equal(te_out, 2, SENTINEL) && all_equal(p_out, 2 * NL, SENTINEL) && memcmp(y, y0, sizeof y) == 0;
    finite = all_finite(y, NL + 1) && all_finite(te_out, 2) && all_finite(p_out, 2 * NL);
    return s;
}

static int32_t call_cr_run_stiff_systems(void) {
    double y0[2 * (NL + 1)], y[2 * (NL + 1)], te_out[4], ne_out[4], p_out[4 * NL];
    const double times[2] = {1e-15, 2e-15};
    memcpy(y, fixture_y, sizeof fixture_y);
    memcpy(y + NL + 1, fixture_y, sizeof fixture_y);
    if (BRK(K_NAN, 3)) y[NL + 1] = NAN;
    if (BRK(K_INF, 3)) y[2 * NL + 1] = INFINITY;
    memcpy(y0, y, sizeof y);
    fill(te_out, 4, SENTINEL), fill(ne_out, 4, SENTINEL), fill(p_out, 4 * NL, SENTINEL);
    int32_t s = atomgpu_cr_run_stiff_systems(P(fixture_cr, 1), N(2, 2), P(y, 3), N(2, 4), A(times, 2, 5), X(1e-6, 6),
                                             X(1e-10, 7), P(te_out, 8), P(ne_out, 9), P(p_out, 10));
    untouched = all_equal(te_out, 4, SENTINEL) && all_equal(p_out, 4 * NL, SENTINEL) && memcmp(y, y0, sizeof y) == 0;
    finite = all_finite(y, 2 * (NL + 1)) && all_finite(te_out, 4) && all_finite(p_out, 4 * NL);
    return s;
}

static int32_t call_cr_rate_matrix(void) {
    double m[NL * NL], m_energy[NL];
    fill(m, NL * NL, SENTINEL), fill(m_energy, NL, SENTINEL);
    int32_t s = atomgpu_cr_rate_matrix(P(fixture_cr, 1), X(3.0, 2), X(1e21, 3), P(m, 4), P(m_energy, 5));
    untouched = all_equal(m, NL * NL, SENTINEL) && all_equal(m_energy, NL, SENTINEL);
    finite = all_finite(m, NL * NL) && all_finite(m_energy, NL);
    return s;
}

static int32_t call_ls_create(void) {
    atomgpu_linestrength *h = (atomgpu_linestrength *)&untouched;
    atomgpu_linestrength *before = h;
    int32_t s = atomgpu_linestrength_create(N(2, 1), A(dipole, 12, 2), N(2, 3), BRK(K_NEG, 4) ? -1 : 0,
                                            BRK(K_NULL, 5) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_linestrength_destroy(h);
    return s;
}

static int32_t call_ls_add_block(void) {
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block(P(fixture_ls, 1), 1, X(1.0, 3), N(2, 4), P(ls_v, 5), P(ls_k, 6),
                                               P(ls_tau1, 7), BRK(K_NEG, 8) ? -1 : 0, NULL, NULL, NULL,
                                               P(&block, 12));
    untouched = block == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_ls_set_states(void) {
    int32_t s = atomgpu_linestrength_set_states(P(fixture_ls, 1), 1, N(2, 3), A(ls_e1, 2, 4), A(ls_vectors, 4, 5),
                                                N(2, 6));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_ls_load_lower(void) {
    int32_t s = atomgpu_linestrength_load_lower(P(fixture_ls, 1), 0, N(2, 3), A(ls_vectors, 4, 4), N(2, 5),
                                                X(0.0, 6));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_ls_half(void) {
    double half[4];
    fill(half, 4, SENTINEL);
    int32_t s = atomgpu_linestrength_half(P(fixture_ls, 1), 1, X(0.0, 3), P(half, 4), N(2, 5), N(2, 6));
    untouched = all_equal(half, 4, SENTINEL), finite = all_finite(half, 4);
    return s;
}

static int32_t call_ls_amplitudes(void) {
    double a[4];
    fill(a, 4, SENTINEL);
    int32_t s = atomgpu_linestrength_amplitudes(P(fixture_ls, 1), 1, X(0.0, 3), P(a, 4), N(2, 5), N(2, 6));
    untouched = all_equal(a, 4, SENTINEL), finite = all_finite(a, 4);
    return s;
}

/* The output arrays of a line list (8 lines) at argument `pos`, the field a row names broken: a
 * capacity of -1 or a NULL array. */
static atomgpu_line_arrays ls_lines(int pos, int64_t *up_id, int64_t *lo_id, double *a, double *nu, double *strength,
                                    double *intensity) {
    atomgpu_line_arrays lines = {FIELD("capacity") && BRK(K_NEG, pos) ? -1 : 8,
                                 PF(up_id, pos, "upper_id"),
                                 PF(lo_id, pos, "lower_id"),
                                 PF(a, pos, "einstein_a"),
                                 PF(nu, pos, "wavenumber"),
                                 PF(strength, pos, "linestrength"),
                                 PF(intensity, pos, "intensity")};
    return lines;
}

static int32_t call_ls_line_list(void) {
    const int32_t uppers[1] = {1};
    atomgpu_intensity_params p = ls_params();
    if (BRK(K_NAN, 5)) p.temperature = NAN;
    if (BRK(K_INF, 5)) p.partition_function = INFINITY;
    int64_t n_lines = ISENTINEL, up_id[8], lo_id[8];
    double a[8], nu[8], strength[8], intensity[8];
    for (int i = 0; i < 8; i++) up_id[i] = lo_id[i] = ISENTINEL;
    fill(a, 8, SENTINEL), fill(nu, 8, SENTINEL), fill(strength, 8, SENTINEL), fill(intensity, 8, SENTINEL);
    atomgpu_line_arrays lines = ls_lines(6, up_id, lo_id, a, nu, strength, intensity);
    int32_t s = atomgpu_linestrength_line_list(P(fixture_ls, 1), 0, (int32_t)N(1, 3), P(uppers, 4),
                                               BRK(K_NULL, 5) ? NULL : &p, &lines, P(&n_lines, 7));
    untouched = n_lines == ISENTINEL && all_equal(a, 8, SENTINEL) && all_equal(intensity, 8, SENTINEL) &&
                up_id[0] == ISENTINEL;
    finite = n_lines >= 0 && n_lines <= 8 && all_finite(a, (size_t)(n_lines > 0 ? n_lines : 0)) &&
             all_finite(intensity, (size_t)(n_lines > 0 ? n_lines : 0));
    return s;
}

static int32_t call_ls_state_id(void) {
    int64_t id = ISENTINEL;
    int32_t s = atomgpu_linestrength_state_id(P(fixture_ls, 1), 1, BRK(K_NEG, 3) ? -1 : 1, P(&id, 4));
    untouched = id == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_ls_block_size(void) {
    int64_t a = ISENTINEL, b = ISENTINEL, c = ISENTINEL;
    int32_t s = atomgpu_linestrength_block_size(P(fixture_ls, 1), BRK(K_NEG, 2) ? -1 : 1, P(&a, 3), P(&b, 4), P(&c, 5));
    untouched = a == ISENTINEL && b == ISENTINEL && c == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_ls_loaded_batch(void) {
    int32_t block = ISENTINEL;
    int64_t n = ISENTINEL;
    int32_t s = atomgpu_linestrength_loaded_batch(P(fixture_ls, 1), P(&block, 2), P(&n, 3));
    untouched = block == ISENTINEL && n == ISENTINEL, finite = 1;
    return s;
}

/* A line-strength handle with no block yet (for set_group, which comes before the blocks). */
static atomgpu_linestrength *fresh_ls(void) {
    atomgpu_linestrength *h = NULL;
    if (atomgpu_linestrength_create(2, dipole, 2, 0, &h) != ATOMGPU_OK) {
        printf("    fixture: line-strength handle: %s\n", message());
        exit(1);
    }
    return h;
}

static int32_t call_ls_create_on_devices(void) {
    atomgpu_linestrength *h = (atomgpu_linestrength *)&untouched;
    atomgpu_linestrength *before = h;
    /* A valid n_devices on every machine: 2 engines on the CPU backend (two threads), the one GPU
     * every CUDA machine has (more than the process sees is refused). */
    int32_t backend = ATOMGPU_BACKEND_CUDA;
    atomgpu_device_info(&backend, NULL, 0, NULL, NULL, NULL, NULL);
    int32_t valid_devices = backend == ATOMGPU_BACKEND_CPU ? 2 : 1;
    int32_t s = atomgpu_linestrength_create_on_devices(N(2, 1), A(dipole, 12, 2), N(2, 3), BRK(K_NEG, 4) ? -1 : 0,
                                                       BRK(K_ZERO, 5) ? 0 : BRK(K_NEG, 5) ? -1 : valid_devices,
                                                       BRK(K_NULL, 6) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_linestrength_destroy(h);
    return s;
}

static int32_t call_ls_set_group(void) {
    atomgpu_linestrength *h = fresh_ls();
    int32_t s = atomgpu_linestrength_set_group(P(h, 1), BRK(K_NULL, 2) ? NULL : "C3v(M)");
    untouched = 1, finite = 1;
    return s; /* h is not destroyed: that would clear the error under test (the case's process ends) */
}

static int32_t call_ls_add_block_species(void) {
    /* An E block of J = 1 with three primitive functions (v, K, tau) = (0, 0, 1), (1, 0, 1),
     * (0, 1, 0) and n_sym = 2: a stacked unfolding of 2 x 3 rows, one entry per row. */
    static const int64_t v[3] = {0, 1, 0};
    static const int32_t k[3] = {0, 0, 1}, tau[3] = {1, 1, 0};
    static const int64_t row_start[7] = {0, 1, 2, 3, 4, 5, 6};
    static const int64_t col[6] = {0, 1, 0, 1, 0, 1};
    static const double value[6] = {1.0, 1.0, 0.5, -0.5, 0.25, 0.75};
    atomgpu_linestrength *h = fresh_ls();
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_set_group(h, "C3v(M)");
    if (s != ATOMGPU_OK) return s;
    s = atomgpu_linestrength_add_block_species(P(h, 1), 1, BRK(K_NEG, 3) ? -1 : 2, X(1.0, 4), N(3, 5), P(v, 6),
                                               P(k, 7), P(tau, 8), BRK(K_ZERO, 9) ? 0 : BRK(K_NEG, 9) ? -1 : 2,
                                               BRK(K_NEG, 10) ? -1 : 2, P(row_start, 11), P(col, 12), P(value, 13),
                                               P(&block, 14));
    untouched = block == ISENTINEL, finite = 1;
    return s; /* h is not destroyed: that would clear the error under test (the case's process ends) */
}

static int32_t call_ls_set_states_on_host(void) {
    int32_t s = atomgpu_linestrength_set_states_on_host(P(fixture_ls, 1), 1, N(2, 3), A(ls_e1, 2, 4),
                                                        A(ls_vectors, 4, 5), N(2, 6));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_ls_line_list_filtered(void) {
    const int32_t uppers[1] = {1};
    atomgpu_intensity_params p = ls_params();
    atomgpu_line_filters f = {0, 5, 0, 0, 0, {0}};
    if (BRK(K_NEG, 6)) f.j_min = -1;
    if (BRK(K_ZERO, 6)) f.reduced = 2;
    int64_t n_lines = ISENTINEL, up_id[8], lo_id[8], counts[5];
    double a[8], nu[8], strength[8], intensity[8];
    for (int i = 0; i < 8; i++) up_id[i] = lo_id[i] = ISENTINEL;
    for (int i = 0; i < 5; i++) counts[i] = ISENTINEL;
    fill(a, 8, SENTINEL), fill(nu, 8, SENTINEL), fill(strength, 8, SENTINEL), fill(intensity, 8, SENTINEL);
    atomgpu_line_arrays lines = ls_lines(7, up_id, lo_id, a, nu, strength, intensity);
    int32_t s = atomgpu_linestrength_line_list_filtered(P(fixture_ls, 1), 0, (int32_t)N(1, 3), P(uppers, 4),
                                                        BRK(K_NULL, 5) ? NULL : &p, &f, &lines, P(&n_lines, 8), counts);
    untouched = n_lines == ISENTINEL && all_equal(a, 8, SENTINEL) && up_id[0] == ISENTINEL && counts[0] == ISENTINEL;
    finite = n_lines >= 0 && n_lines <= 8 && counts[0] == counts[1] + counts[2] + counts[3] + counts[4] &&
             counts[4] == n_lines && all_finite(a, (size_t)(n_lines > 0 ? n_lines : 0));
    return s;
}

static int32_t call_ls_write_exomol(void) {
    char stem[64];
    snprintf(stem, sizeof stem, "/tmp/atomgpu-reliability-%d", (int)getpid());
    atomgpu_intensity_params p = ls_params();
    if (BRK(K_NAN, 3)) p.temperature = NAN;
    atomgpu_line_filters f = {0, 5, 0, 0, 0, {0}};
    if (BRK(K_NEG, 4)) f.j_max = -1;
    int64_t counts[5] = {ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL};
    int32_t s = atomgpu_linestrength_write_exomol(P(fixture_ls, 1), BRK(K_NULL, 2) ? NULL : stem,
                                                  BRK(K_NULL, 3) ? NULL : &p, &f, counts);
    untouched = counts[0] == ISENTINEL;
    finite = counts[0] == counts[1] + counts[2] + counts[3] + counts[4];
    char path[80];
    snprintf(path, sizeof path, "%s.states", stem), remove(path);
    snprintf(path, sizeof path, "%s.trans", stem), remove(path);
    return s;
}

static int32_t call_ls_block_ndeg(void) {
    int32_t ndeg = ISENTINEL;
    int32_t s = atomgpu_linestrength_block_ndeg(P(fixture_ls, 1), BRK(K_NEG, 2) ? -1 : 1, P(&ndeg, 3));
    untouched = ndeg == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_st_grid(void) {
    double a[ST_NQ], w[ST_NQ], p[ST_NP];
    fill(a, ST_NQ, SENTINEL), fill(w, ST_NQ, SENTINEL), fill(p, ST_NP, SENTINEL);
    int32_t s = atomgpu_sturmian_grid(X(20.0, 1), N(ST_NQ, 2), N(1, 3), P(a, 4), P(w, 5), P(p, 6));
    untouched = all_equal(a, ST_NQ, SENTINEL) && all_equal(w, ST_NQ, SENTINEL) && all_equal(p, ST_NP, SENTINEL);
    finite = all_finite(a, ST_NQ) && all_finite(w, ST_NQ) && all_finite(p, ST_NP);
    return s;
}

static int32_t call_st_create(void) {
    atomgpu_sturmian *h = (atomgpu_sturmian *)&untouched; /* a sentinel value, never a handle */
    atomgpu_sturmian *before = h;
    int32_t s = atomgpu_sturmian_create(X(20.0, 1), N(ST_NQ, 2), N(1, 3), A(st_abscissas, ST_NQ, 4),
                                        A(st_weights, ST_NQ, 5), BRK(K_NEG, 6) ? -1 : 0, BRK(K_NULL, 7) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_sturmian_destroy(h);
    return s;
}

static int32_t call_st_create_on_devices(void) {
    atomgpu_sturmian *h = (atomgpu_sturmian *)&untouched; /* a sentinel value, never a handle */
    atomgpu_sturmian *before = h;
    int32_t s = atomgpu_sturmian_create_on_devices(X(20.0, 1), N(ST_NQ, 2), N(1, 3), A(st_abscissas, ST_NQ, 4),
                                                   A(st_weights, ST_NQ, 5), BRK(K_NEG, 6) ? -1 : 0,
                                                   BRK(K_ZERO, 7) ? 0 : BRK(K_NEG, 7) ? -1 : 1,
                                                   BRK(K_NULL, 8) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_sturmian_destroy(h);
    return s;
}

static int32_t call_st_add_channel(void) {
    int32_t s = atomgpu_sturmian_add_channel(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_ELECTRON_B,
                                             BRK(K_NEG, 3) ? -1 : 1, N(2, 4), A(st_values, 2 * ST_NP, 5), N(ST_NP, 6),
                                             A(st_beta, 2, 7), A(st_generating, ST_NQ, 8), A(st_central, ST_NQ, 9));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_st_add_gsf(void) {
    atomgpu_gsf_params g = st_gsf();
    if (BRK(K_NAN, 5)) g.lambda = NAN;
    if (BRK(K_INF, 5)) g.energy = INFINITY;
    double beta[2];
    fill(beta, 2, SENTINEL);
    int32_t s = atomgpu_sturmian_add_gsf(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_ELECTRON_A,
                                         BRK(K_NEG, 3) ? -1 : 1, N(2, 4), BRK(K_NULL, 5) ? NULL : &g, beta);
    untouched = all_equal(beta, 2, SENTINEL), finite = all_finite(beta, 2);
    return s;
}

static int32_t call_st_one_electron(void) {
    double o[4], g[4];
    fill(o, 4, SENTINEL), fill(g, 4, SENTINEL);
    int32_t s = atomgpu_sturmian_one_electron(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_ELECTRON_B,
                                              BRK(K_NEG, 3) ? -1 : 0, P(o, 4), N(2, 5), N(2, 6), P(g, 7), N(2, 8),
                                              N(2, 9));
    untouched = all_equal(o, 4, SENTINEL) && all_equal(g, 4, SENTINEL), finite = all_finite(o, 4) && all_finite(g, 4);
    return s;
}

static int32_t call_st_one_electron_block(void) {
    atomgpu_sturmian_params p = st_params();
    if (BRK(K_NAN, 2)) p.energy_a = NAN;
    if (BRK(K_INF, 2)) p.nuclear_charge = INFINITY;
    double h[16], s_out[16];
    fill(h, 16, SENTINEL), fill(s_out, 16, SENTINEL);
    int32_t s = atomgpu_sturmian_one_electron_block(P(fixture_st, 1), BRK(K_NULL, 2) ? NULL : &p, BRK(K_NEG, 3) ? -1 : 0,
                                                    BRK(K_NEG, 4) ? -1 : 0, BRK(K_NEG, 5) ? -1 : ATOMGPU_ORDER_B_FASTEST,
                                                    P(h, 6), N(4, 7), N(4, 8), P(s_out, 9), N(4, 10), N(4, 11));
    untouched = all_equal(h, 16, SENTINEL) && all_equal(s_out, 16, SENTINEL);
    finite = all_finite(h, 16) && all_finite(s_out, 16);
    return s;
}

static int32_t call_st_repulsion(void) {
    double out[16];
    fill(out, 16, SENTINEL);
    int32_t s = atomgpu_sturmian_repulsion(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : 0, BRK(K_NEG, 3) ? -1 : 0,
                                           BRK(K_NEG, 4) ? -1 : 0, BRK(K_NEG, 5) ? -1 : 0, BRK(K_NEG, 6) ? -1 : 0,
                                           BRK(K_NEG, 7) ? -1 : ATOMGPU_ORDER_A_FASTEST, P(out, 8), N(4, 9), N(4, 10));
    untouched = all_equal(out, 16, SENTINEL), finite = all_finite(out, 16);
    return s;
}

/* Never called with all arguments valid (a host pointer is no device memory): every case breaks
 * an argument that is checked before the backend is. */
static int32_t call_st_repulsion_dev(void) {
    double out[16];
    fill(out, 16, SENTINEL);
    int32_t s = atomgpu_sturmian_repulsion_dev(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : 0, BRK(K_NEG, 3) ? -1 : 0,
                                               BRK(K_NEG, 4) ? -1 : 0, BRK(K_NEG, 5) ? -1 : 0, BRK(K_NEG, 6) ? -1 : 0,
                                               BRK(K_NEG, 7) ? -1 : 0, P(out, 8), N(16, 9), N(4, 10));
    untouched = all_equal(out, 16, SENTINEL), finite = 1;
    return s;
}

static int32_t call_st_angular(void) {
    double value = SENTINEL;
    int32_t s = atomgpu_sturmian_angular(BRK(K_NEG, 1) ? -1 : 1, BRK(K_NEG, 2) ? -2 : 0, BRK(K_NEG, 3) ? -1 : 1,
                                         BRK(K_NEG, 4) ? -1 : 0, BRK(K_NEG, 5) ? -1 : 0, BRK(K_NEG, 6) ? -1 : 1,
                                         BRK(K_NEG, 7) ? -1 : 1, P(&value, 8));
    untouched = value == SENTINEL, finite = isfinite(value);
    return s;
}

/* params broken in place: NaN energy, infinite charge, or an exchange code out of range. */
static atomgpu_sturmian_params st_params_broken(void) {
    atomgpu_sturmian_params p = st_params();
    if (BRK(K_NAN, 2)) p.energy_b = NAN;
    if (BRK(K_INF, 2)) p.interaction_charge = INFINITY;
    if (BRK(K_NEG, 2)) p.exchange = -1;
    return p;
}

static int32_t call_st_hamiltonian_size(void) {
    int64_t size = ISENTINEL;
    atomgpu_sturmian_params p = st_params_broken();
    int32_t s = atomgpu_sturmian_hamiltonian_size(P(fixture_st, 1), BRK(K_NULL, 2) ? NULL : &p, N(1, 3), P(st_la, 4),
                                                  P(st_lb, 5), P(&size, 6));
    untouched = size == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_st_hamiltonian(void) {
    atomgpu_sturmian_params p = st_params_broken();
    double h[16], s_out[16];
    fill(h, 16, SENTINEL), fill(s_out, 16, SENTINEL);
    int32_t s = atomgpu_sturmian_hamiltonian(P(fixture_st, 1), BRK(K_NULL, 2) ? NULL : &p, N(1, 3), P(st_la, 4),
                                             P(st_lb, 5), BRK(K_NEG, 6) ? -1 : ATOMGPU_ORDER_A_FASTEST, P(h, 7), N(4, 8),
                                             N(4, 9), P(s_out, 10), N(4, 11), N(4, 12));
    untouched = all_equal(h, 16, SENTINEL) && all_equal(s_out, 16, SENTINEL);
    finite = all_finite(h, 16) && all_finite(s_out, 16);
    return s;
}

static int32_t call_st_solve(void) {
    double e[2], v[8];
    fill(e, 2, SENTINEL), fill(v, 8, SENTINEL);
    int32_t s = atomgpu_sturmian_solve(N(4, 1), A(st_h, 16, 2), N(4, 3), A(st_s, 16, 4), N(4, 5), N(2, 6), P(e, 7),
                                       P(v, 8), N(4, 9), N(2, 10));
    untouched = all_equal(e, 2, SENTINEL) && all_equal(v, 8, SENTINEL), finite = all_finite(e, 2) && all_finite(v, 8);
    return s;
}

static int32_t call_version(void) {
    int32_t a = ISENTINEL, b = ISENTINEL, c = ISENTINEL;
    int32_t s = atomgpu_version(P(&a, 1), P(&b, 2), P(&c, 3));
    untouched = a == ISENTINEL && b == ISENTINEL && c == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_device_info(void) {
    int32_t backend = ISENTINEL, major = ISENTINEL, minor = ISENTINEL;
    int64_t total = ISENTINEL, free_bytes = ISENTINEL;
    char name[64];
    memset(name, 'x', sizeof name);
    int32_t s = atomgpu_device_info(P(&backend, 1), P(name, 2), N(64, 3), P(&total, 4), P(&free_bytes, 5),
                                    P(&major, 6), P(&minor, 7));
    untouched = backend == ISENTINEL && total == ISENTINEL && major == ISENTINEL && name[0] == 'x', finite = 1;
    return s;
}

static int32_t call_set_backend(void) {
    int32_t s = atomgpu_set_backend(BRK(K_NEG, 1) ? 9 : ATOMGPU_BACKEND_AUTO);
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_rates_set_precision(void) {
    int32_t s = atomgpu_rates_set_precision(BRK(K_NEG, 1) ? 9 : ATOMGPU_PRECISION_DOUBLE);
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_set_time_limit(void) {
    int32_t s = atomgpu_set_time_limit(BRK(K_NEG, 1) ? -1.0 : X(0.0, 1));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_host_alloc(void) {
    static char marker;
    void *p = &marker;
    int32_t s = atomgpu_host_alloc(N(64, 1), BRK(K_NULL, 2) ? NULL : &p);
    untouched = p == &marker, finite = 1;
    if (s == ATOMGPU_OK && atomgpu_host_free(p) != ATOMGPU_OK) return ATOMGPU_ERR_INTERNAL;
    return s;
}

static int32_t never_called(void *user_data, const char *task, double done, double total) {
    (void)user_data, (void)task, (void)done, (void)total;
    return 0;
}

static int32_t call_set_progress(void) {
    int32_t s = atomgpu_set_progress(never_called, NULL, BRK(K_NEG, 3) ? -1.0 : X(1.0, 3));
    untouched = 1, finite = 1;
    return s;
}

/* SCF: an integral handle of two Hartree-Fock symmetries, s (2 functions) and p (1): 4 pairs,
 * 10 integral sets, densities of 4 + 1 values. */
static const int32_t scf_angular[2] = {0, 1};
static const int64_t scf_counts[2] = {2, 1}, scf_closed[2] = {1, 0}, scf_one[1] = {1};
static const double scf_exponents[3] = {0.5, 2.0, 1.0}, scf_open[2] = {0.0, 0.0};
static const double scf_densities[5] = {1.0, 0.2, 0.2, 0.5, 0.3};
static const double scf_wtbspara[4] = {0.4, 2.0, 1.0, 0.5};
static atomgpu_scf_integrals *fixture_scf;

static atomgpu_scf_params scf_params(void) {
    atomgpu_scf_params p;
    atomgpu_scf_default_params(&p);
    p.nuclear_charge = 2.0;
    return p;
}

static atomgpu_scf_integrals *make_scf(void) {
    atomgpu_scf_params p = scf_params();
    atomgpu_scf_integrals *h = NULL;
    if (atomgpu_scf_integrals_create(&p, 2, scf_angular, scf_counts, scf_exponents, &h) != ATOMGPU_OK) {
        printf("    fixture: SCF integral handle: %s\n", message());
        exit(1);
    }
    return h;
}

static int32_t call_scf_default_params(void) {
    atomgpu_scf_params p;
    p.method = ISENTINEL;
    int32_t s = atomgpu_scf_default_params(BRK(K_NULL, 1) ? NULL : &p);
    untouched = p.method == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_scf_nucleus(void) {
    double xi = SENTINEL;
    int32_t s = atomgpu_scf_gaussian_nucleus_exponent(BRK(K_NEG, 1) ? -1.0 : X(132.0, 1), P(&xi, 2));
    untouched = xi == SENTINEL, finite = isfinite(xi);
    return s;
}

static int32_t call_scf_wtbs(void) {
    double out[3];
    fill(out, 3, SENTINEL);
    int32_t s = atomgpu_scf_wtbs_exponents(N(1, 1), A(scf_wtbspara, 4, 2), N(1, 3), P(scf_one, 4), P(scf_one, 5),
                                           P(scf_one, 6), N(1, 7), P(out, 8));
    untouched = all_equal(out, 3, SENTINEL), finite = all_finite(out, 1);
    return s;
}

static int32_t call_scf_one_electron(void) {
    atomgpu_scf_params p = scf_params();
    double sm[4], tm[4], vm[4];
    fill(sm, 4, SENTINEL), fill(tm, 4, SENTINEL), fill(vm, 4, SENTINEL);
    int32_t s = atomgpu_scf_one_electron(BRK(K_NULL, 1) ? NULL : &p, BRK(K_NEG, 2) ? -1 : 0, N(2, 3),
                                         A(scf_exponents, 2, 4), P(sm, 5), P(tm, 6), P(vm, 7));
    untouched = all_equal(sm, 4, SENTINEL) && all_equal(tm, 4, SENTINEL) && all_equal(vm, 4, SENTINEL);
    finite = all_finite(sm, 4) && all_finite(tm, 4) && all_finite(vm, 4);
    return s;
}

static int32_t call_scf_create(void) {
    atomgpu_scf_params p = scf_params();
    atomgpu_scf_integrals *h = (atomgpu_scf_integrals *)&untouched; /* a sentinel value, never a handle */
    atomgpu_scf_integrals *before = h;
    int32_t s = atomgpu_scf_integrals_create(BRK(K_NULL, 1) ? NULL : &p, N(2, 2), P(scf_angular, 3), P(scf_counts, 4),
                                             A(scf_exponents, 3, 5), BRK(K_NULL, 6) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_scf_integrals_destroy(h);
    return s;
}

static int32_t call_scf_sizes(void) {
    int64_t pairs = ISENTINEL, sets = ISENTINEL;
    int32_t s = atomgpu_scf_integrals_sizes(P(fixture_scf, 1), P(&pairs, 2), P(&sets, 3));
    untouched = pairs == ISENTINEL && sets == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_scf_supermatrix(void) {
    double out[10];
    fill(out, 10, SENTINEL);
    int32_t s = atomgpu_scf_integrals_supermatrix(P(fixture_scf, 1), N(10, 2), P(out, 3));
    untouched = all_equal(out, 10, SENTINEL), finite = all_finite(out, 10);
    return s;
}

static int32_t call_scf_two_electron(void) {
    double g[5];
    fill(g, 5, SENTINEL);
    int32_t s = atomgpu_scf_integrals_two_electron(P(fixture_scf, 1), N(5, 2), A(scf_densities, 5, 3), P(g, 4));
    untouched = all_equal(g, 5, SENTINEL), finite = all_finite(g, 5);
    return s;
}

static int32_t call_scf_run(void) {
    atomgpu_scf_params p = scf_params();
    if (BRK(K_NEG, 1)) p.diis_size = -1;
    if (BRK(K_HUGE, 1)) p.diis_size = 101;
    if (BRK(K_NAN, 1)) p.threshold_energy = NAN;
    if (BRK(K_INF, 1)) p.threshold_gradient = INFINITY;
    double e[4], eps[1];
    int64_t iterations = ISENTINEL;
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL);
    int32_t s = atomgpu_scf_run(BRK(K_NULL, 1) ? NULL : &p, N(2, 2), P(scf_angular, 3), P(scf_counts, 4),
                                A(scf_exponents, 3, 5), P(scf_closed, 6), A(scf_open, 2, 7), P(e, 8), N(1, 9), P(eps, 10),
                                P(&iterations, 11));
    untouched = all_equal(e, 4, SENTINEL) && all_equal(eps, 1, SENTINEL) && iterations == ISENTINEL;
    finite = all_finite(e, 4) && all_finite(eps, 1);
    return s;
}

static int32_t call_scf_run_orbitals(void) {
    atomgpu_scf_params p = scf_params();
    double e[4], eps[1], c[2], d[5], convergence[2];
    int64_t iterations = ISENTINEL;
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL), fill(c, 2, SENTINEL), fill(d, 5, SENTINEL);
    fill(convergence, 2, SENTINEL);
    int32_t s = atomgpu_scf_run_orbitals(BRK(K_NULL, 1) ? NULL : &p, N(2, 2), P(scf_angular, 3), P(scf_counts, 4),
                                         A(scf_exponents, 3, 5), P(scf_closed, 6), A(scf_open, 2, 7), P(e, 8), N(1, 9),
                                         P(eps, 10), P(&iterations, 11), P(c, 12), N(2, 13), P(d, 14), N(5, 15),
                                         P(convergence, 16));
    untouched = all_equal(e, 4, SENTINEL) && all_equal(eps, 1, SENTINEL) && iterations == ISENTINEL &&
                all_equal(c, 2, SENTINEL) && all_equal(d, 5, SENTINEL) && all_equal(convergence, 2, SENTINEL);
    finite = all_finite(e, 4) && all_finite(eps, 1) && all_finite(c, 2) && all_finite(d, 5) && all_finite(convergence, 2);
    return s;
}

static int32_t call_scf_optimise(void) {
    atomgpu_scf_params p = scf_params();
    double optimised[4], exponent = SENTINEL, e[4];
    int64_t evaluations = ISENTINEL;
    int32_t converged = ISENTINEL;
    fill(optimised, 4, SENTINEL), fill(e, 4, SENTINEL);
    atomgpu_scf_wtbs_settings w = {NF(1, 6, "n_groups"),  AF(scf_wtbspara, 4, 6, "wtbspara"), PF(scf_one, 6, "nbs"),
                                   PF(scf_one, 6, "start"), PF(scf_one, 6, "groups"),         XF(0.2, 6, "rho_begin"),
                                   XF(1e-3, 6, "rho_end"),  NF(40, 6, "max_evaluations")};
    int32_t s = atomgpu_scf_optimise_wtbs(BRK(K_NULL, 1) ? NULL : &p, N(1, 2), P(scf_angular, 3), P(scf_one, 4),
                                          A(scf_open, 1, 5), PF(&w, 6, "settings"), P(optimised, 7), N(1, 8),
                                          P(&exponent, 9), P(e, 10), P(&evaluations, 11), P(&converged, 12));
    untouched = all_equal(optimised, 4, SENTINEL) && exponent == SENTINEL && all_equal(e, 4, SENTINEL) &&
                evaluations == ISENTINEL && converged == ISENTINEL;
    finite = all_finite(optimised, 4) && isfinite(exponent) && all_finite(e, 4);
    return s;
}


/* TDSE: a cylindrical grid of 4 x 2 x 4 = 32 points (64 doubles of wavefunction), an ion at rest
 * in front of a tabulated surface, a wavefunction and a reference state. */
#define TD_N 32
static atomgpu_tdse *fixture_tdse;
static double td_psi[2 * TD_N], td_u[TD_N];
static const double td_table[4] = {-0.1, -0.05, 0.0, 0.0}, td_times[2] = {0.0, 10.0}, td_path[6] = {0, 0, 0, 0.1, 0, 0};
static const atomgpu_tdse_ion td_ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0.1};
static const atomgpu_tdse_surface td_surface = {ATOMGPU_TDSE_SURFACE_TABLE, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static atomgpu_tdse_grid td_grid(void) {
    atomgpu_tdse_grid g = {ATOMGPU_TDSE_CYLINDRICAL, 4, 2, 4, 0.2, 0.2, 0.0, -0.3, 0.0, 0.0, 0, 4};
    return g;
}

static atomgpu_tdse *make_tdse(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    for (int i = 0; i < TD_N; i++) td_psi[2 * i] = 1.0 + 0.01 * i, td_psi[2 * i + 1] = 0.5 - 0.02 * i, td_u[i] = -0.1 * i;
    atomgpu_tdse *h = NULL;
    if (atomgpu_tdse_create(&g, &p, &h) != ATOMGPU_OK ||
        atomgpu_tdse_set_potential(h, &td_ion, &td_surface, td_table, 2, td_times, td_path) != ATOMGPU_OK ||
        atomgpu_tdse_set_reference(h, td_psi, TD_N) != ATOMGPU_OK ||
        atomgpu_tdse_set_wavefunction(h, td_psi, TD_N, 0.0) != ATOMGPU_OK) {
        printf("    fixture: TDSE handle: %s\n", message());
        exit(1);
    }
    return h;
}

static int32_t call_td_default_params(void) {
    atomgpu_tdse_params p;
    p.dtau = SENTINEL;
    int32_t s = atomgpu_tdse_default_params(P(&p, 1));
    untouched = p.dtau == SENTINEL, finite = 1;
    return s;
}

static int32_t call_td_create(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    if (FIELD("storage") && BRK(K_NEG, 2)) p.storage = -1;
    if (FIELD("storage") && BRK(K_HUGE, 2)) p.storage = INT32_MAX;
    static int untouched_value;
    atomgpu_tdse *h = (atomgpu_tdse *)&untouched_value, *before = h;
    int32_t s = atomgpu_tdse_create(BRK(K_NULL, 1) ? NULL : &g, BRK(K_NULL, 2) ? NULL : &p, BRK(K_NULL, 3) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_tdse_destroy(h);
    return s;
}

static int32_t call_td_set_potential(void) {
    int32_t s = atomgpu_tdse_set_potential(P(fixture_tdse, 1), &td_ion, &td_surface, A(td_table, 4, 4), N(2, 5),
                                           A(td_times, 2, 6), A(td_path, 6, 7));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_td_set_potential_array(void) {
    int32_t s = atomgpu_tdse_set_potential_array(P(fixture_tdse, 1), A(td_u, TD_N, 2), N(TD_N, 3));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_td_set_wavefunction(void) {
    int32_t s = atomgpu_tdse_set_wavefunction(P(fixture_tdse, 1), A(td_psi, 2 * TD_N, 2), N(TD_N, 3), X(0.0, 4));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_td_get_wavefunction(void) {
    double out[2 * TD_N];
    fill(out, 2 * TD_N, SENTINEL);
    int32_t s = atomgpu_tdse_get_wavefunction(P(fixture_tdse, 1), P(out, 2), N(TD_N, 3));
    untouched = all_equal(out, 2 * TD_N, SENTINEL), finite = all_finite(out, 2 * TD_N);
    return s;
}

static int32_t call_td_set_reference(void) {
    int32_t s = atomgpu_tdse_set_reference(P(fixture_tdse, 1), A(td_psi, 2 * TD_N, 2), N(TD_N, 3));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_td_step(void) {
    int32_t s = atomgpu_tdse_step(P(fixture_tdse, 1), N(3, 2));
    untouched = 1, finite = 1;
    return s;
}

static int32_t call_td_relax(void) {
    double e = SENTINEL;
    int64_t steps = ISENTINEL;
    int32_t converged = ISENTINEL;
    int32_t s = atomgpu_tdse_relax(P(fixture_tdse, 1), N(5, 2), X(1e-3, 3), P(&e, 4), P(&steps, 5), P(&converged, 6));
    untouched = e == SENTINEL && steps == ISENTINEL && converged == ISENTINEL, finite = isfinite(e);
    return s;
}

static int32_t call_td_norm(void) {
    double v = SENTINEL;
    int32_t s = atomgpu_tdse_norm(P(fixture_tdse, 1), P(&v, 2));
    untouched = v == SENTINEL, finite = isfinite(v);
    return s;
}

static int32_t call_td_energy(void) {
    double v = SENTINEL;
    int32_t s = atomgpu_tdse_energy(P(fixture_tdse, 1), P(&v, 2));
    untouched = v == SENTINEL, finite = isfinite(v);
    return s;
}

static int32_t call_td_overlap(void) {
    double v[2] = {SENTINEL, SENTINEL};
    int32_t s = atomgpu_tdse_overlap(P(fixture_tdse, 1), P(v, 2));
    untouched = all_equal(v, 2, SENTINEL), finite = all_finite(v, 2);
    return s;
}

static int32_t call_td_population(void) {
    double v = SENTINEL;
    int32_t s = atomgpu_tdse_population(P(fixture_tdse, 1), X(0.5, 2), P(&v, 3));
    untouched = v == SENTINEL, finite = isfinite(v);
    return s;
}

static int32_t call_td_density_slice(void) {
    double v[16];
    fill(v, 16, SENTINEL);
    int32_t s = atomgpu_tdse_density_slice(P(fixture_tdse, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_TDSE_SLICE_SECOND,
                                           BRK(K_NEG, 3) ? -1 : 1, P(v, 4), N(16, 5));
    untouched = all_equal(v, 16, SENTINEL), finite = all_finite(v, 16);
    return s;
}

static int32_t call_td_state(void) {
    double t = SENTINEL, rho0 = SENTINEL;
    int64_t steps = ISENTINEL, rings = ISENTINEL;
    int32_t s = atomgpu_tdse_state(P(fixture_tdse, 1), P(&t, 2), P(&steps, 3), P(&rho0, 4), P(&rings, 5));
    untouched = t == SENTINEL && steps == ISENTINEL && rho0 == SENTINEL && rings == ISENTINEL;
    finite = isfinite(t) && isfinite(rho0);
    return s;
}

/* A single rank's callbacks: no neighbours, sums of one rank. */
static int32_t td_no_exchange(void *user, const double *a, const double *b, double *c, double *d, int64_t n) {
    return (void)user, (void)a, (void)b, (void)c, (void)d, (void)n, 0;
}
static int32_t td_own_sum(void *user, double *values, int64_t n) { return (void)user, (void)values, (void)n, 0; }

static int32_t call_td_set_communicator(void) {
    int32_t s = atomgpu_tdse_set_communicator(P(fixture_tdse, 1), BRK(K_NULL, 2) ? NULL : td_no_exchange,
                                              BRK(K_NULL, 3) ? NULL : td_own_sum, NULL);
    untouched = 1, finite = 1;
    return s;
}

/* ------------------------------------------------------------------------------------------ */
/* The argument table: which arguments of which call are broken in which ways. */

typedef int32_t (*call_fn)(void);

struct argument {
    call_fn call;
    const char *function;
    int position;
    const char *name;
    const char *kinds; /* letters: n NULL, z zero, m minus one, h 2^62, a NaN, i +Inf */
};

/* ------------------------------------------------------------------------------------------ */
/* Cases kept in one file per family (tests/c/reliability/): each file defines its own calls and
 * cases and three lists of table rows, RELIABILITY_<FAMILY>_ARGUMENTS (struct argument rows),
 * _VALID (valid-call rows) and _SPECIAL (hand-written case rows), spliced into the tables below. */

#include "reliability/scf.c"
#include "reliability/tdse.c"
#include "reliability/sturmian.c"
#include "reliability/lines_cr.c"
#include "reliability/process.c"
#include "reliability/sturmian_gsf.c"
#include "reliability/devices.c"

static const struct argument arguments[] = {
    {call_chemical_potential, "rates_chemical_potential", 1, "stats", "m"},
    {call_chemical_potential, "rates_chemical_potential", 2, "n_states", "zmh"},
    {call_chemical_potential, "rates_chemical_potential", 3, "te_ev", "nai"},
    {call_chemical_potential, "rates_chemical_potential", 4, "ne_cm3", "nai"},
    {call_chemical_potential, "rates_chemical_potential", 5, "mu_ev", "n"},
    {call_energy_density, "rates_energy_density", 2, "n_states", "zmh"},
    {call_energy_density, "rates_energy_density", 3, "te_ev", "nai"},
    {call_energy_density, "rates_energy_density", 4, "ne_cm3", "nai"},
    {call_energy_density, "rates_energy_density", 5, "u_ev_cm3", "n"},
    {call_temperature, "rates_temperature", 2, "n_states", "zmh"},
    {call_temperature, "rates_temperature", 3, "u_ev_cm3", "nai"},
    {call_temperature, "rates_temperature", 4, "ne_cm3", "nai"},
    {call_temperature, "rates_temperature", 5, "te_ev", "n"},
    {call_temperature, "rates_temperature", 6, "mu_ev", "n"},
    {call_excitation, "rates_excitation", 2, "accuracy_p", "ai"},
    {call_excitation, "rates_excitation", 4, "n_states", "zmh"},
    {call_excitation, "rates_excitation", 5, "te_ev", "nai"},
    {call_excitation, "rates_excitation", 6, "ne_cm3", "nai"},
    {call_excitation, "rates_excitation", 7, "n_transitions", "zmh"},
    {call_excitation, "rates_excitation", 8, "energy_ev", "nai"},
    {call_excitation, "rates_excitation", 9, "omega", "nai"},
    {call_excitation, "rates_excitation", 10, "g_lower", "ai"},
    {call_excitation, "rates_excitation", 11, "g_upper", "ai"},
    {call_excitation, "rates_excitation", 12, "up", "n"},
    {call_excitation, "rates_excitation", 13, "down", "n"},
    {call_ionization, "rates_ionization", 2, "accuracy_p", "ai"},
    {call_ionization, "rates_ionization", 4, "n_states", "zmh"},
    {call_ionization, "rates_ionization", 5, "te_ev", "nai"},
    {call_ionization, "rates_ionization", 6, "ne_cm3", "nai"},
    {call_ionization, "rates_ionization", 7, "n_transitions", "zmh"},
    {call_ionization, "rates_ionization", 8, "energy_ev", "nai"},
    {call_ionization, "rates_ionization", 9, "beli", "nai"},
    {call_ionization, "rates_ionization", 10, "g_lower", "ai"},
    {call_ionization, "rates_ionization", 11, "g_upper", "ai"},
    {call_ionization, "rates_ionization", 12, "up", "n"},
    {call_ionization, "rates_ionization", 13, "down", "n"},
    {call_photoionization, "rates_photoionization", 2, "accuracy_p", "ai"},
    {call_photoionization, "rates_photoionization", 4, "n_states", "zmh"},
    {call_photoionization, "rates_photoionization", 5, "te_ev", "nai"},
    {call_photoionization, "rates_photoionization", 6, "ne_cm3", "nai"},
    {call_photoionization, "rates_photoionization", 7, "tr_ev", "nai"},
    {call_photoionization, "rates_photoionization", 8, "n_transitions", "zmh"},
    {call_photoionization, "rates_photoionization", 9, "energy_ev", "nai"},
    {call_photoionization, "rates_photoionization", 10, "d0_cm2", "nai"},
    {call_photoionization, "rates_photoionization", 11, "d1_cm2", "nai"},
    {call_photoionization, "rates_photoionization", 12, "rate", "n"},
    {call_photoionization, "rates_photoionization", 13, "heating", "n"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 2, "accuracy_p", "ai"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 4, "n_states", "zmh"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 5, "te_ev", "nai"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 6, "ne_cm3", "nai"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 7, "tr_ev", "nai"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 8, "z2n_cm3", "nai"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung", 9, "heating", "n"},
    {call_cr_create, "cr_create", 1, "desc", "n"},
    {call_cr_create, "cr_create", 1, "n_levels", "zmh"},
    {call_cr_create, "cr_create", 1, "charges", "nai"},
    {call_cr_create, "cr_create", 1, "n_excitations", "mh"},
    {call_cr_create, "cr_create", 1, "excitation_lower", "n"},
    {call_cr_create, "cr_create", 1, "excitation_upper", "n"},
    {call_cr_create, "cr_create", 1, "excitation_energy_ev", "nai"},
    {call_cr_create, "cr_create", 1, "excitation_omega", "nai"},
    {call_cr_create, "cr_create", 1, "n_ionizations", "mh"},
    {call_cr_create, "cr_create", 1, "ionization_lower", "n"},
    {call_cr_create, "cr_create", 1, "ionization_upper", "n"},
    {call_cr_create, "cr_create", 1, "ionization_energy_ev", "nai"},
    {call_cr_create, "cr_create", 1, "ionization_beli", "nai"},
    {call_cr_create, "cr_create", 1, "ionization_d0_cm2", "nai"},
    {call_cr_create, "cr_create", 1, "ionization_d1_cm2", "nai"},
    {call_cr_create, "cr_create", 1, "stats", "m"},
    {call_cr_create, "cr_create", 1, "nodes", "m"},
    {call_cr_create, "cr_create", 1, "accuracy_p", "ai"},
    {call_cr_create, "cr_create", 1, "tr_ev", "ai"},
    {call_cr_create, "cr_create", 2, "model", "n"},
    {call_cr_n_levels, "cr_n_levels", 1, "model", "n"},
    {call_cr_n_levels, "cr_n_levels", 2, "n_levels", "n"},
    {call_cr_initial_state, "cr_initial_state", 1, "model", "n"},
    {call_cr_initial_state, "cr_initial_state", 2, "populations", "nai"},
    {call_cr_initial_state, "cr_initial_state", 3, "te_ev", "ai"},
    {call_cr_initial_state, "cr_initial_state", 4, "y", "n"},
    {call_cr_derivatives, "cr_derivatives", 1, "model", "n"},
    {call_cr_derivatives, "cr_derivatives", 2, "y", "nai"},
    {call_cr_derivatives, "cr_derivatives", 3, "dydt", "n"},
    {call_cr_derivatives, "cr_derivatives", 4, "conditions", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 1, "model", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 2, "y", "nai"},
    {call_cr_run_rk4, "cr_run_rk4", 3, "dt_s", "ai"},
    {call_cr_run_rk4, "cr_run_rk4", 4, "n_steps", "zmh"},
    {call_cr_run_rk4, "cr_run_rk4", 5, "sample_every", "zm"},
    {call_cr_run_rk4, "cr_run_rk4", 6, "max_samples", "zm"},
    {call_cr_run_rk4, "cr_run_rk4", 7, "n_samples", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 8, "times", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 9, "te_ev", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 10, "ne_cm3", "n"},
    {call_cr_run_rk4, "cr_run_rk4", 11, "populations", "n"},
    {call_cr_run_stiff, "cr_run_stiff", 1, "model", "n"},
    {call_cr_run_stiff, "cr_run_stiff", 2, "y", "nai"},
    {call_cr_run_stiff, "cr_run_stiff", 3, "n_times", "zmh"},
    {call_cr_run_stiff, "cr_run_stiff", 4, "sample_times_s", "nai"},
    {call_cr_run_stiff, "cr_run_stiff", 5, "rtol", "ai"},
    {call_cr_run_stiff, "cr_run_stiff", 6, "atol_fraction", "ai"},
    {call_cr_run_stiff, "cr_run_stiff", 7, "te_ev", "n"},
    {call_cr_run_stiff, "cr_run_stiff", 8, "ne_cm3", "n"},
    {call_cr_run_stiff, "cr_run_stiff", 9, "populations", "n"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 1, "model", "n"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 2, "n_systems", "zmh"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 3, "y", "nai"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 4, "n_times", "zmh"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 5, "sample_times_s", "nai"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 6, "rtol", "ai"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 7, "atol_fraction", "ai"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 8, "te_ev", "n"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 9, "ne_cm3", "n"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems", 10, "populations", "n"},
    {call_cr_rate_matrix, "cr_rate_matrix", 1, "model", "n"},
    {call_cr_rate_matrix, "cr_rate_matrix", 2, "te_ev", "ai"},
    {call_cr_rate_matrix, "cr_rate_matrix", 3, "ne_cm3", "ai"},
    {call_cr_rate_matrix, "cr_rate_matrix", 4, "m", "n"},
    {call_cr_rate_matrix, "cr_rate_matrix", 5, "m_energy", "n"},
    {call_ls_create, "linestrength_create", 1, "n_vib", "zmh"},
    {call_ls_create, "linestrength_create", 2, "dipole", "nai"},
    {call_ls_create, "linestrength_create", 3, "ld_dipole", "zm"},
    {call_ls_create, "linestrength_create", 4, "max_device_bytes", "m"},
    {call_ls_create, "linestrength_create", 5, "handle", "n"},
    {call_ls_add_block, "linestrength_add_block", 1, "handle", "n"},
    {call_ls_add_block, "linestrength_add_block", 3, "gns", "ai"},
    {call_ls_add_block, "linestrength_add_block", 4, "n_primitive", "zmh"},
    {call_ls_add_block, "linestrength_add_block", 5, "v", "n"},
    {call_ls_add_block, "linestrength_add_block", 6, "k", "n"},
    {call_ls_add_block, "linestrength_add_block", 7, "tau", "n"},
    {call_ls_add_block, "linestrength_add_block", 8, "n_sym", "m"},
    {call_ls_add_block, "linestrength_add_block", 12, "block", "n"},
    {call_ls_set_states, "linestrength_set_states", 1, "handle", "n"},
    {call_ls_set_states, "linestrength_set_states", 3, "n_states", "zmh"},
    {call_ls_set_states, "linestrength_set_states", 4, "energies", "nai"},
    {call_ls_set_states, "linestrength_set_states", 5, "vectors", "nai"},
    {call_ls_set_states, "linestrength_set_states", 6, "ld_vectors", "zmh"},
    {call_ls_load_lower, "linestrength_load_lower", 1, "handle", "n"},
    {call_ls_load_lower, "linestrength_load_lower", 3, "n_lower", "zmh"},
    {call_ls_load_lower, "linestrength_load_lower", 4, "vectors", "nai"},
    {call_ls_load_lower, "linestrength_load_lower", 5, "ld_vectors", "zmh"},
    {call_ls_load_lower, "linestrength_load_lower", 6, "thresh_coeff", "ai"},
    {call_ls_half, "linestrength_half", 1, "handle", "n"},
    {call_ls_half, "linestrength_half", 3, "thresh_coeff", "ai"},
    {call_ls_half, "linestrength_half", 4, "half", "n"},
    {call_ls_half, "linestrength_half", 5, "ld_half", "zmh"},
    {call_ls_half, "linestrength_half", 6, "cols_half", "zmh"},
    {call_ls_amplitudes, "linestrength_amplitudes", 1, "handle", "n"},
    {call_ls_amplitudes, "linestrength_amplitudes", 3, "thresh_coeff", "ai"},
    {call_ls_amplitudes, "linestrength_amplitudes", 4, "amplitudes", "n"},
    {call_ls_amplitudes, "linestrength_amplitudes", 5, "ld_amplitudes", "zmh"},
    {call_ls_amplitudes, "linestrength_amplitudes", 6, "cols_amplitudes", "zmh"},
    {call_ls_line_list, "linestrength_line_list", 1, "handle", "n"},
    {call_ls_line_list, "linestrength_line_list", 3, "n_upper_blocks", "zm"},
    {call_ls_line_list, "linestrength_line_list", 4, "upper_blocks", "n"},
    {call_ls_line_list, "linestrength_line_list", 5, "params", "nai"},
    {call_ls_line_list, "linestrength_line_list", 6, "capacity", "m"},
    {call_ls_line_list, "linestrength_line_list", 6, "upper_id", "n"},
    {call_ls_line_list, "linestrength_line_list", 6, "lower_id", "n"},
    {call_ls_line_list, "linestrength_line_list", 6, "einstein_a", "n"},
    {call_ls_line_list, "linestrength_line_list", 6, "wavenumber", "n"},
    {call_ls_line_list, "linestrength_line_list", 6, "linestrength", "n"},
    {call_ls_line_list, "linestrength_line_list", 6, "intensity", "n"},
    {call_ls_line_list, "linestrength_line_list", 7, "n_lines", "n"},
    {call_ls_state_id, "linestrength_state_id", 1, "handle", "n"},
    {call_ls_state_id, "linestrength_state_id", 3, "state", "m"},
    {call_ls_state_id, "linestrength_state_id", 4, "id", "n"},
    {call_ls_block_size, "linestrength_block_size", 1, "handle", "n"},
    {call_ls_block_size, "linestrength_block_size", 2, "block", "m"},
    {call_ls_block_size, "linestrength_block_size", 3, "n_primitive", "n"},
    {call_ls_block_size, "linestrength_block_size", 4, "n_coefficients", "n"},
    {call_ls_block_size, "linestrength_block_size", 5, "n_states", "n"},
    {call_ls_loaded_batch, "linestrength_loaded_batch", 1, "handle", "n"},
    {call_ls_loaded_batch, "linestrength_loaded_batch", 2, "block", "n"},
    {call_ls_loaded_batch, "linestrength_loaded_batch", 3, "n_lower", "n"},
    {call_ls_create_on_devices, "linestrength_create_on_devices", 1, "n_vib", "zmh"},
    {call_ls_create_on_devices, "linestrength_create_on_devices", 2, "dipole", "nai"},
    {call_ls_create_on_devices, "linestrength_create_on_devices", 3, "ld_dipole", "zm"},
    {call_ls_create_on_devices, "linestrength_create_on_devices", 5, "n_devices", "zm"},
    {call_ls_create_on_devices, "linestrength_create_on_devices", 6, "handle", "n"},
    {call_ls_set_group, "linestrength_set_group", 1, "handle", "n"},
    {call_ls_set_group, "linestrength_set_group", 2, "group", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 1, "handle", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 3, "gamma", "m"},
    {call_ls_add_block_species, "linestrength_add_block_species", 4, "gns", "ai"},
    {call_ls_add_block_species, "linestrength_add_block_species", 5, "n_primitive", "zmh"},
    {call_ls_add_block_species, "linestrength_add_block_species", 6, "v", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 9, "ndeg", "zm"},
    {call_ls_add_block_species, "linestrength_add_block_species", 10, "n_sym", "m"},
    {call_ls_add_block_species, "linestrength_add_block_species", 11, "row_start", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 12, "col", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 13, "value", "n"},
    {call_ls_add_block_species, "linestrength_add_block_species", 14, "block", "n"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host", 1, "handle", "n"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host", 3, "n_states", "zmh"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host", 4, "energies", "nai"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host", 5, "vectors", "nai"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host", 6, "ld_vectors", "zmh"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 1, "handle", "n"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 5, "params", "n"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 6, "filters", "zm"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 7, "capacity", "m"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 7, "upper_id", "n"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 7, "lower_id", "n"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 7, "intensity", "n"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered", 8, "n_lines", "n"},
    {call_ls_write_exomol, "linestrength_write_exomol", 1, "handle", "n"},
    {call_ls_write_exomol, "linestrength_write_exomol", 2, "stem", "n"},
    {call_ls_write_exomol, "linestrength_write_exomol", 3, "params", "na"},
    {call_ls_write_exomol, "linestrength_write_exomol", 4, "filters", "m"},
    {call_ls_block_ndeg, "linestrength_block_ndeg", 1, "handle", "n"},
    {call_ls_block_ndeg, "linestrength_block_ndeg", 2, "block", "m"},
    {call_ls_block_ndeg, "linestrength_block_ndeg", 3, "ndeg", "n"},
    {call_st_grid, "sturmian_grid", 1, "rmax", "ai"},
    {call_st_grid, "sturmian_grid", 2, "nq", "zmh"},
    {call_st_grid, "sturmian_grid", 3, "ns", "zmh"},
    {call_st_create, "sturmian_create", 1, "rmax", "ai"},
    {call_st_create, "sturmian_create", 2, "nq", "zmh"},
    {call_st_create, "sturmian_create", 3, "ns", "zmh"},
    {call_st_create, "sturmian_create", 4, "abscissas", "nai"},
    {call_st_create, "sturmian_create", 5, "weights", "nai"},
    {call_st_create, "sturmian_create", 6, "is_complex", "m"},
    {call_st_create, "sturmian_create", 7, "handle", "n"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 1, "rmax", "ai"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 2, "nq", "zmh"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 3, "ns", "zmh"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 4, "abscissas", "nai"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 5, "weights", "nai"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 6, "is_complex", "m"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 7, "n_devices", "zm"},
    {call_st_create_on_devices, "sturmian_create_on_devices", 8, "handle", "n"},
    {call_st_add_channel, "sturmian_add_channel", 1, "handle", "n"},
    {call_st_add_channel, "sturmian_add_channel", 2, "electron", "m"},
    {call_st_add_channel, "sturmian_add_channel", 3, "l", "m"},
    {call_st_add_channel, "sturmian_add_channel", 4, "n", "zmh"},
    {call_st_add_channel, "sturmian_add_channel", 5, "values", "nai"},
    {call_st_add_channel, "sturmian_add_channel", 6, "ld_values", "zmh"},
    {call_st_add_channel, "sturmian_add_channel", 7, "beta", "nai"},
    {call_st_add_channel, "sturmian_add_channel", 8, "generating", "nai"},
    {call_st_add_channel, "sturmian_add_channel", 9, "central", "ai"},
    {call_st_add_gsf, "sturmian_add_gsf", 1, "handle", "n"},
    {call_st_add_gsf, "sturmian_add_gsf", 2, "electron", "m"},
    {call_st_add_gsf, "sturmian_add_gsf", 3, "l", "m"},
    {call_st_add_gsf, "sturmian_add_gsf", 4, "n", "zmh"},
    {call_st_add_gsf, "sturmian_add_gsf", 5, "params", "nai"},
    {call_st_one_electron, "sturmian_one_electron", 1, "handle", "n"},
    {call_st_one_electron, "sturmian_one_electron", 2, "electron", "m"},
    {call_st_one_electron, "sturmian_one_electron", 3, "l", "m"},
    {call_st_one_electron, "sturmian_one_electron", 4, "overlap", "n"},
    {call_st_one_electron, "sturmian_one_electron", 5, "ld_overlap", "zmh"},
    {call_st_one_electron, "sturmian_one_electron", 6, "cols_overlap", "zmh"},
    {call_st_one_electron, "sturmian_one_electron", 7, "generating", "n"},
    {call_st_one_electron, "sturmian_one_electron", 8, "ld_generating", "zmh"},
    {call_st_one_electron, "sturmian_one_electron", 9, "cols_generating", "zmh"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 1, "handle", "n"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 2, "params", "nai"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 3, "la", "m"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 4, "lb", "m"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 5, "order", "m"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 6, "h", "n"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 7, "ld_h", "zmh"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 8, "cols_h", "zmh"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 9, "s", "n"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 10, "ld_s", "zmh"},
    {call_st_one_electron_block, "sturmian_one_electron_block", 11, "cols_s", "zmh"},
    {call_st_repulsion, "sturmian_repulsion", 1, "handle", "n"},
    {call_st_repulsion, "sturmian_repulsion", 2, "lpa", "m"},
    {call_st_repulsion, "sturmian_repulsion", 3, "lpb", "m"},
    {call_st_repulsion, "sturmian_repulsion", 4, "la", "m"},
    {call_st_repulsion, "sturmian_repulsion", 5, "lb", "m"},
    {call_st_repulsion, "sturmian_repulsion", 6, "l", "m"},
    {call_st_repulsion, "sturmian_repulsion", 7, "order", "m"},
    {call_st_repulsion, "sturmian_repulsion", 8, "out", "n"},
    {call_st_repulsion, "sturmian_repulsion", 9, "ld_out", "zmh"},
    {call_st_repulsion, "sturmian_repulsion", 10, "cols_out", "zmh"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 1, "handle", "n"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 2, "lpa", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 3, "lpb", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 4, "la", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 5, "lb", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 6, "l", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 7, "order", "m"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 8, "out_dev", "n"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 9, "len_out_dev", "zmh"},
    {call_st_repulsion_dev, "sturmian_repulsion_dev", 10, "ld_out_dev", "zm"},
    {call_st_angular, "sturmian_angular", 1, "l_total", "m"},
    {call_st_angular, "sturmian_angular", 2, "m", "m"},
    {call_st_angular, "sturmian_angular", 3, "lpa", "m"},
    {call_st_angular, "sturmian_angular", 4, "lpb", "m"},
    {call_st_angular, "sturmian_angular", 5, "la", "m"},
    {call_st_angular, "sturmian_angular", 6, "lb", "m"},
    {call_st_angular, "sturmian_angular", 7, "l", "m"},
    {call_st_angular, "sturmian_angular", 8, "value", "n"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 1, "handle", "n"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 2, "params", "nmai"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 3, "n_pairs", "zmh"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 4, "la", "n"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 5, "lb", "n"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size", 6, "size", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 1, "handle", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 2, "params", "nmai"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 3, "n_pairs", "zmh"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 4, "la", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 5, "lb", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 6, "order", "m"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 7, "h", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 8, "ld_h", "zmh"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 9, "cols_h", "zmh"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 10, "s", "n"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 11, "ld_s", "zmh"},
    {call_st_hamiltonian, "sturmian_hamiltonian", 12, "cols_s", "zmh"},
    {call_st_solve, "sturmian_solve", 1, "n", "zmh"},
    {call_st_solve, "sturmian_solve", 2, "h", "nai"},
    {call_st_solve, "sturmian_solve", 3, "ld_h", "zmh"},
    {call_st_solve, "sturmian_solve", 4, "s", "nai"},
    {call_st_solve, "sturmian_solve", 5, "ld_s", "zmh"},
    {call_st_solve, "sturmian_solve", 6, "k", "zmh"},
    {call_st_solve, "sturmian_solve", 7, "energies", "n"},
    {call_st_solve, "sturmian_solve", 9, "ld_vectors", "zmh"},
    {call_st_solve, "sturmian_solve", 10, "cols_vectors", "zmh"},
    {call_scf_default_params, "scf_default_params", 1, "params", "n"},
    {call_scf_nucleus, "scf_gaussian_nucleus_exponent", 1, "mass_number", "mai"},
    {call_scf_nucleus, "scf_gaussian_nucleus_exponent", 2, "exponent", "n"},
    {call_scf_wtbs, "scf_wtbs_exponents", 1, "n_groups", "zmh"},
    {call_scf_wtbs, "scf_wtbs_exponents", 2, "wtbspara", "nai"},
    {call_scf_wtbs, "scf_wtbs_exponents", 3, "n_symmetries", "zmh"},
    {call_scf_wtbs, "scf_wtbs_exponents", 4, "nbs", "n"},
    {call_scf_wtbs, "scf_wtbs_exponents", 5, "start", "n"},
    {call_scf_wtbs, "scf_wtbs_exponents", 6, "groups", "n"},
    {call_scf_wtbs, "scf_wtbs_exponents", 7, "n_exponents", "zmh"},
    {call_scf_wtbs, "scf_wtbs_exponents", 8, "exponents", "n"},
    {call_scf_one_electron, "scf_one_electron", 1, "params", "n"},
    {call_scf_one_electron, "scf_one_electron", 2, "angular", "m"},
    {call_scf_one_electron, "scf_one_electron", 3, "n_functions", "zmh"},
    {call_scf_one_electron, "scf_one_electron", 4, "exponents", "nai"},
    {call_scf_one_electron, "scf_one_electron", 5, "overlap", "n"},
    {call_scf_one_electron, "scf_one_electron", 6, "free_hamiltonian", "n"},
    {call_scf_one_electron, "scf_one_electron", 7, "nuclear", "n"},
    {call_scf_create, "scf_integrals_create", 1, "params", "n"},
    {call_scf_create, "scf_integrals_create", 2, "n_symmetries", "zmh"},
    {call_scf_create, "scf_integrals_create", 3, "angular", "n"},
    {call_scf_create, "scf_integrals_create", 4, "n_functions", "n"},
    {call_scf_create, "scf_integrals_create", 5, "exponents", "nai"},
    {call_scf_create, "scf_integrals_create", 6, "handle", "n"},
    {call_scf_sizes, "scf_integrals_sizes", 1, "handle", "n"},
    {call_scf_sizes, "scf_integrals_sizes", 2, "n_pairs", "n"},
    {call_scf_sizes, "scf_integrals_sizes", 3, "n_sets", "n"},
    {call_scf_supermatrix, "scf_integrals_supermatrix", 1, "handle", "n"},
    {call_scf_supermatrix, "scf_integrals_supermatrix", 2, "n_sets", "zmh"},
    {call_scf_supermatrix, "scf_integrals_supermatrix", 3, "packed", "n"},
    {call_scf_two_electron, "scf_integrals_two_electron", 1, "handle", "n"},
    {call_scf_two_electron, "scf_integrals_two_electron", 2, "n_values", "zmh"},
    {call_scf_two_electron, "scf_integrals_two_electron", 3, "densities", "nai"},
    {call_scf_two_electron, "scf_integrals_two_electron", 4, "g", "n"},
    {call_scf_run, "scf_run", 1, "params", "nmhai"},
    {call_scf_run, "scf_run", 2, "n_symmetries", "zmh"},
    {call_scf_run, "scf_run", 3, "angular", "n"},
    {call_scf_run, "scf_run", 4, "n_functions", "n"},
    {call_scf_run, "scf_run", 5, "exponents", "nai"},
    {call_scf_run, "scf_run", 6, "closed", "n"},
    {call_scf_run, "scf_run", 7, "open_electrons", "nai"},
    {call_scf_run, "scf_run", 8, "energies", "n"},
    {call_scf_run, "scf_run", 9, "n_orbitals", "zmh"},
    {call_scf_run, "scf_run", 10, "orbital_energies", "n"},
    {call_scf_run, "scf_run", 11, "iterations", "n"},
    {call_scf_run_orbitals, "scf_run_orbitals", 1, "params", "n"},
    {call_scf_run_orbitals, "scf_run_orbitals", 2, "n_symmetries", "zmh"},
    {call_scf_run_orbitals, "scf_run_orbitals", 5, "exponents", "nai"},
    {call_scf_run_orbitals, "scf_run_orbitals", 9, "n_orbitals", "zmh"},
    {call_scf_run_orbitals, "scf_run_orbitals", 11, "iterations", "n"},
    {call_scf_run_orbitals, "scf_run_orbitals", 12, "coefficients", "n"},
    {call_scf_run_orbitals, "scf_run_orbitals", 13, "len_coefficients", "zmh"},
    {call_scf_run_orbitals, "scf_run_orbitals", 14, "densities", "n"},
    {call_scf_run_orbitals, "scf_run_orbitals", 15, "len_densities", "zmh"},
    {call_scf_run_orbitals, "scf_run_orbitals", 16, "convergence", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 1, "params", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 2, "n_symmetries", "zmh"},
    {call_scf_optimise, "scf_optimise_wtbs", 3, "angular", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 4, "closed", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 5, "open_electrons", "nai"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "settings", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "n_groups", "zmh"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "wtbspara", "nai"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "nbs", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "start", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "groups", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "rho_begin", "ai"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "rho_end", "ai"},
    {call_scf_optimise, "scf_optimise_wtbs", 6, "max_evaluations", "zmh"},
    {call_scf_optimise, "scf_optimise_wtbs", 7, "wtbs_optimised", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 8, "n_exponents", "zmh"},
    {call_scf_optimise, "scf_optimise_wtbs", 9, "exponents", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 10, "energies", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 11, "evaluations", "n"},
    {call_scf_optimise, "scf_optimise_wtbs", 12, "converged", "n"},
    {call_td_default_params, "tdse_default_params", 1, "params", "n"},
    {call_td_create, "tdse_create", 1, "grid", "n"},
    {call_td_create, "tdse_create", 2, "params", "n"},
    {call_td_create, "tdse_create", 2, "storage", "mh"},
    {call_td_create, "tdse_create", 3, "handle", "n"},
    {call_td_set_potential, "tdse_set_potential", 1, "handle", "n"},
    {call_td_set_potential, "tdse_set_potential", 4, "surface_table", "nai"},
    {call_td_set_potential, "tdse_set_potential", 5, "n_times", "zmh"},
    {call_td_set_potential, "tdse_set_potential", 6, "times", "nai"},
    {call_td_set_potential, "tdse_set_potential", 7, "positions", "nai"},
    {call_td_set_potential_array, "tdse_set_potential_array", 1, "handle", "n"},
    {call_td_set_potential_array, "tdse_set_potential_array", 2, "values", "nai"},
    {call_td_set_potential_array, "tdse_set_potential_array", 3, "n_points", "zmh"},
    {call_td_set_wavefunction, "tdse_set_wavefunction", 1, "handle", "n"},
    {call_td_set_wavefunction, "tdse_set_wavefunction", 2, "psi", "nai"},
    {call_td_set_wavefunction, "tdse_set_wavefunction", 3, "n_points", "zmh"},
    {call_td_set_wavefunction, "tdse_set_wavefunction", 4, "time", "ai"},
    {call_td_get_wavefunction, "tdse_get_wavefunction", 1, "handle", "n"},
    {call_td_get_wavefunction, "tdse_get_wavefunction", 2, "psi", "n"},
    {call_td_get_wavefunction, "tdse_get_wavefunction", 3, "n_points", "zmh"},
    {call_td_set_reference, "tdse_set_reference", 1, "handle", "n"},
    {call_td_set_reference, "tdse_set_reference", 2, "phi", "nai"},
    {call_td_set_reference, "tdse_set_reference", 3, "n_points", "zmh"},
    {call_td_step, "tdse_step", 1, "handle", "n"},
    {call_td_step, "tdse_step", 2, "n_steps", "zmh"},
    {call_td_relax, "tdse_relax", 1, "handle", "n"},
    {call_td_relax, "tdse_relax", 2, "max_steps", "zmh"},
    {call_td_relax, "tdse_relax", 3, "energy_tolerance", "ai"},
    {call_td_relax, "tdse_relax", 4, "energy", "n"},
    {call_td_relax, "tdse_relax", 5, "steps", "n"},
    {call_td_relax, "tdse_relax", 6, "converged", "n"},
    {call_td_norm, "tdse_norm", 1, "handle", "n"},
    {call_td_norm, "tdse_norm", 2, "norm", "n"},
    {call_td_energy, "tdse_energy", 1, "handle", "n"},
    {call_td_energy, "tdse_energy", 2, "energy", "n"},
    {call_td_overlap, "tdse_overlap", 1, "handle", "n"},
    {call_td_overlap, "tdse_overlap", 2, "overlap", "n"},
    {call_td_population, "tdse_population", 1, "handle", "n"},
    {call_td_population, "tdse_population", 2, "radius", "ai"},
    {call_td_population, "tdse_population", 3, "population", "n"},
    {call_td_density_slice, "tdse_density_slice", 1, "handle", "n"},
    {call_td_density_slice, "tdse_density_slice", 2, "axis", "m"},
    {call_td_density_slice, "tdse_density_slice", 3, "index", "m"},
    {call_td_density_slice, "tdse_density_slice", 4, "density", "n"},
    {call_td_density_slice, "tdse_density_slice", 5, "n_values", "zmh"},
    {call_td_state, "tdse_state", 1, "handle", "n"},
    {call_td_state, "tdse_state", 2, "time", "n"},
    {call_td_state, "tdse_state", 3, "steps", "n"},
    {call_td_state, "tdse_state", 4, "rho0", "n"},
    {call_td_state, "tdse_state", 5, "implicit_rings", "n"},
    {call_td_set_communicator, "tdse_set_communicator", 1, "handle", "n"},
    {call_td_set_communicator, "tdse_set_communicator", 2, "exchange", "n"},
    {call_td_set_communicator, "tdse_set_communicator", 3, "sum", "n"},
    {call_version, "version", 1, "major", "n"},
    {call_version, "version", 2, "minor", "n"},
    {call_version, "version", 3, "patch", "n"},
    {call_device_info, "device_info", 3, "name_capacity", "zm"},
    {call_set_backend, "set_backend", 1, "backend", "m"},
    {call_rates_set_precision, "rates_set_precision", 1, "precision", "m"},
    {call_set_time_limit, "set_time_limit", 1, "seconds", "mai"},
    {call_set_progress, "set_progress", 3, "interval_s", "mai"},
    {call_host_alloc, "host_alloc", 1, "bytes", "zmh"},
    {call_host_alloc, "host_alloc", 2, "ptr", "n"},
    RELIABILITY_SCF_ARGUMENTS
    RELIABILITY_TDSE_ARGUMENTS
    RELIABILITY_STURMIAN_ARGUMENTS
    RELIABILITY_LINES_CR_ARGUMENTS
    RELIABILITY_PROCESS_ARGUMENTS
    RELIABILITY_STURMIAN_GSF_ARGUMENTS
    RELIABILITY_DEVICES_ARGUMENTS
};
#define N_ARGUMENTS (sizeof arguments / sizeof arguments[0])

/* The distinct calls, each once with valid arguments. */
static const struct {
    call_fn call;
    const char *function;
} valid_calls[] = {
    {call_chemical_potential, "rates_chemical_potential"},
    {call_energy_density, "rates_energy_density"},
    {call_temperature, "rates_temperature"},
    {call_excitation, "rates_excitation"},
    {call_ionization, "rates_ionization"},
    {call_photoionization, "rates_photoionization"},
    {call_inverse_bremsstrahlung, "rates_inverse_bremsstrahlung"},
    {call_cr_create, "cr_create"},
    {call_cr_n_levels, "cr_n_levels"},
    {call_cr_initial_state, "cr_initial_state"},
    {call_cr_derivatives, "cr_derivatives"},
    {call_cr_run_rk4, "cr_run_rk4"},
    {call_cr_run_stiff, "cr_run_stiff"},
    {call_cr_run_stiff_systems, "cr_run_stiff_systems"},
    {call_cr_rate_matrix, "cr_rate_matrix"},
    {call_ls_create, "linestrength_create"},
    {call_ls_add_block, "linestrength_add_block"},
    {call_ls_set_states, "linestrength_set_states"},
    {call_ls_load_lower, "linestrength_load_lower"},
    {call_ls_half, "linestrength_half"},
    {call_ls_amplitudes, "linestrength_amplitudes"},
    {call_ls_line_list, "linestrength_line_list"},
    {call_ls_state_id, "linestrength_state_id"},
    {call_ls_block_size, "linestrength_block_size"},
    {call_ls_loaded_batch, "linestrength_loaded_batch"},
    {call_ls_create_on_devices, "linestrength_create_on_devices"},
    {call_ls_set_group, "linestrength_set_group"},
    {call_ls_add_block_species, "linestrength_add_block_species"},
    {call_ls_set_states_on_host, "linestrength_set_states_on_host"},
    {call_ls_line_list_filtered, "linestrength_line_list_filtered"},
    {call_ls_write_exomol, "linestrength_write_exomol"},
    {call_ls_block_ndeg, "linestrength_block_ndeg"},
    {call_st_grid, "sturmian_grid"},
    {call_st_create, "sturmian_create"},
    {call_st_create_on_devices, "sturmian_create_on_devices"},
    {call_st_add_channel, "sturmian_add_channel"},
    {call_st_add_gsf, "sturmian_add_gsf"},
    {call_st_one_electron, "sturmian_one_electron"},
    {call_st_one_electron_block, "sturmian_one_electron_block"},
    {call_st_repulsion, "sturmian_repulsion"},
    /* sturmian_repulsion_dev: no valid call without device memory (special cases below). */
    {call_st_angular, "sturmian_angular"},
    {call_st_hamiltonian_size, "sturmian_hamiltonian_size"},
    {call_st_hamiltonian, "sturmian_hamiltonian"},
    {call_st_solve, "sturmian_solve"},
    {call_scf_default_params, "scf_default_params"},
    {call_scf_nucleus, "scf_gaussian_nucleus_exponent"},
    {call_scf_wtbs, "scf_wtbs_exponents"},
    {call_scf_one_electron, "scf_one_electron"},
    {call_scf_create, "scf_integrals_create"},
    {call_scf_sizes, "scf_integrals_sizes"},
    {call_scf_supermatrix, "scf_integrals_supermatrix"},
    {call_scf_two_electron, "scf_integrals_two_electron"},
    {call_scf_run, "scf_run"},
    {call_scf_run_orbitals, "scf_run_orbitals"},
    {call_scf_optimise, "scf_optimise_wtbs"},
    {call_td_default_params, "tdse_default_params"},
    {call_td_create, "tdse_create"},
    {call_td_set_potential, "tdse_set_potential"},
    {call_td_set_potential_array, "tdse_set_potential_array"},
    {call_td_set_wavefunction, "tdse_set_wavefunction"},
    {call_td_get_wavefunction, "tdse_get_wavefunction"},
    {call_td_set_reference, "tdse_set_reference"},
    {call_td_step, "tdse_step"},
    {call_td_relax, "tdse_relax"},
    {call_td_norm, "tdse_norm"},
    {call_td_energy, "tdse_energy"},
    {call_td_overlap, "tdse_overlap"},
    {call_td_population, "tdse_population"},
    {call_td_density_slice, "tdse_density_slice"},
    {call_td_state, "tdse_state"},
    {call_td_set_communicator, "tdse_set_communicator"},
    {call_version, "version"},
    {call_device_info, "device_info"},
    {call_set_backend, "set_backend"},
    {call_rates_set_precision, "rates_set_precision"},
    {call_set_time_limit, "set_time_limit"},
    {call_set_progress, "set_progress"},
    {call_host_alloc, "host_alloc"},
    RELIABILITY_SCF_VALID
    RELIABILITY_TDSE_VALID
    RELIABILITY_STURMIAN_VALID
    RELIABILITY_LINES_CR_VALID
    RELIABILITY_PROCESS_VALID
    RELIABILITY_STURMIAN_GSF_VALID
    RELIABILITY_DEVICES_VALID
};
#define N_VALID (sizeof valid_calls / sizeof valid_calls[0])

static int kind_of_letter(char c) {
    switch (c) {
    case 'n': return K_NULL;
    case 'z': return K_ZERO;
    case 'm': return K_NEG;
    case 'h': return K_HUGE;
    case 'a': return K_NAN;
    default: return K_INF;
    }
}

static void make_fixtures(void) {
    fixture_cr = make_cr();
    cr_state(fixture_cr, fixture_y);
    fixture_ls = make_ls();
    fixture_st = make_st();
    fixture_scf = make_scf();
    fixture_tdse = make_tdse();
}

/* A broken argument: refused for itself, outputs untouched. */
static int run_argument_case(int index, int kind) {
    const struct argument *a = &arguments[index];
    make_fixtures();
    brk = kind * 100 + a->position;
    brk_field = a->name;
    int32_t s = a->call();
    if (refused(s, a->position, a->name)) return 1;
    if (!untouched) return fail("an output was written on error");
    return 0;
}

/* Valid arguments: success and finite outputs. */
static int run_valid_case(int index) {
    make_fixtures();
    brk = 0;
    int32_t s = valid_calls[index].call();
    if (status_is(s, ATOMGPU_OK, NULL)) return 1;
    if (!finite) return fail("status 0 with a non-finite output");
    return 0;
}

/* Every call that takes a handle, with the handle destroyed (use after destroy) or with a handle
 * of the other family: refused at position 1, outputs untouched. */
static int run_handle_case(int index, int variant) {
    const struct argument *a = &arguments[index];
    make_fixtures();
    brk = 0;
    const char *fragment = NULL;
    if (variant == 0) { /* destroyed */
        if (atomgpu_cr_destroy(fixture_cr) != ATOMGPU_OK || atomgpu_linestrength_destroy(fixture_ls) != ATOMGPU_OK ||
            atomgpu_sturmian_destroy(fixture_st) != ATOMGPU_OK || atomgpu_scf_integrals_destroy(fixture_scf) != ATOMGPU_OK ||
            atomgpu_tdse_destroy(fixture_tdse) != ATOMGPU_OK)
            return fail("destroy failed: %s", message());
        fragment = "destroyed";
    } else if (variant == 1) { /* the other family */
        atomgpu_cr *cr = fixture_cr;
        fixture_cr = (atomgpu_cr *)fixture_ls;
        fixture_ls = (atomgpu_linestrength *)fixture_st;
        fixture_st = (atomgpu_sturmian *)fixture_scf;
        fixture_scf = (atomgpu_scf_integrals *)fixture_tdse;
        fixture_tdse = (atomgpu_tdse *)cr;
        fragment = "is a ";
    } else { /* made up */
        static int64_t local;
        fixture_cr = (atomgpu_cr *)&local;
        fixture_ls = (atomgpu_linestrength *)(uintptr_t)0xA7FFFFFFFFFFFFF0ull;
        fixture_st = (atomgpu_sturmian *)(uintptr_t)0x1234;
        fixture_scf = (atomgpu_scf_integrals *)(uintptr_t)0xA7FFFFFFFFFFFFE0ull;
        fixture_tdse = (atomgpu_tdse *)(uintptr_t)0xA7FFFFFFFFFFFFD0ull;
        fragment = "not a live";
    }
    int32_t s = a->call();
    if (refused(s, 1, a->name)) return 1;
    if (strstr(message(), fragment) == NULL) return fail("message lacks \"%s\": %s", fragment, message());
    if (!untouched) return fail("an output was written on error");
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Hand-written cases: allocation, handles, non-finite results, runaway runs, threads. */

static int create_with_counts(int64_t n_levels, int64_t n_exc, int64_t n_ion, int32_t *status) {
    atomgpu_cr *model = NULL;
    atomgpu_cr_model_desc d = cr_desc();
    d.n_levels = n_levels, d.n_excitations = n_exc, d.n_ionizations = n_ion;
    *status = atomgpu_cr_create(&d, &model);
    return model == NULL;
}

static int case_huge_excitations(void) {
    int32_t s;
    if (!create_with_counts(NL, (int64_t)1 << 40, 1, &s)) return fail("a model was made");
    return status_is(s, ATOMGPU_ERR_OUT_OF_MEMORY, "memory");
}

static int case_huge_ionizations(void) {
    int32_t s;
    if (!create_with_counts(NL, 1, (int64_t)1 << 40, &s)) return fail("a model was made");
    return status_is(s, ATOMGPU_ERR_OUT_OF_MEMORY, "memory");
}

static int case_overflowing_excitations(void) {
    int32_t s;
    create_with_counts(NL, HUGE_SIZE, 1, &s);
    return refused(s, 1, "n_excitations");
}

static int case_overflowing_ionizations(void) {
    int32_t s;
    create_with_counts(NL, 1, HUGE_SIZE, &s);
    return refused(s, 1, "n_ionizations");
}

static int case_huge_levels(void) {
    int32_t s;
    create_with_counts((int64_t)1 << 40, 1, 1, &s);
    return status_is(s, ATOMGPU_ERR_OUT_OF_MEMORY, "memory");
}

/* 200000 levels: Z = 1 everywhere but level 2 (Z = 2); one excitation 0 -> 1, one ionization
 * 1 -> 2; populations on the first three levels. */
#define BIG 200000
static atomgpu_cr *make_big_model(double **y) {
    double *z = malloc(BIG * sizeof *z), *p = calloc(BIG, sizeof *p);
    *y = malloc((BIG + 1) * sizeof **y);
    if (z == NULL || p == NULL || *y == NULL) return NULL;
    for (int i = 0; i < BIG; i++) z[i] = 1.0;
    z[2] = 2.0;
    p[0] = 6e20, p[1] = 3e20, p[2] = 1e20;
    atomgpu_cr *model = NULL;
    atomgpu_cr_model_desc d = cr_desc();
    d.n_levels = BIG, d.charges = z;
    if (atomgpu_cr_create(&d, &model) != ATOMGPU_OK ||
        atomgpu_cr_initial_state(model, p, 3.0, *y) != ATOMGPU_OK) {
        printf("    fixture: the 200000-level model: %s\n", message());
        return NULL;
    }
    free(z), free(p);
    return model;
}

static int case_big_model_derivatives(void) {
    double *y;
    atomgpu_cr *model = make_big_model(&y);
    if (model == NULL) return 1;
    double *dydt = malloc((BIG + 1) * sizeof *dydt), conditions[3];
    if (status_is(atomgpu_cr_derivatives(model, y, dydt, conditions), ATOMGPU_OK, NULL)) return 1;
    if (!all_finite(dydt, BIG + 1) || !all_finite(conditions, 3)) return fail("non-finite derivatives");
    return 0;
}

static int case_big_model_stiff(void) {
    double *y;
    atomgpu_cr *model = make_big_model(&y);
    if (model == NULL) return 1;
    const double times[1] = {1e-15};
    double te_out[1], ne_out[1], *p_out = malloc(BIG * sizeof *p_out);
    return status_is(atomgpu_cr_run_stiff(model, y, 1, times, 1e-6, 1e-10, te_out, ne_out, p_out),
                     ATOMGPU_ERR_OUT_OF_MEMORY, "Jacobian");
}

static int case_big_model_rate_matrix(void) {
    double *y;
    atomgpu_cr *model = make_big_model(&y);
    if (model == NULL) return 1;
    double small[4], m_energy[4];
    fill(small, 4, SENTINEL);
    int32_t s = atomgpu_cr_rate_matrix(model, 3.0, 1e21, small, m_energy);
    if (status_is(s, ATOMGPU_ERR_OUT_OF_MEMORY, "rate matrix")) return 1;
    return all_equal(small, 4, SENTINEL) ? 0 : fail("the small output was written");
}

static int case_big_model_rk4(void) {
    double *y;
    atomgpu_cr *model = make_big_model(&y);
    if (model == NULL) return 1;
    double t[2], te_out[2], ne_out[2], *p_out = malloc(2 * BIG * sizeof *p_out);
    int64_t n = 0;
    int32_t s = atomgpu_cr_run_rk4(model, y, 1e-16, 1, 1, 2, &n, t, te_out, ne_out, p_out);
    if (s != ATOMGPU_OK && s != ATOMGPU_ERR_NOT_CONVERGED) return status_is(s, ATOMGPU_OK, NULL);
    if (s == ATOMGPU_OK && !all_finite(y, BIG + 1)) return fail("non-finite state with status 0");
    return 0;
}

static int add_block_n_sym(int64_t n_sym) {
    atomgpu_linestrength *h = make_ls();
    const int64_t row_start[3] = {0, 1, 2}, col[2] = {0, 1};
    const double value[2] = {1.0, 1.0};
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block(h, 1, 1.0, 2, ls_v, ls_k, ls_tau1, n_sym, row_start, col, value, &block);
    if (refused(s, 8, "n_sym")) return 1;
    return block == ISENTINEL ? 0 : fail("block written");
}

static int case_n_sym_2_40(void) { return add_block_n_sym((int64_t)1 << 40); }
static int case_n_sym_2_31(void) { return add_block_n_sym((int64_t)1 << 31); }

static int bad_csr(const int64_t row_start[3], const int64_t col[2], const double value[2], int position,
                   const char *name) {
    atomgpu_linestrength *h = make_ls();
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block(h, 1, 1.0, 2, ls_v, ls_k, ls_tau1, 2, row_start, col, value, &block);
    if (refused(s, position, name)) return 1;
    return block == ISENTINEL ? 0 : fail("block written");
}

static int case_csr_start(void) {
    const int64_t r[3] = {1, 1, 2}, c[2] = {0, 1};
    const double v[2] = {1.0, 1.0};
    return bad_csr(r, c, v, 9, "row_start");
}

static int case_csr_decreasing(void) {
    const int64_t r[3] = {0, 2, 1}, c[2] = {0, 1};
    const double v[2] = {1.0, 1.0};
    return bad_csr(r, c, v, 9, "row_start");
}

static int case_csr_column(void) {
    const int64_t r[3] = {0, 1, 2}, c[2] = {0, 2};
    const double v[2] = {1.0, 1.0};
    return bad_csr(r, c, v, 10, "col");
}

static int case_csr_nan(void) {
    const int64_t r[3] = {0, 1, 2}, c[2] = {0, 1};
    const double v[2] = {1.0, NAN};
    return bad_csr(r, c, v, 11, "value");
}

static int case_wang_k0_tau1_j0(void) {
    atomgpu_linestrength *h = make_ls();
    const int64_t v[1] = {0};
    const int32_t k[1] = {0}, tau[1] = {1};
    int32_t block = ISENTINEL;
    return refused(atomgpu_linestrength_add_block(h, 0, 1.0, 1, v, k, tau, 0, NULL, NULL, NULL, &block), 7, "tau");
}

static int case_double_destroy(void) {
    atomgpu_cr *model = make_cr();
    atomgpu_linestrength *h = make_ls();
    if (status_is(atomgpu_cr_destroy(model), ATOMGPU_OK, NULL)) return 1;
    if (refused(atomgpu_cr_destroy(model), 1, "model")) return 1;
    if (status_is(atomgpu_linestrength_destroy(h), ATOMGPU_OK, NULL)) return 1;
    if (refused(atomgpu_linestrength_destroy(h), 1, "handle")) return 1;
    if (status_is(atomgpu_cr_destroy(NULL), ATOMGPU_OK, NULL)) return 1;
    return status_is(atomgpu_linestrength_destroy(NULL), ATOMGPU_OK, NULL);
}

static int case_destroy_other_family(void) {
    atomgpu_cr *model = make_cr();
    atomgpu_linestrength *h = make_ls();
    if (refused(atomgpu_cr_destroy((atomgpu_cr *)h), 1, "model")) return 1;
    if (refused(atomgpu_linestrength_destroy((atomgpu_linestrength *)model), 1, "handle")) return 1;
    int64_t n = 0;
    if (status_is(atomgpu_cr_n_levels(model, &n), ATOMGPU_OK, NULL) || n != NL) return fail("the model was harmed");
    int32_t block;
    int64_t lower;
    return status_is(atomgpu_linestrength_loaded_batch(h, &block, &lower), ATOMGPU_OK, NULL);
}

static int case_made_up_destroy(void) {
    static int64_t local;
    if (refused(atomgpu_cr_destroy((atomgpu_cr *)(uintptr_t)0x1234), 1, "model")) return 1;
    if (refused(atomgpu_cr_destroy((atomgpu_cr *)&local), 1, "model")) return 1;
    return refused(atomgpu_linestrength_destroy((atomgpu_linestrength *)&local), 1, "handle");
}

/* Finite but absurd rates inputs. */
static int absurd_state(double te_value, double ne_value, const char *name, int position) {
    double t[1] = {te_value}, n[1] = {ne_value}, mu[1] = {SENTINEL};
    return refused(atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, 1, t, n, mu), position, name);
}

static int case_ne_1e300(void) { return absurd_state(1.0, 1e300, "ne_cm3", 4); }
static int case_te_1e300(void) { return absurd_state(1e300, 1e21, "te_ev", 3); }
static int case_te_denormal(void) { return absurd_state(5e-324, 1e21, "te_ev", 3); }

static int absurd_energy(double value) {
    double e[2] = {value, 10.0}, up[4], down[4];
    fill(up, 4, SENTINEL), fill(down, 4, SENTINEL);
    int32_t s = atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 8, 2, te, ne, 2, e, omega, NULL, NULL, up, down);
    if (refused(s, 8, "energy_ev")) return 1;
    return all_equal(up, 4, SENTINEL) ? 0 : fail("an output was written");
}

static int case_energy_dbl_max(void) { return absurd_energy(DBL_MAX); }
static int case_energy_denormal(void) { return absurd_energy(5e-324); }

/* Status 0 with finite outputs, or ATOMGPU_ERR_NOT_FINITE with outputs untouched. */
static int finite_or_refused(int32_t s, const double *out, size_t n) {
    if (s == ATOMGPU_OK) return all_finite(out, n) ? 0 : fail("status 0 with a non-finite output");
    if (s == ATOMGPU_ERR_NOT_FINITE) return all_equal(out, n, SENTINEL) ? 0 : fail("an output was written");
    return status_is(s, ATOMGPU_ERR_NOT_FINITE, NULL);
}

static int case_omega_1e300(void) {
    double b[12], out[8];
    for (int i = 0; i < 12; i++) b[i] = 1e300;
    fill(out, 8, SENTINEL);
    int32_t s = atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 8, 2, te, ne, 2, energy, b, NULL, NULL, out,
                                         out + 4);
    return finite_or_refused(s, out, 8);
}

static int case_beli_1e300(void) {
    double c[10], out[8];
    for (int i = 0; i < 10; i++) c[i] = 1e300;
    fill(out, 8, SENTINEL);
    int32_t s = atomgpu_rates_ionization(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 8, 2, te, ne, 2, energy, c, NULL, NULL, out,
                                         out + 4);
    return finite_or_refused(s, out, 8);
}

static int case_d0_1e300(void) {
    double d[2] = {1e300, 1e300}, out[8];
    fill(out, 8, SENTINEL);
    int32_t s = atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 8, 2, te, ne, tr, 2, energy, d, d, out,
                                              out + 4);
    return finite_or_refused(s, out, 8);
}

static int weights_case(double value) {
    double g[2] = {value, value}, g1[2] = {1.0, 1.0}, out[8];
    fill(out, 8, SENTINEL);
    int32_t s = atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 8, 2, te, ne, 2, energy, omega, g, g1, out,
                                         out + 4);
    return finite_or_refused(s, out, 8);
}

static int case_weights_1e300(void) { return weights_case(1e300); }
static int case_weights_1e_300(void) { return weights_case(1e-300); }

static int inversion_case(int32_t stats) {
    double u[1] = {1e-300}, n[1] = {1e21}, t[1] = {SENTINEL}, mu[1] = {SENTINEL};
    if (refused(atomgpu_rates_temperature(stats, 1, u, n, t, mu), 3, "u_ev_cm3")) return 1;
    return t[0] == SENTINEL && mu[0] == SENTINEL ? 0 : fail("an output was written");
}

static int case_inversion_mb(void) { return inversion_case(ATOMGPU_STATS_MAXWELL_BOLTZMANN); }
static int case_inversion_fd(void) { return inversion_case(ATOMGPU_STATS_FERMI_DIRAC); }

static int case_ls_energy_dbl_max(void) {
    atomgpu_linestrength *h = make_ls();
    const double e[2] = {DBL_MAX, -DBL_MAX};
    return refused(atomgpu_linestrength_set_states(h, 1, 2, e, ls_vectors, 2), 4, "energies");
}

static int line_list_of(atomgpu_linestrength *h, atomgpu_intensity_params p, int64_t *n_lines, double *a,
                        double *intensity) {
    const int32_t uppers[1] = {1};
    int64_t up_id[8], lo_id[8];
    double nu[8], strength[8];
    const atomgpu_line_arrays lines = {8, up_id, lo_id, a, nu, strength, intensity};
    return atomgpu_linestrength_line_list(h, 0, 1, uppers, &p, &lines, n_lines);
}

static int case_ls_dipole_1e300(void) {
    double d[12];
    for (int i = 0; i < 12; i++) d[i] = 1e300;
    atomgpu_linestrength *h = NULL;
    int32_t b0, b1;
    if (atomgpu_linestrength_create(2, d, 2, 0, &h) != ATOMGPU_OK ||
        atomgpu_linestrength_add_block(h, 0, 1.0, 2, ls_v, ls_k, ls_tau0, 0, NULL, NULL, NULL, &b0) != ATOMGPU_OK ||
        atomgpu_linestrength_add_block(h, 1, 3.0, 2, ls_v, ls_k, ls_tau1, 0, NULL, NULL, NULL, &b1) != ATOMGPU_OK ||
        atomgpu_linestrength_set_states(h, 0, 2, ls_e0, ls_vectors, 2) != ATOMGPU_OK ||
        atomgpu_linestrength_set_states(h, 1, 2, ls_e1, ls_vectors, 2) != ATOMGPU_OK)
        return fail("fixture: %s", message());
    int64_t n_lines = ISENTINEL;
    double a[8], intensity[8];
    fill(a, 8, SENTINEL), fill(intensity, 8, SENTINEL);
    int32_t s = line_list_of(h, ls_params(), &n_lines, a, intensity);
    if (s == ATOMGPU_OK) return all_finite(a, (size_t)n_lines) ? 0 : fail("status 0 with non-finite A");
    if (status_is(s, ATOMGPU_ERR_NOT_FINITE, NULL)) return 1;
    double amplitudes[4];
    fill(amplitudes, 4, SENTINEL);
    atomgpu_linestrength_load_lower(h, 0, 2, ls_vectors, 2, 0.0);
    return finite_or_refused(atomgpu_linestrength_amplitudes(h, 1, 0.0, amplitudes, 2, 2), amplitudes, 4);
}

static int case_ls_partition_tiny(void) {
    atomgpu_linestrength *h = make_ls();
    atomgpu_intensity_params p = ls_params();
    p.partition_function = 1e-300;
    int64_t n_lines = ISENTINEL;
    double a[8], intensity[8];
    fill(a, 8, SENTINEL), fill(intensity, 8, SENTINEL);
    int32_t s = line_list_of(h, p, &n_lines, a, intensity);
    if (s == ATOMGPU_OK) return all_finite(intensity, (size_t)n_lines) ? 0 : fail("status 0 with non-finite I");
    if (status_is(s, ATOMGPU_ERR_NOT_FINITE, "intensity")) return 1;
    return n_lines == ISENTINEL ? 0 : fail("n_lines written on error");
}

static int case_ls_temperature_denormal(void) {
    atomgpu_linestrength *h = make_ls();
    atomgpu_intensity_params p = ls_params();
    p.temperature = 5e-324;
    int64_t n_lines = ISENTINEL;
    double a[8], intensity[8];
    if (refused(line_list_of(h, p, &n_lines, a, intensity), 5, "params")) return 1;
    return strstr(message(), "temperature") != NULL ? 0 : fail("message does not name the field: %s", message());
}

/* Runaway runs. */
static int case_rk4_2_62(void) {
    atomgpu_cr *model = make_cr();
    double y[NL + 1], t[2], te_out[2], ne_out[2], p_out[2 * NL];
    int64_t n = ISENTINEL;
    cr_state(model, y);
    return refused(atomgpu_cr_run_rk4(model, y, 1e-16, HUGE_SIZE, HUGE_SIZE, 2, &n, t, te_out, ne_out, p_out), 4,
                   "n_steps");
}

static int case_rk4_time_limit(void) {
    atomgpu_cr *model = make_cr();
    double y[NL + 1], y0[NL + 1], t[2], te_out[2], ne_out[2], p_out[2 * NL];
    int64_t n = ISENTINEL, steps = (int64_t)1 << 50;
    cr_state(model, y);
    /* One step first: on a GPU the first run compiles the kernels, which no limit interrupts. */
    if (status_is(atomgpu_cr_run_rk4(model, y, 1e-16, 1, 1, 2, &n, t, te_out, ne_out, p_out), ATOMGPU_OK, NULL)) return 1;
    n = ISENTINEL;
    cr_state(model, y);
    memcpy(y0, y, sizeof y);
    if (status_is(atomgpu_set_time_limit(0.5), ATOMGPU_OK, NULL)) return 1;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int32_t s = atomgpu_cr_run_rk4(model, y, 1e-16, steps, steps, 2, &n, t, te_out, ne_out, p_out);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (status_is(s, ATOMGPU_ERR_CANCELLED, "time limit")) return 1;
    double seconds = (double)(end.tv_sec - start.tv_sec) + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    if (seconds > 10.0) return fail("stopped only after %.1f s", seconds);
    if (memcmp(y, y0, sizeof y) != 0 || n != ISENTINEL) return fail("an output was written");
    return status_is(atomgpu_set_time_limit(0.0), ATOMGPU_OK, NULL);
}

static int case_rk4_callback_stops(void) {
    atomgpu_cr *model = make_cr();
    double y[NL + 1], y0[NL + 1], t[2], te_out[2], ne_out[2], p_out[2 * NL];
    int64_t n = ISENTINEL;
    struct progress_record r = {0, 3, 0.0, 0.0, ""};
    cr_state(model, y);
    memcpy(y0, y, sizeof y);
    if (status_is(atomgpu_set_progress(record_progress, &r, 0.0), ATOMGPU_OK, NULL)) return 1;
    /* 200 steps: the CPU reports every step, a GPU every launch of at most 64 steps. */
    int32_t s = atomgpu_cr_run_rk4(model, y, 1e-16, 200, 200, 2, &n, t, te_out, ne_out, p_out);
    if (status_is(s, ATOMGPU_ERR_CANCELLED, "progress callback")) return 1;
    if (memcmp(y, y0, sizeof y) != 0 || n != ISENTINEL) return fail("an output was written");
    if (r.calls != 3) return fail("%d callback calls, want 3", r.calls);
    if (strcmp(r.task, "atomgpu_cr_run_rk4") != 0) return fail("task \"%s\"", r.task);
    if (!(r.done >= 3 && r.done < r.total && r.total == 200)) return fail("progress %g of %g", r.done, r.total);
    return 0;
}

static int case_rk4_callback_to_the_end(void) {
    atomgpu_cr *model = make_cr();
    double y[NL + 1], t[2], te_out[2], ne_out[2], p_out[2 * NL];
    int64_t n = ISENTINEL;
    struct progress_record r = {0, -1, 0.0, 0.0, ""};
    cr_state(model, y);
    atomgpu_set_progress(record_progress, &r, 0.0);
    if (status_is(atomgpu_cr_run_rk4(model, y, 1e-16, 200, 200, 2, &n, t, te_out, ne_out, p_out), ATOMGPU_OK, NULL))
        return 1;
    return r.done == 200 && r.total == 200 ? 0 : fail("last report %g of %g", r.done, r.total);
}

static int case_line_list_callback_stops(void) {
    atomgpu_linestrength *h = make_ls();
    struct progress_record r = {0, 1, 0.0, 0.0, ""};
    atomgpu_set_progress(record_progress, &r, 0.0);
    int64_t n_lines = ISENTINEL;
    double a[8], intensity[8];
    if (status_is(line_list_of(h, ls_params(), &n_lines, a, intensity), ATOMGPU_ERR_CANCELLED, NULL)) return 1;
    if (strcmp(r.task, "atomgpu_linestrength_line_list") != 0) return fail("task \"%s\"", r.task);
    return n_lines == ISENTINEL ? 0 : fail("n_lines written");
}

/* The infallible functions, with odd arguments. */
static int case_infallible(void) {
    const int32_t codes[4] = {-1, 10, INT32_MIN, INT32_MAX};
    for (int i = 0; i < 4; i++) {
        const char *text = atomgpu_status_string(codes[i]);
        if (text == NULL || strcmp(text, "unknown status code") != 0) return fail("status_string(%d)", (int)codes[i]);
    }
    double mu[1];
    const double bad_te[1] = {-1.0};
    atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, 1, bad_te, ne, mu);
    int64_t length = atomgpu_last_error_message(NULL, 100);
    char small[4] = {'x', 'x', 'x', 'x'};
    if (length <= 0 || atomgpu_last_error_message(small, 0) != length || small[0] != 'x')
        return fail("last_error_message with no room");
    if (atomgpu_last_error_message(small, 3) != length || small[2] != 0 || small[3] != 'x')
        return fail("last_error_message does not truncate to the capacity");
    if (atomgpu_last_error_arg() != 3) return fail("last_error_arg %d", (int)atomgpu_last_error_arg());
    if (atomgpu_abi_version() != ATOMGPU_ABI_VERSION) return fail("abi_version");
    const char *version = atomgpu_version_string();
    return version != NULL && strlen(version) >= 5 ? 0 : fail("version_string");
}

/* Threads on shared handles. */
#define THREADS 8

struct cr_work {
    atomgpu_cr *model;
    double y[NL + 1];
    int32_t status;
};

static void *cr_thread(void *arg) {
    struct cr_work *w = arg;
    double t[2], te_out[2], ne_out[2], p_out[2 * NL];
    int64_t n;
    w->status = atomgpu_cr_run_rk4(w->model, w->y, 1e-16, 10, 10, 2, &n, t, te_out, ne_out, p_out);
    return NULL;
}

static int case_threads_cr(void) {
    atomgpu_cr *model = make_cr();
    struct cr_work work[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        work[i].model = model;
        cr_state(model, work[i].y);
        pthread_create(&threads[i], NULL, cr_thread, &work[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (work[i].status != ATOMGPU_OK) return fail("thread %d: status %d", i, (int)work[i].status);
        if (memcmp(work[i].y, work[0].y, sizeof work[0].y) != 0) return fail("thread %d: different numbers", i);
    }
    return 0;
}

struct ls_work {
    atomgpu_linestrength *h;
    int64_t n_lines[20];
    double a[20][8];
    int32_t status;
};

static void *ls_thread(void *arg) {
    struct ls_work *w = arg;
    w->status = ATOMGPU_OK;
    for (int r = 0; r < 20 && w->status == ATOMGPU_OK; r++) {
        double intensity[8];
        fill(w->a[r], 8, 0.0);
        w->status = line_list_of(w->h, ls_params(), &w->n_lines[r], w->a[r], intensity);
    }
    return NULL;
}

static int case_threads_linestrength(void) {
    atomgpu_linestrength *h = make_ls();
    static struct ls_work work[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        work[i].h = h;
        pthread_create(&threads[i], NULL, ls_thread, &work[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (work[i].status != ATOMGPU_OK) return fail("thread %d: status %d", i, (int)work[i].status);
        for (int r = 0; r < 20; r++)
            if (work[i].n_lines[r] != 3 || memcmp(work[i].a[r], work[0].a[0], sizeof work[0].a[0]) != 0)
                return fail("thread %d, round %d: %lld lines or different numbers", i, r, (long long)work[i].n_lines[r]);
    }
    return 0;
}

/* Sturmian handles. */
static int case_st_double_destroy(void) {
    atomgpu_sturmian *h = make_st();
    if (status_is(atomgpu_sturmian_destroy(h), ATOMGPU_OK, NULL)) return 1;
    if (refused(atomgpu_sturmian_destroy(h), 1, "handle")) return 1;
    return status_is(atomgpu_sturmian_destroy(NULL), ATOMGPU_OK, NULL);
}

static int case_st_destroy_other_family(void) {
    atomgpu_sturmian *h = make_st();
    atomgpu_linestrength *ls = make_ls();
    atomgpu_cr *model = make_cr();
    if (refused(atomgpu_sturmian_destroy((atomgpu_sturmian *)ls), 1, "handle")) return 1;
    if (refused(atomgpu_sturmian_destroy((atomgpu_sturmian *)model), 1, "handle")) return 1;
    if (refused(atomgpu_linestrength_destroy((atomgpu_linestrength *)h), 1, "handle")) return 1;
    if (refused(atomgpu_cr_destroy((atomgpu_cr *)h), 1, "model")) return 1;
    int64_t size = 0;
    atomgpu_sturmian_params params = st_params();
    if (status_is(atomgpu_sturmian_hamiltonian_size(h, &params, 1, st_la, st_lb, &size), ATOMGPU_OK, NULL) || size != 4)
        return fail("the Sturmian handle was harmed");
    int32_t block;
    int64_t lower;
    return status_is(atomgpu_linestrength_loaded_batch(ls, &block, &lower), ATOMGPU_OK, NULL);
}

/* Host buffers: usable over their whole length, NULL freed as a no-op, a pointer freed twice, one
 * inside a buffer and one from malloc refused at `ptr`. */
static int case_host_buffers(void) {
    void *p = NULL;
    if (status_is(atomgpu_host_alloc(1 << 20, &p), ATOMGPU_OK, NULL)) return 1;
    memset(p, 0x5a, 1 << 20);
    if (refused(atomgpu_host_free((char *)p + 8), 1, "ptr")) return 1;
    if (status_is(atomgpu_host_free(p), ATOMGPU_OK, NULL)) return 1;
    if (refused(atomgpu_host_free(p), 1, "ptr")) return 1;
    void *heap = malloc(16);
    int r = refused(atomgpu_host_free(heap), 1, "ptr");
    free(heap);
    if (r) return 1;
    return status_is(atomgpu_host_free(NULL), ATOMGPU_OK, NULL);
}

static int case_st_made_up_destroy(void) {
    static int64_t local;
    if (refused(atomgpu_sturmian_destroy((atomgpu_sturmian *)(uintptr_t)0x1234), 1, "handle")) return 1;
    return refused(atomgpu_sturmian_destroy((atomgpu_sturmian *)&local), 1, "handle");
}

/* repulsion_dev with a host pointer: on the CPU backend refused at out_dev (no device memory
 * there); on CUDA the pointer would be taken as device memory, so the case only runs on the CPU. */
static int case_st_repulsion_dev_cpu(void) {
    atomgpu_sturmian *h = make_st();
    int32_t backend = -1, major, minor;
    int64_t total, free_bytes;
    char name[64];
    if (status_is(atomgpu_device_info(&backend, name, sizeof name, &total, &free_bytes, &major, &minor), ATOMGPU_OK,
                  NULL))
        return 1;
    if (backend != ATOMGPU_BACKEND_CPU) return 0;
    double out[16];
    fill(out, 16, SENTINEL);
    if (refused(atomgpu_sturmian_repulsion_dev(h, 0, 0, 0, 0, 0, 0, out, 16, 4), 8, "out_dev")) return 1;
    if (strstr(message(), "CPU backend") == NULL) return fail("message lacks \"CPU backend\": %s", message());
    return all_equal(out, 16, SENTINEL) ? 0 : fail("an output was written");
}

/* A channel of another basis's grid size, and channels the calls name but nobody added. */
static int case_st_missing_channels(void) {
    atomgpu_sturmian *h = make_st();
    double out[16], beta[2] = {1.0, 2.0};
    fill(out, 16, SENTINEL);
    if (refused(atomgpu_sturmian_repulsion(h, 3, 0, 0, 0, 0, 0, out, 4, 4), 2, "lpa")) return 1;
    if (refused(atomgpu_sturmian_repulsion(h, 0, 3, 0, 0, 0, 0, out, 4, 4), 3, "lpb")) return 1;
    if (refused(atomgpu_sturmian_repulsion(h, 0, 0, 3, 0, 0, 0, out, 4, 4), 4, "la")) return 1;
    if (refused(atomgpu_sturmian_repulsion(h, 0, 0, 0, 3, 0, 0, out, 4, 4), 5, "lb")) return 1;
    const int32_t three[1] = {3};
    int64_t size = ISENTINEL;
    atomgpu_sturmian_params params = st_params();
    if (refused(atomgpu_sturmian_hamiltonian_size(h, &params, 1, three, st_lb, &size), 4, "la")) return 1;
    if (refused(atomgpu_sturmian_hamiltonian_size(h, &params, 1, st_la, three, &size), 5, "lb")) return 1;
    /* values of a 17-point grid declared with ld 16 < n_points. */
    if (refused(atomgpu_sturmian_add_channel(h, 0, 2, 2, st_values, ST_NP - 1, beta, st_generating, NULL), 6, "ld_values"))
        return 1;
    return all_equal(out, 16, SENTINEL) && size == ISENTINEL ? 0 : fail("an output was written");
}

/* one_electron of a channel never added: refused at `l` (position 3), outputs untouched. */
static int case_st_one_electron_missing(void) {
    atomgpu_sturmian *h = make_st();
    double o[4], g[4];
    fill(o, 4, SENTINEL), fill(g, 4, SENTINEL);
    if (refused(atomgpu_sturmian_one_electron(h, ATOMGPU_ELECTRON_A, 3, o, 2, 2, g, 2, 2), 3, "l")) return 1;
    if (refused(atomgpu_sturmian_one_electron(h, ATOMGPU_ELECTRON_B, 3, o, 2, 2, g, 2, 2), 3, "l")) return 1;
    return all_equal(o, 4, SENTINEL) && all_equal(g, 4, SENTINEL) ? 0 : fail("an output was written");
}

/* Absurd but finite inputs: no NaN/Inf with status 0. */
static int case_st_values_1e300(void) {
    atomgpu_sturmian *h = make_st();
    double values[2 * ST_NP], out[16], o[4], g[4];
    for (int i = 0; i < 2 * ST_NP; i++) values[i] = 1e300;
    fill(out, 16, SENTINEL), fill(o, 4, SENTINEL), fill(g, 4, SENTINEL);
    int32_t s = atomgpu_sturmian_add_channel(h, ATOMGPU_ELECTRON_A, 0, 2, values, ST_NP, st_beta, st_generating, NULL);
    if (s != ATOMGPU_OK) return finite_or_refused(s, out, 16);
    if (finite_or_refused(atomgpu_sturmian_one_electron(h, ATOMGPU_ELECTRON_A, 0, o, 2, 2, g, 2, 2), o, 4)) return 1;
    return finite_or_refused(atomgpu_sturmian_repulsion(h, 0, 0, 0, 0, 0, 0, out, 4, 4), out, 16);
}

/* Threads on one shared Sturmian handle: bit-identical Hamiltonians. */
struct st_work {
    atomgpu_sturmian *h;
    double ham[16], s[16];
    int32_t status;
};

static void *st_thread(void *arg) {
    struct st_work *w = arg;
    atomgpu_sturmian_params p = st_params();
    w->status = ATOMGPU_OK;
    for (int r = 0; r < 20 && w->status == ATOMGPU_OK; r++)
        w->status = atomgpu_sturmian_hamiltonian(w->h, &p, 1, st_la, st_lb, ATOMGPU_ORDER_A_FASTEST, w->ham, 4, 4, w->s, 4, 4);
    return NULL;
}

static int case_threads_sturmian(void) {
    atomgpu_sturmian *h = make_st();
    static struct st_work work[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        work[i].h = h;
        pthread_create(&threads[i], NULL, st_thread, &work[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (work[i].status != ATOMGPU_OK) return fail("thread %d: status %d", i, (int)work[i].status);
        if (memcmp(work[i].ham, work[0].ham, sizeof work[0].ham) != 0 || memcmp(work[i].s, work[0].s, sizeof work[0].s) != 0)
            return fail("thread %d: different numbers", i);
    }
    return all_finite(work[0].ham, 16) ? 0 : fail("non-finite Hamiltonian");
}

static const struct {
    const char *name;
    int (*run)(void);
} special[] = {
    {"cr_create: n_excitations = 2^40 is out of memory", case_huge_excitations},
    {"cr_create: n_ionizations = 2^40 is out of memory", case_huge_ionizations},
    {"cr_create: n_excitations = 2^62 overflows", case_overflowing_excitations},
    {"cr_create: n_ionizations = 2^62 overflows", case_overflowing_ionizations},
    {"cr_create: n_levels = 2^40 is out of memory", case_huge_levels},
    {"200000 levels: derivatives need no n x n matrix", case_big_model_derivatives},
    {"200000 levels: stiff run's Jacobian is out of memory", case_big_model_stiff},
    {"200000 levels: rate matrix is out of memory", case_big_model_rate_matrix},
    {"200000 levels: one RK4 step", case_big_model_rk4},
    {"add_block: n_sym = 2^40", case_n_sym_2_40},
    {"add_block: n_sym = 2^31", case_n_sym_2_31},
    {"add_block: row_start not from 0", case_csr_start},
    {"add_block: row_start decreasing", case_csr_decreasing},
    {"add_block: col out of range", case_csr_column},
    {"add_block: NaN value", case_csr_nan},
    {"add_block: J = 0, K = 0, tau = 1", case_wang_k0_tau1_j0},
    {"double destroy", case_double_destroy},
    {"destroy with the other family", case_destroy_other_family},
    {"destroy made-up handles", case_made_up_destroy},
    {"chemical potential: n_e = 1e300", case_ne_1e300},
    {"chemical potential: T_e = 1e300", case_te_1e300},
    {"chemical potential: T_e = 5e-324", case_te_denormal},
    {"excitation: E = DBL_MAX", case_energy_dbl_max},
    {"excitation: E = 5e-324", case_energy_denormal},
    {"excitation: B_k = 1e300", case_omega_1e300},
    {"ionization: BELI = 1e300", case_beli_1e300},
    {"photoionization: D0 = D1 = 1e300", case_d0_1e300},
    {"excitation: weights 1e300", case_weights_1e300},
    {"excitation: weights 1e-300", case_weights_1e_300},
    {"temperature: u = 1e-300, Maxwell-Boltzmann", case_inversion_mb},
    {"temperature: u = 1e-300, Fermi-Dirac", case_inversion_fd},
    {"set_states: energies of +-DBL_MAX", case_ls_energy_dbl_max},
    {"line strengths: dipole of 1e300", case_ls_dipole_1e300},
    {"line list: partition function 1e-300", case_ls_partition_tiny},
    {"line list: temperature 5e-324", case_ls_temperature_denormal},
    {"run_rk4: n_steps = 2^62", case_rk4_2_62},
    {"run_rk4: 2^50 steps under a time limit", case_rk4_time_limit},
    {"run_rk4: the callback stops the run", case_rk4_callback_stops},
    {"run_rk4: the callback sees the run to its end", case_rk4_callback_to_the_end},
    {"line_list: the callback stops the list", case_line_list_callback_stops},
    {"status_string, last_error_*, version_string, abi_version with odd arguments", case_infallible},
    {"8 threads on one CR model", case_threads_cr},
    {"8 threads on one line-strength handle", case_threads_linestrength},
    {"sturmian: double destroy", case_st_double_destroy},
    {"sturmian: destroy with the other families", case_st_destroy_other_family},
    {"sturmian: destroy made-up handles", case_st_made_up_destroy},
    {"sturmian_repulsion_dev: a host pointer on the CPU backend", case_st_repulsion_dev_cpu},
    {"sturmian: channels never added, ld below the grid's points", case_st_missing_channels},
    {"sturmian_one_electron: a channel never added", case_st_one_electron_missing},
    {"sturmian: values of 1e300", case_st_values_1e300},
    {"8 threads on one Sturmian handle", case_threads_sturmian},
    {"host buffers: double free, foreign and interior pointers", case_host_buffers},
    RELIABILITY_SCF_SPECIAL
    RELIABILITY_TDSE_SPECIAL
    RELIABILITY_STURMIAN_SPECIAL
    RELIABILITY_LINES_CR_SPECIAL
    RELIABILITY_PROCESS_SPECIAL
    RELIABILITY_STURMIAN_GSF_SPECIAL
    RELIABILITY_DEVICES_SPECIAL
};
#define N_SPECIAL (sizeof special / sizeof special[0])

/* ------------------------------------------------------------------------------------------ */
/* The harness. */

static int passed = 0, failed = 0, crashed = 0, hung = 0;

/* RELIABILITY_FILTER=TEXT1|TEXT2|...: only the cases whose name holds one of the texts (for a
 * device run, or while developing); unset: every case. */
static int selected(const char *name) {
    const char *filter = getenv("RELIABILITY_FILTER");
    if (filter == NULL) return 1;
    for (const char *part = filter; *part;) {
        const char *bar = strchr(part, '|');
        size_t len = bar ? (size_t)(bar - part) : strlen(part);
        char text[256];
        if (len < sizeof text) {
            memcpy(text, part, len);
            text[len] = 0;
            if (strstr(name, text) != NULL) return 1;
        }
        if (!bar) break;
        part = bar + 1;
    }
    return 0;
}

/* Runs `run(index, kind)` in a child; counts and reports the outcome as case `name`. */
static void run_case(const char *name, int (*run)(int, int), int index, int kind) {
    if (!selected(name)) return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        alarm(CASE_SECONDS);
        int bad = run(index, kind);
        fflush(stdout);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        passed++;
        return;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        hung++;
        printf("HUNG    %s (more than %d s)\n", name, CASE_SECONDS);
    } else if (WIFSIGNALED(status)) {
        crashed++;
        printf("CRASHED %s (signal %d: %s)\n", name, WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        failed++;
        printf("FAILED  %s\n", name);
    }
}

static int argument_case(int index, int kind) { return run_argument_case(index, kind); }
static int valid_case(int index, int unused) { return (void)unused, run_valid_case(index); }
static int handle_case(int index, int variant) { return run_handle_case(index, variant); }
static int special_case(int index, int unused) { return (void)unused, special[index].run(); }

int main(void) {
    static const char *kind_names[] = {"", "NULL", "0", "-1", "2^62", "NaN", "+Inf"};
    static const char *handle_variants[] = {"destroyed", "of the other family", "made up"};
    char name[256];
    for (size_t i = 0; i < N_VALID; i++) {
        snprintf(name, sizeof name, "%s: valid arguments", valid_calls[i].function);
        run_case(name, valid_case, (int)i, 0);
    }
    for (size_t i = 0; i < N_ARGUMENTS; i++) {
        for (const char *k = arguments[i].kinds; *k; k++) {
            int kind = kind_of_letter(*k);
            snprintf(name, sizeof name, "%s: `%s` = %s", arguments[i].function, arguments[i].name, kind_names[kind]);
            run_case(name, argument_case, (int)i, kind);
        }
        /* The handle argument of a call on a handle, made bad in three ways. */
        int takes_handle = arguments[i].position == 1 && arguments[i].kinds[0] == 'n' &&
                           (strcmp(arguments[i].name, "model") == 0 || strcmp(arguments[i].name, "handle") == 0) &&
                           arguments[i].call != call_cr_create && arguments[i].call != call_ls_create &&
                           arguments[i].call != call_ls_create_on_devices && arguments[i].call != call_ls_set_group &&
                           arguments[i].call != call_ls_add_block_species &&
                           arguments[i].call != call_st_create && arguments[i].call != call_scf_create &&
                           arguments[i].call != call_td_create;
        for (int v = 0; takes_handle && v < 3; v++) {
            /* atomgpu_handle_devices takes a handle of any family. */
            if (v == 1 && arguments[i].call == call_dv_handle_devices) continue;
            snprintf(name, sizeof name, "%s: `%s` %s", arguments[i].function, arguments[i].name, handle_variants[v]);
            run_case(name, handle_case, (int)i, v);
        }
    }
    for (size_t i = 0; i < N_SPECIAL; i++) run_case(special[i].name, special_case, (int)i, 0);
    int total = passed + failed + crashed + hung;
    printf("reliability suite: %d cases: %d passed, %d failed an expectation, %d crashed, %d hung\n", total, passed,
           failed, crashed, hung);
    printf("%d passed, %d failed\n", passed, total - passed);
    return passed == total ? 0 : 1;
}
