/*
 * test_bad_input.c: every C entry point of the rates family (and the library-wide ones) given a
 * NULL pointer, a negative or zero size, a NaN temperature, a negative density and the other
 * rules of its arguments must return ATOMGPU_ERR_INVALID_ARGUMENT, report the offending
 * argument's 1-based position through atomgpu_last_error_arg(), name it in
 * atomgpu_last_error_message(), and leave every output untouched.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_bad_input.c -o test_bad_input \
 *      -Ltarget/release -latomgpu -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-12345.0)
#define N_OUT 64

/* Output arrays of every call: filled with SENTINEL before, checked after. */
static double out_a[N_OUT], out_b[N_OUT];
static int32_t out_i[4];
static int64_t out_l[2];
static char out_name[32];

static void reset(void) {
    for (int i = 0; i < N_OUT; i++) out_a[i] = out_b[i] = SENTINEL;
    for (int i = 0; i < 4; i++) out_i[i] = -7;
    for (int i = 0; i < 2; i++) out_l[i] = -7;
    memset(out_name, 'x', sizeof out_name);
}

static int untouched(void) {
    for (int i = 0; i < N_OUT; i++)
        if (out_a[i] != SENTINEL || out_b[i] != SENTINEL) return 0;
    for (int i = 0; i < 4; i++)
        if (out_i[i] != -7) return 0;
    for (int i = 0; i < 2; i++)
        if (out_l[i] != -7) return 0;
    for (size_t i = 0; i < sizeof out_name; i++)
        if (out_name[i] != 'x') return 0;
    return 1;
}

/* `status` is the result of a call made after reset(); `name` is the C parameter at
 * `position`; `fragment` (may be NULL) must also appear in the message (e.g. "[1]"). */
static void expect_bad(const char *what, int32_t status, int32_t position, const char *name, const char *fragment) {
    char message[1024];
    int64_t length;
    int ok = invalid_argument_reported(what, status, position, name, fragment, message, sizeof message, &length);
    checks++;
    if (length != (int64_t)strlen(message)) {
        printf("FAIL %s: atomgpu_last_error_message returned %lld for a %zu-byte message\n", what, (long long)length,
               strlen(message));
        ok = 0;
    }
    if (!untouched()) {
        printf("FAIL %s: an output was written on error\n", what);
        ok = 0;
    }
    if (!ok) failures++;
}

static void expect_ok(const char *what, int32_t status) {
    checks++;
    if (status != ATOMGPU_OK || atomgpu_last_error_arg() != 0 || atomgpu_last_error_message(NULL, 0) != 0) {
        printf("FAIL %s: status %d, want ATOMGPU_OK with no last error\n", what, (int)status);
        failures++;
    }
}

/* Inputs: two plasma states, two transitions; each bad variant differs in element 1. */
static const double te[2] = {1.0, 10.0};
static const double ne[2] = {1e21, 1e22};
static const double tr[2] = {5.0, 50.0};
static double te_nan[2], te_inf[2], ne_neg[2], ne_zero[2], tr_nan[2];
static const double energy[2] = {5.0, 10.0};
static const double energy_zero[2] = {5.0, 0.0};
static const double omega[12] = {0.1, 1.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.5, 0.1, 0.0, 0.0, 0.0};
static double omega_nan[12];
static const double beli[10] = {1.0, 0.5, 0.0, 0.0, 0.0, 2.0, -0.5, 0.1, 0.0, 0.0};
static double beli_nan[10];
static const double g[2] = {2.0, 6.0};
static const double g_zero[2] = {2.0, 0.0};
static const double g_neg[2] = {2.0, -1.0};
static const double d0[2] = {1e-18, 2e-18};
static const double d1[2] = {0.0, 1e-18};
static double d1_inf[2];
static const double z2n[2] = {1e21, 1e22};
static const double z2n_neg[2] = {1e21, -1.0};

static void init(void) {
    memcpy(te_nan, te, sizeof te);
    te_nan[1] = NAN;
    memcpy(te_inf, te, sizeof te);
    te_inf[1] = INFINITY;
    memcpy(ne_neg, ne, sizeof ne);
    ne_neg[1] = -1e21;
    memcpy(ne_zero, ne, sizeof ne);
    ne_zero[1] = 0.0;
    memcpy(tr_nan, tr, sizeof tr);
    tr_nan[1] = NAN;
    memcpy(omega_nan, omega, sizeof omega);
    omega_nan[7] = NAN; /* B1 of transition 1 */
    memcpy(beli_nan, beli, sizeof beli);
    beli_nan[6] = INFINITY;
    d1_inf[0] = 0.0;
    d1_inf[1] = -INFINITY;
}

