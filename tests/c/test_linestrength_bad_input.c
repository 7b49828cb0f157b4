/*
 * test_linestrength_bad_input.c: every C entry point of the line-strength family
 * (src/ffi/linestrength.rs) given a NULL pointer, a negative or zero size, a NaN where a double
 * is taken, a block index out of range and its other rules must return
 * ATOMGPU_ERR_INVALID_ARGUMENT, report the offending argument's 1-based position through
 * atomgpu_last_error_arg() (a bad field of `params` at the position of `params`), name it in
 * atomgpu_last_error_message(), and leave every output, and the handle's state, untouched.
 *
 * The handle used: two vibrational functions, dipole along z only; blocks
 *   0: J = 0, v = 0, 1 (K = 0, tau = 0), states at 0 and 1000 cm^-1 (identity vectors);
 *   1: J = 1, v = 0, 1 (K = 0, tau = 1), states at 20 and 1020 cm^-1;
 *   2: J = 2, v = 0 (K = 0, tau = 0), one state (not reachable from J = 0);
 *   3: J = 1, v = 0 (K = 0, tau = 1), no states;
 * and the lower batch of both states of block 0 loaded.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_linestrength_bad_input.c \
 *      -o test_linestrength_bad_input -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-12345.0)
#define ISENTINEL (-7)
#define N_OUT 16

/* Outputs of every call: filled with sentinels before, checked after. */
static double out_a[N_OUT], out_b[N_OUT], out_c[N_OUT], out_d[N_OUT];
static int64_t out_l[N_OUT], out_m[N_OUT], out_n[4];
static int32_t out_i[4];
static char marker; /* its address is the sentinel handle */
static atomgpu_linestrength *out_h;

static void reset(void) {
    for (int i = 0; i < N_OUT; i++) {
        out_a[i] = out_b[i] = out_c[i] = out_d[i] = SENTINEL;
        out_l[i] = out_m[i] = ISENTINEL;
    }
    for (int i = 0; i < 4; i++) out_n[i] = out_i[i] = ISENTINEL;
    out_h = (atomgpu_linestrength *)(void *)&marker;
}

static int untouched(void) {
    for (int i = 0; i < N_OUT; i++)
        if (out_a[i] != SENTINEL || out_b[i] != SENTINEL || out_c[i] != SENTINEL || out_d[i] != SENTINEL ||
            out_l[i] != ISENTINEL || out_m[i] != ISENTINEL)
            return 0;
    for (int i = 0; i < 4; i++)
        if (out_n[i] != ISENTINEL || out_i[i] != ISENTINEL) return 0;
    return out_h == (atomgpu_linestrength *)(void *)&marker;
}

/* `status` is the result of a call made after reset(); `name` is the C parameter at
 * `position`; `fragment` (may be NULL) must also appear in the message (e.g. "[1]"). */
static void expect_bad(const char *what, int32_t status, int32_t position, const char *name, const char *fragment) {
    char message[1024];
    int64_t length;
    int ok = invalid_argument_reported(what, status, position, name, fragment, message, sizeof message, &length);
    checks++;
    if (!untouched()) {
        printf("FAIL %s: an output was written on error\n", what);
        ok = 0;
    }
    if (!ok) failures++;
}

static void expect_ok(const char *what, int32_t status) {
    checks++;
    if (status != ATOMGPU_OK || atomgpu_last_error_arg() != 0 || atomgpu_last_error_message(NULL, 0) != 0) {
        char message[512];
        atomgpu_last_error_message(message, sizeof message);
        printf("FAIL %s: status %d, want ATOMGPU_OK with no last error (%s)\n", what, (int)status, message);
        failures++;
    }
}

/* The data. */
static double dipole[12];            /* 2 x 2 x 3, ld 2 */
static double dipole_nan[12];
static const int64_t v2[2] = {0, 1}, v_bad[2] = {0, 2}, v1[1] = {0};
static const int32_t k2[2] = {0, 0}, k_bad[2] = {0, 1}, tau0[2] = {0, 0}, tau1[2] = {1, 1}, tau_bad[2] = {0, 2};
static const double e0[2] = {0.0, 1000.0}, e1[2] = {20.0, 1020.0}, e_nan[2] = {0.0, NAN};
static const double identity[4] = {1.0, 0.0, 0.0, 1.0}, identity_nan[4] = {1.0, 0.0, NAN, 1.0};
/* A valid unfolding T = identity (2 x 2) and broken ones. */
static const int64_t rs[3] = {0, 1, 2}, rs_decreasing[3] = {0, 2, 1}, col[2] = {0, 1}, col_bad[2] = {0, 5};
static const double val[2] = {1.0, 1.0}, val_nan[2] = {1.0, NAN};