#define FD ATOMGPU_STATS_FERMI_DIRAC
#define MB ATOMGPU_STATS_MAXWELL_BOLTZMANN

static void test_common(void) {
    reset();
    expect_bad("version: NULL major", atomgpu_version(NULL, &out_i[1], &out_i[2]), 1, "major", NULL);
    reset();
    expect_bad("version: NULL patch", atomgpu_version(&out_i[0], &out_i[1], NULL), 3, "patch", NULL);
    reset();
    expect_bad("set_backend: out of range", atomgpu_set_backend(-3), 1, "backend", NULL);
    reset();
    /* NULL outputs of atomgpu_device_info mean "not wanted"; the capacity is read only with a name. */
    checks++;
    if (atomgpu_device_info(NULL, NULL, -1, NULL, NULL, NULL, NULL) != ATOMGPU_OK) {
        failures++;
        printf("FAIL device_info: every output NULL must be accepted\n");
    }
    out_i[2] = -7;
    checks++;
    if (atomgpu_device_info(&out_i[2], NULL, 0, NULL, NULL, NULL, NULL) != ATOMGPU_OK ||
        (out_i[2] != ATOMGPU_BACKEND_CPU && out_i[2] != ATOMGPU_BACKEND_CUDA)) {
        failures++;
        printf("FAIL device_info: the backend alone\n");
    }
    reset();
    expect_bad("device_info: negative capacity",
               atomgpu_device_info(&out_i[2], out_name, -1, &out_l[0], &out_l[1], &out_i[0], &out_i[1]), 3,
               "name_capacity", NULL);
}

/* chemical_potential and energy_density share their signature. */
typedef int32_t (*gas_fn)(int32_t, int64_t, const double *, const double *, double *);

static void test_gas(const char *fn_name, gas_fn f, const char *out_name_c) {
    char what[160];
#define WHAT(s) (snprintf(what, sizeof what, "%s: %s", fn_name, s), what)
    reset();
    expect_bad(WHAT("stats out of range"), f(2, 2, te, ne, out_a), 1, "stats", NULL);
    reset();
    expect_bad(WHAT("stats negative"), f(-1, 2, te, ne, out_a), 1, "stats", NULL);
    reset();
    expect_bad(WHAT("negative size"), f(FD, -2, te, ne, out_a), 2, "n_states", NULL);
    reset();
    expect_bad(WHAT("zero size"), f(MB, 0, te, ne, out_a), 2, "n_states", NULL);
    reset();
    expect_bad(WHAT("absurd size"), f(MB, INT64_MAX, te, ne, out_a), 2, "n_states", NULL);
    reset();
    expect_bad(WHAT("NULL te_ev"), f(FD, 2, NULL, ne, out_a), 3, "te_ev", NULL);
    reset();
    expect_bad(WHAT("NaN temperature"), f(FD, 2, te_nan, ne, out_a), 3, "te_ev", "[1]");
    reset();
    expect_bad(WHAT("infinite temperature"), f(MB, 2, te_inf, ne, out_a), 3, "te_ev", "[1]");
    reset();
    expect_bad(WHAT("NULL ne_cm3"), f(FD, 2, te, NULL, out_a), 4, "ne_cm3", NULL);
    reset();
    expect_bad(WHAT("negative density"), f(FD, 2, te, ne_neg, out_a), 4, "ne_cm3", "[1]");
    reset();
    expect_bad(WHAT("zero density"), f(MB, 2, te, ne_zero, out_a), 4, "ne_cm3", "[1]");
    reset();
    expect_bad(WHAT("NULL output"), f(FD, 2, te, ne, NULL), 5, out_name_c, NULL);
    reset();
    expect_bad(WHAT("first bad argument wins"), f(FD, 2, te_nan, ne_neg, out_a), 3, "te_ev", NULL);
    expect_ok(WHAT("valid call"), f(FD, 2, te, ne, out_a));
#undef WHAT
}