static atomgpu_intensity_params params(void) {
    atomgpu_intensity_params p;
    p.temperature = 296.0;
    p.partition_function = 10.0;
    p.zpe = 0.0;
    p.freq_window[0] = 0.0;
    p.freq_window[1] = 1e5;
    p.lower_energy[0] = -1e5;
    p.lower_energy[1] = 1e5;
    p.upper_energy[0] = -1e5;
    p.upper_energy[1] = 1e5;
    p.thresh_coeff = 0.0;
    p.thresh_line = 0.0;
    p.thresh_intens = 0.0;
    p.batch = 2;
    p.convention = ATOMGPU_CONVENTION_DOCUMENTED;
    p.action = ATOMGPU_ACTION_ABSORPTION;
    return p;
}

static atomgpu_linestrength *h;

static void setup(void) {
    int32_t b = -1;
    memset(dipole, 0, sizeof dipole);
    /* z component (m = 2): element (v, v', 2) at v + 2 (v' + 2 * 2). */
    dipole[0 + 2 * (0 + 4)] = 1.0;
    dipole[1 + 2 * (0 + 4)] = 0.1;
    dipole[0 + 2 * (1 + 4)] = 0.1;
    dipole[1 + 2 * (1 + 4)] = 1.2;
    memcpy(dipole_nan, dipole, sizeof dipole);
    dipole_nan[9] = NAN;
    expect_ok("create", atomgpu_linestrength_create(2, dipole, 2, 0, &h));
    expect_ok("add_block 0", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 0, NULL, NULL, NULL, &b));
    expect_ok("set_states 0", atomgpu_linestrength_set_states(h, 0, 2, e0, identity, 2));
    expect_ok("add_block 1", atomgpu_linestrength_add_block(h, 1, 1.0, 2, v2, k2, tau1, 0, NULL, NULL, NULL, &b));
    expect_ok("set_states 1", atomgpu_linestrength_set_states(h, 1, 2, e1, identity, 2));
    expect_ok("add_block 2", atomgpu_linestrength_add_block(h, 2, 1.0, 1, v1, k2, tau0, 0, NULL, NULL, NULL, &b));
    expect_ok("set_states 2", atomgpu_linestrength_set_states(h, 2, 1, e1, identity, 1));
    expect_ok("add_block 3", atomgpu_linestrength_add_block(h, 1, 1.0, 1, v1, k2, tau1, 0, NULL, NULL, NULL, &b));
    check("four blocks, the last one 3", b == 3);
    expect_ok("load_lower block 0", atomgpu_linestrength_load_lower(h, 0, 2, identity, 2, 0.0));
}

static void test_create(void) {
    reset();
    expect_bad("create: negative n_vib", atomgpu_linestrength_create(-2, dipole, 2, 0, &out_h), 1, "n_vib", NULL);
    reset();
    expect_bad("create: zero n_vib", atomgpu_linestrength_create(0, dipole, 2, 0, &out_h), 1, "n_vib", NULL);
    reset();
    expect_bad("create: absurd n_vib", atomgpu_linestrength_create(INT64_MAX, dipole, INT64_MAX, 0, &out_h), 1, "n_vib", NULL);
    reset();
    expect_bad("create: NULL dipole", atomgpu_linestrength_create(2, NULL, 2, 0, &out_h), 2, "dipole", NULL);
    reset();
    expect_bad("create: NaN dipole", atomgpu_linestrength_create(2, dipole_nan, 2, 0, &out_h), 2, "dipole", "[9]");
    reset();
    expect_bad("create: ld_dipole < n_vib", atomgpu_linestrength_create(2, dipole, 1, 0, &out_h), 3, "ld_dipole", NULL);
    reset();
    expect_bad("create: negative ld_dipole", atomgpu_linestrength_create(2, dipole, -2, 0, &out_h), 3, "ld_dipole", NULL);
    reset();
    expect_bad("create: negative max_device_bytes", atomgpu_linestrength_create(2, dipole, 2, -1, &out_h), 4,
               "max_device_bytes", NULL);
    reset();
    expect_bad("create: NULL handle", atomgpu_linestrength_create(2, dipole, 2, 0, NULL), 5, "handle", NULL);
    atomgpu_linestrength_destroy(NULL); /* accepted */
}

static void test_add_block(void) {
    int32_t *blk = &out_i[0];
    reset();
    expect_bad("add_block: NULL handle", atomgpu_linestrength_add_block(NULL, 0, 1.0, 2, v2, k2, tau0, 0, NULL, NULL, NULL, blk), 1,
               "handle", NULL);
    reset();
    expect_bad("add_block: negative j", atomgpu_linestrength_add_block(h, -1, 1.0, 2, v2, k2, tau0, 0, NULL, NULL, NULL, blk), 2,
               "j", NULL);
    reset();
    expect_bad("add_block: NaN gns", atomgpu_linestrength_add_block(h, 0, NAN, 2, v2, k2, tau0, 0, NULL, NULL, NULL, blk), 3,
               "gns", NULL);
    reset();
    expect_bad("add_block: negative gns", atomgpu_linestrength_add_block(h, 0, -1.0, 2, v2, k2, tau0, 0, NULL, NULL, NULL, blk),
               3, "gns", NULL);
    reset();
    expect_bad("add_block: negative n_primitive",
               atomgpu_linestrength_add_block(h, 0, 1.0, -2, v2, k2, tau0, 0, NULL, NULL, NULL, blk), 4, "n_primitive", NULL);
    reset();
    expect_bad("add_block: zero n_primitive", atomgpu_linestrength_add_block(h, 0, 1.0, 0, v2, k2, tau0, 0, NULL, NULL, NULL, blk),
               4, "n_primitive", NULL);
    reset();
    expect_bad("add_block: NULL v", atomgpu_linestrength_add_block(h, 0, 1.0, 2, NULL, k2, tau0, 0, NULL, NULL, NULL, blk), 5, "v",
               NULL);
    reset();
    expect_bad("add_block: v >= n_vib", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v_bad, k2, tau0, 0, NULL, NULL, NULL, blk),
               5, "v", "[1]");
    reset();
    expect_bad("add_block: repeated (v, K, tau)",
               atomgpu_linestrength_add_block(h, 0, 1.0, 2, (const int64_t[]){1, 1}, k2, tau0, 0, NULL, NULL, NULL, blk), 5,
               "v", "[1]");
    reset();
    expect_bad("add_block: NULL k", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, NULL, tau0, 0, NULL, NULL, NULL, blk), 6, "k",
               NULL);
    reset();
    expect_bad("add_block: K > J", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k_bad, tau0, 0, NULL, NULL, NULL, blk), 6,
               "k", "[1]");
    reset();
    expect_bad("add_block: NULL tau", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, NULL, 0, NULL, NULL, NULL, blk), 7,
               "tau", NULL);
    reset();
    expect_bad("add_block: tau = 2", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau_bad, 0, NULL, NULL, NULL, blk), 7,
               "tau", "[1]");
    reset();
    expect_bad("add_block: negative n_sym", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, -1, rs, col, val, blk), 8,
               "n_sym", NULL);
    reset();
    expect_bad("add_block: NULL row_start", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, NULL, col, val, blk),
               9, "row_start", NULL);
    reset();
    expect_bad("add_block: decreasing row_start",
               atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs_decreasing, col, val, blk), 9, "row_start",
               "[2]");
    reset();
    expect_bad("add_block: NULL col", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, NULL, val, blk), 10,
               "col", NULL);
    reset();
    expect_bad("add_block: col >= n_sym", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, col_bad, val, blk),
               10, "col", "[1]");
    reset();
    expect_bad("add_block: NULL value", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, col, NULL, blk), 11,
               "value", NULL);
    reset();
    expect_bad("add_block: NaN value", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, col, val_nan, blk), 11,
               "value", "[1]");
    reset();
    expect_bad("add_block: NULL block", atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, col, val, NULL), 12,
               "block", NULL);
    /* None of the failed calls registered a block: a valid one (with an unfolding) is number 4. */
    expect_ok("add_block: valid call with an unfolding",
              atomgpu_linestrength_add_block(h, 0, 1.0, 2, v2, k2, tau0, 2, rs, col, val, &out_i[1]));
    check("failed add_block calls registered nothing", out_i[1] == 4);
}