static void test_temperature(void) {
    const double u[2] = {1.5e21, 1.5e23};
    double u_nan[2] = {1.5e21, NAN};
    /* Fermi-Dirac: u must exceed the ground state (3/5) ne E_F (~2.2e25 eV cm^-3 at 1e24). */
    const double u_low[1] = {1e24}, ne_deg[1] = {1e24};
    reset();
    expect_bad("temperature: stats", atomgpu_rates_temperature(3, 2, u, ne, out_a, out_b), 1, "stats", NULL);
    reset();
    expect_bad("temperature: negative size", atomgpu_rates_temperature(FD, -1, u, ne, out_a, out_b), 2, "n_states", NULL);
    reset();
    expect_bad("temperature: NULL u", atomgpu_rates_temperature(FD, 2, NULL, ne, out_a, out_b), 3, "u_ev_cm3", NULL);
    reset();
    expect_bad("temperature: NaN u", atomgpu_rates_temperature(FD, 2, u_nan, ne, out_a, out_b), 3, "u_ev_cm3", "[1]");
    reset();
    expect_bad("temperature: below the Fermi ground state", atomgpu_rates_temperature(FD, 1, u_low, ne_deg, out_a, out_b), 3,
               "u_ev_cm3", "[0]");
    reset();
    expect_bad("temperature: negative density", atomgpu_rates_temperature(MB, 2, u, ne_neg, out_a, out_b), 4, "ne_cm3", "[1]");
    reset();
    expect_bad("temperature: NULL te_ev", atomgpu_rates_temperature(FD, 2, u, ne, NULL, out_b), 5, "te_ev", NULL);
    reset();
    expect_bad("temperature: NULL mu_ev", atomgpu_rates_temperature(FD, 2, u, ne, out_a, NULL), 6, "mu_ev", NULL);
    expect_ok("temperature: valid call", atomgpu_rates_temperature(FD, 2, u, ne, out_a, out_b));
}

/* excitation and ionization share their signature. */
typedef int32_t (*collisional_fn)(int32_t, double, int32_t, int64_t, const double *, const double *, int64_t,
                                  const double *, const double *, const double *, const double *, double *, double *);