static void test_set_states(void) {
    int64_t np = -1, nc = -1, ns = -1;
    reset();
    expect_bad("set_states: NULL handle", atomgpu_linestrength_set_states(NULL, 3, 1, e0, identity, 1), 1, "handle", NULL);
    reset();
    expect_bad("set_states: negative block", atomgpu_linestrength_set_states(h, -1, 1, e0, identity, 1), 2, "block", NULL);
    reset();
    expect_bad("set_states: block out of range", atomgpu_linestrength_set_states(h, 99, 1, e0, identity, 1), 2, "block", NULL);
    reset();
    expect_bad("set_states: negative n_states", atomgpu_linestrength_set_states(h, 3, -1, e0, identity, 1), 3, "n_states", NULL);
    reset();
    expect_bad("set_states: zero n_states", atomgpu_linestrength_set_states(h, 3, 0, e0, identity, 1), 3, "n_states", NULL);
    reset();
    expect_bad("set_states: NULL energies", atomgpu_linestrength_set_states(h, 3, 1, NULL, identity, 1), 4, "energies", NULL);
    reset();
    expect_bad("set_states: NaN energy", atomgpu_linestrength_set_states(h, 0, 2, e_nan, identity, 2), 4, "energies", "[1]");
    reset();
    expect_bad("set_states: NULL vectors", atomgpu_linestrength_set_states(h, 3, 1, e0, NULL, 1), 5, "vectors", NULL);
    reset();
    expect_bad("set_states: NaN vector", atomgpu_linestrength_set_states(h, 0, 2, e0, identity_nan, 2), 5, "vectors", "[2]");
    reset();
    expect_bad("set_states: ld_vectors < n_coefficients", atomgpu_linestrength_set_states(h, 0, 2, e0, identity, 1), 6,
               "ld_vectors", "row count 2");
    reset();
    expect_bad("set_states: negative ld_vectors", atomgpu_linestrength_set_states(h, 0, 2, e0, identity, -2), 6,
               "ld_vectors", NULL);
    /* The failed calls stored nothing: block 3 still has no states, block 0 its two. */
    if (check_ok("block_size 3", atomgpu_linestrength_block_size(h, 3, &np, &nc, &ns)))
        check("failed set_states left block 3 without states", np == 1 && nc == 1 && ns == 0);
    if (check_ok("block_size 0", atomgpu_linestrength_block_size(h, 0, &np, &nc, &ns)))
        check("failed set_states left block 0's two states", np == 2 && nc == 2 && ns == 2);
}

/* amplitudes of block 1 from the batch of block 0 (both states): a(f, i) = mu_z(i, f) / sqrt(3)
 * (the J = 1 <- 0 Hoenl-London factor 1/3 of a^2). */