static void test_collisional(const char *fn_name, collisional_fn f, const char *coef_name, const double *coef,
                             const double *coef_bad, const char *coef_fragment) {
    char what[160];
#define WHAT(s) (snprintf(what, sizeof what, "%s: %s", fn_name, s), what)
    double *up = out_a, *down = out_b;
    reset();
    expect_bad(WHAT("stats out of range"), f(2, 5, 32, 2, te, ne, 2, energy, coef, g, g, up, down), 1, "stats", NULL);
    reset();
    expect_bad(WHAT("accuracy_p zero"), f(FD, 0, 32, 2, te, ne, 2, energy, coef, g, g, up, down), 2, "accuracy_p", NULL);
    reset();
    expect_bad(WHAT("accuracy_p NaN"), f(FD, NAN, 32, 2, te, ne, 2, energy, coef, g, g, up, down), 2, "accuracy_p", NULL);
    reset();
    expect_bad(WHAT("accuracy_p too large"), f(FD, 16, 32, 2, te, ne, 2, energy, coef, g, g, up, down), 2, "accuracy_p", NULL);
    reset();
    expect_bad(WHAT("nodes 1"), f(FD, 5, 1, 2, te, ne, 2, energy, coef, g, g, up, down), 3, "nodes", NULL);
    reset();
    expect_bad(WHAT("nodes 257"), f(FD, 5, 257, 2, te, ne, 2, energy, coef, g, g, up, down), 3, "nodes", NULL);
    reset();
    expect_bad(WHAT("nodes negative"), f(FD, 5, -32, 2, te, ne, 2, energy, coef, g, g, up, down), 3, "nodes", NULL);
    reset();
    expect_bad(WHAT("negative n_states"), f(FD, 5, 32, -2, te, ne, 2, energy, coef, g, g, up, down), 4, "n_states", NULL);
    reset();
    expect_bad(WHAT("NULL te_ev"), f(FD, 5, 32, 2, NULL, ne, 2, energy, coef, g, g, up, down), 5, "te_ev", NULL);
    reset();
    expect_bad(WHAT("NaN temperature"), f(FD, 5, 32, 2, te_nan, ne, 2, energy, coef, g, g, up, down), 5, "te_ev", "[1]");
    reset();
    expect_bad(WHAT("NULL ne_cm3"), f(MB, 5, 32, 2, te, NULL, 2, energy, coef, g, g, up, down), 6, "ne_cm3", NULL);
    reset();
    expect_bad(WHAT("negative density"), f(MB, 5, 32, 2, te, ne_neg, 2, energy, coef, g, g, up, down), 6, "ne_cm3", "[1]");
    reset();
    expect_bad(WHAT("negative n_transitions"), f(FD, 5, 32, 2, te, ne, -1, energy, coef, g, g, up, down), 7, "n_transitions", NULL);
    reset();
    expect_bad(WHAT("zero n_transitions"), f(FD, 5, 32, 2, te, ne, 0, energy, coef, g, g, up, down), 7, "n_transitions", NULL);
    reset();
    expect_bad(WHAT("NULL energy_ev"), f(FD, 5, 32, 2, te, ne, 2, NULL, coef, g, g, up, down), 8, "energy_ev", NULL);
    reset();
    expect_bad(WHAT("zero energy"), f(FD, 5, 32, 2, te, ne, 2, energy_zero, coef, g, g, up, down), 8, "energy_ev", "[1]");
    reset();
    expect_bad(WHAT("NULL coefficients"), f(FD, 5, 32, 2, te, ne, 2, energy, NULL, g, g, up, down), 9, coef_name, NULL);
    reset();
    expect_bad(WHAT("non-finite coefficient"), f(FD, 5, 32, 2, te, ne, 2, energy, coef_bad, g, g, up, down), 9, coef_name,
               coef_fragment);
    reset();
    expect_bad(WHAT("zero g_lower"), f(FD, 5, 32, 2, te, ne, 2, energy, coef, g_zero, g, up, down), 10, "g_lower", "[1]");
    reset();
    expect_bad(WHAT("negative g_upper"), f(FD, 5, 32, 2, te, ne, 2, energy, coef, NULL, g_neg, up, down), 11, "g_upper", "[1]");
    reset();
    expect_bad(WHAT("NULL up"), f(FD, 5, 32, 2, te, ne, 2, energy, coef, g, g, NULL, down), 12, "up", NULL);
    reset();
    expect_bad(WHAT("NULL down"), f(FD, 5, 32, 2, te, ne, 2, energy, coef, g, g, up, NULL), 13, "down", NULL);
    expect_ok(WHAT("valid call, no weights"), f(FD, 5, 32, 2, te, ne, 2, energy, coef, NULL, NULL, up, down));
#undef WHAT
}

static void test_photoionization(void) {
    double *rate = out_a, *heating = out_b;
    reset();
    expect_bad("photoionization: stats", atomgpu_rates_photoionization(7, 5, 32, 2, te, ne, tr, 2, energy, d0, d1, rate, heating), 1, "stats", NULL);
    reset();
    expect_bad("photoionization: accuracy_p", atomgpu_rates_photoionization(FD, -1, 32, 2, te, ne, tr, 2, energy, d0, d1, rate, heating), 2, "accuracy_p", NULL);
    reset();
    expect_bad("photoionization: nodes", atomgpu_rates_photoionization(FD, 5, 0, 2, te, ne, tr, 2, energy, d0, d1, rate, heating), 3, "nodes", NULL);
    reset();
    expect_bad("photoionization: negative n_states", atomgpu_rates_photoionization(FD, 5, 32, -5, te, ne, tr, 2, energy, d0, d1, rate, heating), 4, "n_states", NULL);
    reset();
    expect_bad("photoionization: NULL te_ev", atomgpu_rates_photoionization(FD, 5, 32, 2, NULL, ne, tr, 2, energy, d0, d1, rate, heating), 5, "te_ev", NULL);
    reset();
    expect_bad("photoionization: NaN temperature", atomgpu_rates_photoionization(FD, 5, 32, 2, te_nan, ne, tr, 2, energy, d0, d1, rate, heating), 5, "te_ev", "[1]");
    reset();
    expect_bad("photoionization: negative density", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne_neg, tr, 2, energy, d0, d1, rate, heating), 6, "ne_cm3", "[1]");
    reset();
    expect_bad("photoionization: NULL tr_ev", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, NULL, 2, energy, d0, d1, rate, heating), 7, "tr_ev", NULL);
    reset();
    expect_bad("photoionization: NaN radiation temperature", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr_nan, 2, energy, d0, d1, rate, heating), 7, "tr_ev", "[1]");
    reset();
    expect_bad("photoionization: negative n_transitions", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, -1, energy, d0, d1, rate, heating), 8, "n_transitions", NULL);
    reset();
    expect_bad("photoionization: zero energy", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy_zero, d0, d1, rate, heating), 9, "energy_ev", "[1]");
    reset();
    expect_bad("photoionization: NULL d0_cm2", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy, NULL, d1, rate, heating), 10, "d0_cm2", NULL);
    reset();
    expect_bad("photoionization: infinite d1_cm2", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy, d0, d1_inf, rate, heating), 11, "d1_cm2", "[1]");
    reset();
    expect_bad("photoionization: NULL rate", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy, d0, d1, NULL, heating), 12, "rate", NULL);
    reset();
    expect_bad("photoionization: NULL heating", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy, d0, d1, rate, NULL), 13, "heating", NULL);
    expect_ok("photoionization: valid call", atomgpu_rates_photoionization(FD, 5, 32, 2, te, ne, tr, 2, energy, d0, d1, rate, heating));
}