static int amplitudes_are_the_loaded_batch(const char *what) {
    double a[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
    if (!check_ok(what, atomgpu_linestrength_amplitudes(h, 1, 0.0, a, 2, 2))) return 0;
    const double want[4] = {1.0, 0.1, 0.1, 1.2}; /* a(f, i) at f + 2 i: dipole(i, f) */
    int ok = 1;
    for (int i = 0; i < 4; i++) ok = ok && fabs(fabs(a[i]) * sqrt(3.0) - want[i]) <= 1e-14;
    check(what, ok);
    return ok;
}

static void test_load_lower(void) {
    reset();
    expect_bad("load_lower: NULL handle", atomgpu_linestrength_load_lower(NULL, 3, 1, identity, 1, 0.0), 1, "handle", NULL);
    reset();
    expect_bad("load_lower: negative block", atomgpu_linestrength_load_lower(h, -3, 1, identity, 1, 0.0), 2, "block", NULL);
    reset();
    expect_bad("load_lower: block out of range", atomgpu_linestrength_load_lower(h, 5, 1, identity, 1, 0.0), 2, "block", NULL);
    reset();
    expect_bad("load_lower: negative n_lower", atomgpu_linestrength_load_lower(h, 3, -1, identity, 1, 0.0), 3, "n_lower", NULL);
    reset();
    expect_bad("load_lower: zero n_lower", atomgpu_linestrength_load_lower(h, 3, 0, identity, 1, 0.0), 3, "n_lower", NULL);
    reset();
    expect_bad("load_lower: NULL vectors", atomgpu_linestrength_load_lower(h, 3, 1, NULL, 1, 0.0), 4, "vectors", NULL);
    reset();
    expect_bad("load_lower: NaN vector", atomgpu_linestrength_load_lower(h, 0, 2, identity_nan, 2, 0.0), 4, "vectors", "[2]");
    reset();
    expect_bad("load_lower: ld_vectors < n_coefficients", atomgpu_linestrength_load_lower(h, 0, 2, identity, 1, 0.0), 5,
               "ld_vectors", NULL);
    reset();
    expect_bad("load_lower: NaN thresh_coeff", atomgpu_linestrength_load_lower(h, 0, 1, identity, 2, NAN), 6, "thresh_coeff",
               NULL);
    reset();
    expect_bad("load_lower: negative thresh_coeff", atomgpu_linestrength_load_lower(h, 0, 1, identity, 2, -1.0), 6,
               "thresh_coeff", NULL);
    amplitudes_are_the_loaded_batch("failed load_lower calls kept the loaded batch");
}

typedef int32_t (*product_fn)(atomgpu_linestrength *, int32_t, double, double *, int64_t, int64_t);

/* half and amplitudes share their signature and rules; into block 1 from the batch of block 0
 * both are 2 x 2 (2 primitive functions, 2 states; 2 lower states). */
static void test_products(const char *fn_name, product_fn f, const char *out_name, const char *ld_name,
                          const char *cols_name) {
    char what[160];
    atomgpu_linestrength *fresh = NULL;
#define WHAT(s) (snprintf(what, sizeof what, "%s: %s", fn_name, s), what)
    reset();
    expect_bad(WHAT("NULL handle"), f(NULL, 1, 0.0, out_a, 2, 2), 1, "handle", NULL);
    reset();
    expect_bad(WHAT("negative upper_block"), f(h, -1, 0.0, out_a, 2, 2), 2, "upper_block", NULL);
    reset();
    expect_bad(WHAT("upper_block out of range"), f(h, 7, 0.0, out_a, 2, 2), 2, "upper_block", NULL);
    reset();
    expect_bad(WHAT("J' = 2 not reachable from J'' = 0"), f(h, 2, 0.0, out_a, 2, 2), 2, "upper_block", NULL);
    reset();
    expect_bad(WHAT("NaN thresh_coeff"), f(h, 1, NAN, out_a, 2, 2), 3, "thresh_coeff", NULL);
    reset();
    expect_bad(WHAT("NULL output"), f(h, 1, 0.0, NULL, 2, 2), 4, out_name, NULL);
    reset();
    expect_bad(WHAT("leading dimension too small"), f(h, 1, 0.0, out_a, 1, 2), 5, ld_name, "row count 2");
    reset();
    expect_bad(WHAT("negative leading dimension"), f(h, 1, 0.0, out_a, -2, 2), 5, ld_name, NULL);
    reset();
    expect_bad(WHAT("one column where two are needed"), f(h, 1, 0.0, out_a, 2, 1), 6, cols_name, "column count 2");
    reset();
    expect_bad(WHAT("zero columns"), f(h, 1, 0.0, out_a, 2, 0), 6, cols_name, "got 0");
    reset();
    expect_bad(WHAT("negative column count"), f(h, 1, 0.0, out_a, 2, -1), 6, cols_name, "got -1");
    /* More columns than needed: the needed ones written, the third column (elements 4, 5) not. */
    reset();
    if (check_ok(WHAT("three columns where two are needed"), f(h, 1, 0.0, out_a, 2, 3)))
        check(WHAT("the column beyond the needed two untouched"),
              out_a[3] != SENTINEL && out_a[4] == SENTINEL && out_a[5] == SENTINEL);
    if (check_ok("create (fresh handle)", atomgpu_linestrength_create(2, dipole, 2, 0, &fresh))) {
        int32_t b = -1;
        expect_ok("fresh add_block", atomgpu_linestrength_add_block(fresh, 1, 1.0, 2, v2, k2, tau1, 0, NULL, NULL, NULL, &b));
        expect_ok("fresh set_states", atomgpu_linestrength_set_states(fresh, 0, 2, e1, identity, 2));
        reset();
        expect_bad(WHAT("no lower batch loaded"), f(fresh, 0, 0.0, out_a, 2, 2), 1, "handle", "load_lower");
        atomgpu_linestrength_destroy(fresh);
    }
#undef WHAT
}

static void test_amplitudes_no_states(void) {
    reset();
    expect_bad("amplitudes: upper block without states", atomgpu_linestrength_amplitudes(h, 3, 0.0, out_a, 2, 2), 2,
               "upper_block", "no states");
    /* half needs no upper states: block 3 has one primitive function. */
    expect_ok("half: upper block without states", atomgpu_linestrength_half(h, 3, 0.0, out_a, 1, 2));
}

static void test_line_list(void) {
    const int32_t up1[1] = {1}, up_bad[2] = {1, 9}, up_far[1] = {2}, up_empty[1] = {3};
    atomgpu_intensity_params p = params(), q;
    int64_t *uid = out_l, *lid = out_m, *n = &out_n[0];
    double *a = out_a, *nu = out_b, *s = out_c, *in = out_d;
    const atomgpu_line_arrays full = {N_OUT, uid, lid, a, nu, s, in};
    atomgpu_line_arrays broken;
#define LL(hh, lower, nb, ub, pp, ll, nn) atomgpu_linestrength_line_list(hh, lower, nb, ub, pp, ll, nn)
    reset();
    expect_bad("line_list: NULL handle", LL(NULL, 0, 1, up1, &p, &full, n), 1, "handle", NULL);
    reset();
    expect_bad("line_list: negative lower_block", LL(h, -1, 1, up1, &p, &full, n), 2, "lower_block", NULL);
    reset();
    expect_bad("line_list: lower_block out of range", LL(h, 4 + 1, 1, up1, &p, &full, n), 2, "lower_block", NULL);
    reset();
    expect_bad("line_list: lower block without states", LL(h, 3, 1, (const int32_t[]){0}, &p, &full, n), 2,
               "lower_block", "no states");
    reset();
    expect_bad("line_list: negative n_upper_blocks", LL(h, 0, -1, up1, &p, &full, n), 3, "n_upper_blocks", NULL);
    reset();
    expect_bad("line_list: zero n_upper_blocks", LL(h, 0, 0, up1, &p, &full, n), 3, "n_upper_blocks", NULL);
    reset();
    expect_bad("line_list: NULL upper_blocks", LL(h, 0, 1, NULL, &p, &full, n), 4, "upper_blocks", NULL);
    reset();
    expect_bad("line_list: upper block out of range", LL(h, 0, 2, up_bad, &p, &full, n), 4, "upper_blocks", "[1]");
    reset();
    expect_bad("line_list: upper J not reachable", LL(h, 0, 1, up_far, &p, &full, n), 4, "upper_blocks", "[0]");
    reset();
    expect_bad("line_list: upper block without states", LL(h, 0, 1, up_empty, &p, &full, n), 4, "upper_blocks", "[0]");
    reset();
    expect_bad("line_list: NULL params", LL(h, 0, 1, up1, NULL, &full, n), 5, "params", NULL);
    q = p;
    q.temperature = NAN;
    reset();
    expect_bad("line_list: NaN params->temperature", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "temperature");
    q = p;
    q.temperature = -1.0;
    reset();
    expect_bad("line_list: negative params->temperature", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "temperature");
    q = p;
    q.partition_function = 0.0;
    reset();
    expect_bad("line_list: zero params->partition_function", LL(h, 0, 1, up1, &q, &full, n), 5, "params",
               "partition_function");
    q = p;
    q.zpe = INFINITY;
    reset();
    expect_bad("line_list: infinite params->zpe", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "zpe");
    q = p;
    q.freq_window[0] = 2e5;
    reset();
    expect_bad("line_list: reversed params->freq_window", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "freq_window");
    q = p;
    q.lower_energy[1] = NAN;
    reset();
    expect_bad("line_list: NaN params->lower_energy", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "lower_energy");
    q = p;
    q.upper_energy[0] = NAN;
    reset();
    expect_bad("line_list: NaN params->upper_energy", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "upper_energy");
    q = p;
    q.thresh_coeff = -1.0;
    reset();
    expect_bad("line_list: negative params->thresh_coeff", LL(h, 0, 1, up1, &q, &full, n), 5, "params",
               "thresh_coeff");
    q = p;
    q.thresh_line = NAN;
    reset();
    expect_bad("line_list: NaN params->thresh_line", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "thresh_line");
    q = p;
    q.thresh_intens = -INFINITY;
    reset();
    expect_bad("line_list: -Inf params->thresh_intens", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "thresh_intens");
    q = p;
    q.batch = 0;
    reset();
    expect_bad("line_list: zero params->batch", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "batch");
    q = p;
    q.batch = -4;
    reset();
    expect_bad("line_list: negative params->batch", LL(h, 0, 1, up1, &q, &full, n), 5, "params", "batch");
    /* The output arrays (atomgpu_line_arrays, argument 6): each field refused at `lines`, named. */
    broken = full, broken.capacity = -1;
    reset();
    expect_bad("line_list: negative lines->capacity", LL(h, 0, 1, up1, &p, &broken, n), 6, "capacity", NULL);
    reset();
    expect_bad("line_list: NULL n_lines", LL(h, 0, 1, up1, &p, &full, NULL), 7, "n_lines", NULL);
    broken = full, broken.upper_id = NULL;
    reset();
    expect_bad("line_list: NULL lines->upper_id", LL(h, 0, 1, up1, &p, &broken, n), 6, "upper_id", NULL);
    broken = full, broken.lower_id = NULL;
    reset();
    expect_bad("line_list: NULL lines->lower_id", LL(h, 0, 1, up1, &p, &broken, n), 6, "lower_id", NULL);
    broken = full, broken.einstein_a = NULL;
    reset();
    expect_bad("line_list: NULL lines->einstein_a", LL(h, 0, 1, up1, &p, &broken, n), 6, "einstein_a", NULL);
    broken = full, broken.wavenumber = NULL;
    reset();
    expect_bad("line_list: NULL lines->wavenumber", LL(h, 0, 1, up1, &p, &broken, n), 6, "wavenumber", NULL);
    broken = full, broken.linestrength = NULL;
    reset();
    expect_bad("line_list: NULL lines->linestrength", LL(h, 0, 1, up1, &p, &broken, n), 6, "linestrength", NULL);
    broken = full, broken.intensity = NULL;
    reset();
    expect_bad("line_list: NULL lines->intensity", LL(h, 0, 1, up1, &p, &broken, n), 6, "intensity", NULL);
    /* The batch loaded by load_lower survives every refused line_list. */
    amplitudes_are_the_loaded_batch("refused line_list calls kept the loaded batch");
    /* Three lines absorb: 0 -> 0 (20), 0 -> 1 (1020), 1 -> 1 (20); 1 -> 0 (-980) is emission. */
    broken = full, broken.capacity = 2;
    reset();
    expect_bad("line_list: capacity 2 < 3 lines", LL(h, 0, 1, up1, &p, &broken, n), 6, "capacity", "number of lines, 3,");
    reset();
    expect_ok("line_list: count query", LL(h, 0, 1, up1, &p, NULL, n));
    check("count query: 3 lines, arrays untouched", out_n[0] == 3 && out_l[0] == ISENTINEL && out_a[0] == SENTINEL);
    broken = full, broken.capacity = 3;
    reset();
    expect_ok("line_list: capacity 3", LL(h, 0, 1, up1, &p, &broken, n));
    check("three lines written, the rest untouched", out_n[0] == 3 && out_l[3] == ISENTINEL && out_d[3] == SENTINEL);
    check("IDs (lower 1, upper 3), (1, 4), (2, 4)",
          out_l[0] == 3 && out_m[0] == 1 && out_l[1] == 4 && out_m[1] == 1 && out_l[2] == 4 && out_m[2] == 2);
    /* line_list replaced the loaded batch. */
    reset();
    expect_bad("half after line_list: no batch loaded", atomgpu_linestrength_half(h, 1, 0.0, out_a, 2, 2), 1, "handle",
               "load_lower");
#undef LL
}

static void test_queries(void) {
    reset();
    expect_bad("state_id: NULL handle", atomgpu_linestrength_state_id(NULL, 0, 0, &out_l[0]), 1, "handle", NULL);
    reset();
    expect_bad("state_id: negative block", atomgpu_linestrength_state_id(h, -1, 0, &out_l[0]), 2, "block", NULL);
    reset();
    expect_bad("state_id: block out of range", atomgpu_linestrength_state_id(h, 5, 0, &out_l[0]), 2, "block", NULL);
    reset();
    expect_bad("state_id: negative state", atomgpu_linestrength_state_id(h, 0, -1, &out_l[0]), 3, "state", NULL);
    reset();
    expect_bad("state_id: state >= n_states", atomgpu_linestrength_state_id(h, 0, 2, &out_l[0]), 3, "state", NULL);
    reset();
    expect_bad("state_id: block without states", atomgpu_linestrength_state_id(h, 3, 0, &out_l[0]), 3, "state", NULL);
    reset();
    expect_bad("state_id: NULL id", atomgpu_linestrength_state_id(h, 0, 0, NULL), 4, "id", NULL);
    reset();
    expect_ok("state_id: valid call", atomgpu_linestrength_state_id(h, 2, 0, &out_l[0]));
    check("state_id of block 2, state 0 is 5 (after 2 + 2 states)", out_l[0] == 5);
    reset();
    expect_bad("block_size: NULL handle", atomgpu_linestrength_block_size(NULL, 0, &out_n[0], &out_n[1], &out_n[2]), 1, "handle",
               NULL);
    reset();
    expect_bad("block_size: negative block", atomgpu_linestrength_block_size(h, -1, &out_n[0], &out_n[1], &out_n[2]), 2, "block",
               NULL);
    reset();
    expect_bad("block_size: block out of range", atomgpu_linestrength_block_size(h, 5, &out_n[0], &out_n[1], &out_n[2]), 2,
               "block", NULL);
    reset();
    expect_bad("block_size: NULL n_primitive", atomgpu_linestrength_block_size(h, 0, NULL, &out_n[1], &out_n[2]), 3,
               "n_primitive", NULL);
    reset();
    expect_bad("block_size: NULL n_coefficients", atomgpu_linestrength_block_size(h, 0, &out_n[0], NULL, &out_n[2]), 4,
               "n_coefficients", NULL);
    reset();
    expect_bad("block_size: NULL n_states", atomgpu_linestrength_block_size(h, 0, &out_n[0], &out_n[1], NULL), 5, "n_states",
               NULL);
}

/* Degenerate species and the filters (issue 13): a component count that does not match the
 * species, a degenerate block without its unfolding or without all its components, an unfolding
 * of the wrong shape, a group set too late or unknown, filters that break their rules, a file
 * that cannot be written. A fresh handle `g` with group C3v(M) (A1, A2, E) takes the blocks. */
static void test_species(void) {
    /* An E pair of J = 1 over v = 0, 1 with K = 0 (tau 1): T_0 = e_0, T_1 = e_1 (one level). */
    static const int64_t rs_e[5] = {0, 1, 1, 1, 2}, rs_e_missing[5] = {0, 1, 1, 1, 1}, col_e[2] = {0, 0};
    static const int64_t col_e_bad[2] = {0, 3};
    atomgpu_linestrength *g = NULL;
    expect_ok("create g", atomgpu_linestrength_create(2, dipole, 2, 0, &g));
    reset();
    expect_bad("set_group: unknown group", atomgpu_linestrength_set_group(g, "D6h(M)"), 2, "group", "C3v(M)");
    reset();
    expect_bad("set_group: after the blocks", atomgpu_linestrength_set_group(h, "C3v(M)"), 2, "group", "before");
    expect_ok("set_group g", atomgpu_linestrength_set_group(g, "c3v"));
    reset();
    expect_bad("add_block_species: E with one component",
               atomgpu_linestrength_add_block_species(g, 1, 2, 1.0, 2, v2, k2, tau1, 1, 1, rs, col, val, &out_i[0]),
               9, "ndeg", NULL);
    reset();
    expect_bad("add_block_species: A1 with two components",
               atomgpu_linestrength_add_block_species(g, 1, 0, 1.0, 2, v2, k2, tau1, 2, 1, rs_e, col_e, val, &out_i[0]),
               9, "ndeg", NULL);
    reset();
    expect_bad("add_block_species: species 3 of C3v(M)",
               atomgpu_linestrength_add_block_species(g, 1, 3, 1.0, 2, v2, k2, tau1, 1, 0, NULL, NULL, NULL, &out_i[0]),
               3, "gamma", NULL);
    reset();
    expect_bad("add_block_species: E without its unfolding",
               atomgpu_linestrength_add_block_species(g, 1, 2, 1.0, 2, v2, k2, tau1, 2, 0, NULL, NULL, NULL, &out_i[0]),
               10, "n_sym", NULL);
    reset();
    expect_bad("add_block_species: E with component 1 missing",
               atomgpu_linestrength_add_block_species(g, 1, 2, 1.0, 2, v2, k2, tau1, 2, 1, rs_e_missing, col_e, val,
                                                      &out_i[0]),
               11, "row_start", "component 1");
    reset();
    expect_bad("add_block_species: a column beyond n_sym",
               atomgpu_linestrength_add_block_species(g, 1, 2, 1.0, 2, v2, k2, tau1, 2, 1, rs_e, col_e_bad, val,
                                                      &out_i[0]),
               12, "col", "[1]");
    int32_t e = -1;
    expect_ok("add_block_species: a valid E block",
              atomgpu_linestrength_add_block_species(g, 1, 2, 1.0, 2, v2, k2, tau1, 2, 1, rs_e, col_e, val, &e));
    reset();
    expect_bad("block_ndeg: block out of range", atomgpu_linestrength_block_ndeg(g, 1, &out_i[0]), 2, "block", NULL);

    /* Filters on the first handle (no group). */
    atomgpu_intensity_params p = params();
    const int32_t uppers[1] = {1};
    atomgpu_line_filters f = {0, 5, 0, 1, 0, {0}};
    const atomgpu_line_arrays lines = {N_OUT, out_l, out_m, out_a, out_b, out_c, out_d};
    reset();
    expect_bad("line_list_filtered: degeneracy filter without a group",
               atomgpu_linestrength_line_list_filtered(h, 0, 1, uppers, &p, &f, &lines, &out_n[0], out_n), 6, "filters",
               "degeneracy_filter");
    atomgpu_line_filters pairs = {0, 5, 0, 0, 17, {1, 0}};
    reset();
    expect_bad("line_list_filtered: 17 species pairs",
               atomgpu_linestrength_line_list_filtered(h, 0, 1, uppers, &p, &pairs, &lines, &out_n[0], out_n), 6, "filters",
               "n_gamma_pair");
    atomgpu_line_filters j_reversed = {3, 1, 0, 0, 0, {0}};
    reset();
    expect_bad("write_exomol: j_min > j_max", atomgpu_linestrength_write_exomol(h, "unused", &p, &j_reversed, out_n), 4,
               "filters", "j_range");
    FILE *written = fopen("unused.states", "r");
    check("write_exomol refused: no .states file written", written == NULL);
    if (written) fclose(written), remove("unused.states");
    /* A folder that does not exist: a file error, nothing written. */
    reset();
    int32_t s = atomgpu_linestrength_write_exomol(h, "no-such-folder/lines", &p, NULL, out_n);
    check("write_exomol into a missing folder: ATOMGPU_ERR_IO", s == ATOMGPU_ERR_IO);
    check("write_exomol into a missing folder: counts untouched", untouched());
    atomgpu_linestrength_destroy(g);
}

int main(void) {
    setup();
    test_create();
    test_add_block();
    test_set_states();
    test_load_lower();
    test_products("half", atomgpu_linestrength_half, "half", "ld_half", "cols_half");
    test_products("amplitudes", atomgpu_linestrength_amplitudes, "amplitudes", "ld_amplitudes", "cols_amplitudes");
    test_amplitudes_no_states();
    test_queries();
    test_line_list();
    test_species();
    atomgpu_linestrength_destroy(h);
    printf("test_linestrength_bad_input: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