static void test_inverse_bremsstrahlung(void) {
    double *heating = out_a;
    reset();
    expect_bad("inverse_bremsstrahlung: stats", atomgpu_rates_inverse_bremsstrahlung(-1, 5, 32, 2, te, ne, tr, z2n, heating), 1, "stats", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: accuracy_p", atomgpu_rates_inverse_bremsstrahlung(FD, INFINITY, 32, 2, te, ne, tr, z2n, heating), 2, "accuracy_p", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: nodes", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 100000, 2, te, ne, tr, z2n, heating), 3, "nodes", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: negative n_states", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, -1, te, ne, tr, z2n, heating), 4, "n_states", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: NaN temperature", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te_nan, ne, tr, z2n, heating), 5, "te_ev", "[1]");
    reset();
    expect_bad("inverse_bremsstrahlung: NULL ne_cm3", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, NULL, tr, z2n, heating), 6, "ne_cm3", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: negative density", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne_neg, tr, z2n, heating), 6, "ne_cm3", "[1]");
    reset();
    expect_bad("inverse_bremsstrahlung: NaN radiation temperature", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne, tr_nan, z2n, heating), 7, "tr_ev", "[1]");
    reset();
    expect_bad("inverse_bremsstrahlung: NULL z2n_cm3", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne, tr, NULL, heating), 8, "z2n_cm3", NULL);
    reset();
    expect_bad("inverse_bremsstrahlung: negative z2n_cm3", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne, tr, z2n_neg, heating), 8, "z2n_cm3", "[1]");
    reset();
    expect_bad("inverse_bremsstrahlung: NULL heating", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne, tr, z2n, NULL), 9, "heating", NULL);
    expect_ok("inverse_bremsstrahlung: valid call", atomgpu_rates_inverse_bremsstrahlung(FD, 5, 32, 2, te, ne, tr, z2n, heating));
}

int main(void) {
    init();
    test_common();
    test_gas("chemical_potential", atomgpu_rates_chemical_potential, "mu_ev");
    test_gas("energy_density", atomgpu_rates_energy_density, "u_ev_cm3");
    test_temperature();
    test_collisional("excitation", atomgpu_rates_excitation, "omega", omega, omega_nan, "[7]");
    test_collisional("ionization", atomgpu_rates_ionization, "beli", beli, beli_nan, "[6]");
    test_photoionization();
    test_inverse_bremsstrahlung();
    /* A truncated message is NUL-terminated and the full length is still returned. */
    {
        char small[8];
        reset();
        int32_t status = atomgpu_rates_chemical_potential(FD, 2, te_nan, ne, out_a);
        int64_t full = atomgpu_last_error_message(small, sizeof small);
        checks++;
        if (status != ATOMGPU_ERR_INVALID_ARGUMENT || full <= 7 || strlen(small) != 7) {
            printf("FAIL truncated last_error_message\n");
            failures++;
        }
    }
    printf("test_bad_input: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
