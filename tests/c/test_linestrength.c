/*
 * test_linestrength.c: the C entry points of the line-strength family (src/ffi/linestrength.rs)
 * against closed forms, not against the library itself:
 *   (a) a diatomic J = 1 <- 0 line (one vibrational function, dipole mu along z): the Einstein
 *       coefficient A = 3.1361892e-7 mu^2 nu^3 / 3 s^-1 (paper eq. 1 with the Hoenl-London factor
 *       of R(0), (J''+1)/(2J''+1) = 1, in TROVE's units: nu in cm^-1, mu in Debye), the line
 *       strength S = mu^2 and the squared amplitude a^2 = mu^2 / 3;
 *   (b) the Hoenl-London factors of a parallel band of a symmetric top (Herzberg, Molecular
 *       Spectra and Molecular Structure II, eqs. IV,81; Bunker & Jensen table 14-5):
 *       P (J^2-K^2)/J, Q K^2(2J+1)/(J(J+1)), R ((J+1)^2-K^2)/(J+1); for J'' = 4, K = 2 they are
 *       3.0, 1.8 and 4.2, obtained here as sum_f (2J'+1)(2J''+1) a^2 over full upper Wang sets
 *       (atomgpu_linestrength_amplitudes), and as the same sum of squared half-linestrengths
 *       (atomgpu_linestrength_half, identity eigenvectors);
 *   (c) a rigid-rotor line list J = 0..4, E = B J(J+1): exactly one (R) line absorbs from each
 *       J'' < 4, with nu = 2B(J''+1), A = 3.1361892e-7 mu^2 nu^3 (J''+1)/(2J''+3),
 *       S = mu^2 (J''+1) and I = 4.1623797e-19 S nu exp(-c2 E''/T)(1 - exp(-c2 nu/T))/Q (paper
 *       eq. 2), c2 = hc/k from the CODATA 2010 constants TROVE uses (accuracy.f90), to 1e-12;
 *       the ExoMol IDs are the running numbers of the states; the count query and the capacity
 *       rule of atomgpu_linestrength_line_list.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_linestrength.c -o test_linestrength \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-12345.0)

/* Paper eq. 1-2 prefactors in TROVE's units (s^-1 D^-2 cm^3 and cm/molecule per D^2 cm^-1). */
static const double k_einstein = 3.1361892e-7;
static const double k_intensity = 4.1623797e-19;
/* CODATA 2010 (TROVE's accuracy.f90): h [erg s], c [cm/s], k [erg/K]. */
static const double k_planck = 6.62606957e-27, k_light = 2.99792458e10, k_boltzmann = 1.3806488e-16;

static atomgpu_intensity_params default_params(double temperature, double q) {
    atomgpu_intensity_params p;
    p.temperature = temperature;
    p.partition_function = q;
    p.zpe = 0.0;
    p.freq_window[0] = 0.0;
    p.freq_window[1] = 1e6;
    p.lower_energy[0] = -1e6;
    p.lower_energy[1] = 1e6;
    p.upper_energy[0] = -1e6;
    p.upper_energy[1] = 1e6;
    p.thresh_coeff = 0.0;
    p.thresh_line = 0.0;
    p.thresh_intens = 0.0;
    p.batch = 3;
    return p;
}

/* A block of one function (v = 0, K, tau) with one state of energy `energy` (vector 1). */
static int32_t one_function_block(atomgpu_linestrength *h, int32_t j, int32_t k, int32_t tau, double energy) {
    const int64_t v[1] = {0};
    const double one[1] = {1.0};
    int32_t block = -1;
    char what[96];
    snprintf(what, sizeof what, "add_block J = %d, K = %d, tau = %d", (int)j, (int)k, (int)tau);
    check_ok(what, atomgpu_linestrength_add_block(h, j, 1.0, 1, v, &k, &tau, 0, NULL, NULL, NULL, &block));
    snprintf(what, sizeof what, "set_states J = %d", (int)j);
    check_ok(what, atomgpu_linestrength_set_states(h, block, 1, &energy, one, 1));
    return block;
}

/* (a) */
static void test_diatomic(void) {
    const double mu = 1.7, b = 10.3, nu = 2.0 * b;
    const double dipole[3] = {0.0, 0.0, mu};
    atomgpu_linestrength *h = NULL;
    if (!check_ok("create (diatomic)", atomgpu_linestrength_create(1, dipole, 1, 0, &h))) return;
    int32_t lower = one_function_block(h, 0, 0, 0, 0.0);
    int32_t upper = one_function_block(h, 1, 0, 1, nu);
    check("diatomic block indices 0 and 1", lower == 0 && upper == 1);
    atomgpu_intensity_params p = default_params(296.0, 1.0);
    int64_t n = -1, up_id = -1, lo_id = -1;
    double a = SENTINEL, wn = SENTINEL, s = SENTINEL, in = SENTINEL;
    if (check_ok("diatomic line_list", atomgpu_linestrength_line_list(h, lower, 1, &upper, &p, 1, &n, &up_id, &lo_id, &a,
                                                                        &wn, &s, &in))) {
        check("diatomic: one line", n == 1);
        check_rel("diatomic J=1<-0: A = 3.1361892e-7 mu^2 nu^3 / 3", a, k_einstein * mu * mu * nu * nu * nu / 3.0, 1e-12);
        check_rel("diatomic J=1<-0: S = mu^2", s, mu * mu, 1e-12);
        check_rel("diatomic J=1<-0: nu = 2B", wn, nu, 1e-14);
        check("diatomic: IDs upper 2, lower 1", up_id == 2 && lo_id == 1);
    }
    {
        const double one[1] = {1.0};
        double amp = SENTINEL;
        if (check_ok("diatomic load_lower", atomgpu_linestrength_load_lower(h, lower, 1, one, 1, 0.0)) &&
            check_ok("diatomic amplitudes", atomgpu_linestrength_amplitudes(h, upper, 0.0, &amp, 1)))
            check_rel("diatomic: a^2 = mu^2 / 3", amp * amp, mu * mu / 3.0, 1e-13);
    }
    atomgpu_linestrength_destroy(h);
}

/* (b) */
static void test_hoenl_london(void) {
    const double dipole[3] = {0.0, 0.0, 1.0};
    const int64_t v_lower[1] = {0};
    const int32_t k_lower[1] = {2}, tau_lower[1] = {0};
    const double one[1] = {1.0};
    const int32_t j_upper[3] = {3, 4, 5};
    const double expected[3] = {3.0, 1.8, 4.2}; /* P, Q, R for J'' = 4, K = 2 */
    atomgpu_linestrength *h = NULL;
    int32_t lower = -1;
    double total = 0.0;
    char what[128];
    if (!check_ok("create (symmetric top)", atomgpu_linestrength_create(1, dipole, 1, 0, &h))) return;
    if (!check_ok("add_block J'' = 4, K = 2",
                  atomgpu_linestrength_add_block(h, 4, 1.0, 1, v_lower, k_lower, tau_lower, 0, NULL, NULL, NULL, &lower)) ||
        !check_ok("load_lower J'' = 4", atomgpu_linestrength_load_lower(h, lower, 1, one, 1, 0.0)))
        goto done;
    for (int c = 0; c < 3; c++) {
        enum { MAXN = 11, LD = MAXN + 2 };
        int32_t jp = j_upper[c], n = 2 * jp + 1, upper = -1;
        int64_t v[MAXN];
        int32_t k[MAXN], tau[MAXN];
        double energies[MAXN], vectors[MAXN * MAXN], amp[LD], half[LD];
        /* Full Wang set: K = 0 with tau = J' mod 2, K = 1..J' with tau 0 and 1. */
        v[0] = 0;
        k[0] = 0;
        tau[0] = jp % 2;
        for (int kk = 1; kk <= jp; kk++) {
            for (int t = 0; t < 2; t++) {
                v[2 * kk - 1 + t] = 0;
                k[2 * kk - 1 + t] = kk;
                tau[2 * kk - 1 + t] = t;
            }
        }
        memset(vectors, 0, sizeof vectors);
        for (int i = 0; i < n; i++) {
            energies[i] = 1.0;
            vectors[i + n * i] = 1.0;
        }
        for (int i = 0; i < LD; i++) amp[i] = half[i] = SENTINEL;
        snprintf(what, sizeof what, "add_block J' = %d (full Wang set)", (int)jp);
        if (!check_ok(what, atomgpu_linestrength_add_block(h, jp, 1.0, n, v, k, tau, 0, NULL, NULL, NULL, &upper))) continue;
        snprintf(what, sizeof what, "set_states J' = %d", (int)jp);
        if (!check_ok(what, atomgpu_linestrength_set_states(h, upper, n, energies, vectors, n))) continue;
        snprintf(what, sizeof what, "amplitudes J' = %d", (int)jp);
        if (check_ok(what, atomgpu_linestrength_amplitudes(h, upper, 0.0, amp, n))) {
            double factor = 0.0;
            for (int i = 0; i < n; i++) factor += (double)((2 * jp + 1) * 9) * amp[i] * amp[i];
            snprintf(what, sizeof what, "Hoenl-London factor J''=4, K=2 -> J'=%d (amplitudes)", (int)jp);
            check_rel(what, factor, expected[c], 1e-13);
            check("amplitudes: nothing written past n_states", amp[n] == SENTINEL);
            total += factor;
        }
        snprintf(what, sizeof what, "half J' = %d", (int)jp);
        if (check_ok(what, atomgpu_linestrength_half(h, upper, 0.0, half, n))) {
            double factor = 0.0;
            for (int i = 0; i < n; i++) factor += (double)((2 * jp + 1) * 9) * half[i] * half[i];
            snprintf(what, sizeof what, "Hoenl-London factor J''=4, K=2 -> J'=%d (half-linestrengths)", (int)jp);
            check_rel(what, factor, expected[c], 1e-13);
            check("half: nothing written past n_primitive", half[n] == SENTINEL);
        }
    }
    check_rel("Hoenl-London sum rule P + Q + R = 2J''+1 = 9", total, 9.0, 1e-13);
done:
    atomgpu_linestrength_destroy(h);
}

/* (c) */
static void test_rigid_rotor(void) {
    const double mu = 0.8, b = 1.9, t = 300.0, q = 123.0;
    const double dipole[3] = {0.0, 0.0, mu};
    const double c2 = k_planck * k_light / k_boltzmann; /* cm K */
    atomgpu_linestrength *h = NULL;
    int32_t blocks[5];
    char what[160];
    if (!check_ok("create (rigid rotor)", atomgpu_linestrength_create(1, dipole, 1, 0, &h))) return;
    for (int32_t j = 0; j <= 4; j++) blocks[j] = one_function_block(h, j, 0, j % 2, b * j * (j + 1));
    for (int32_t j = 0; j <= 4; j++) {
        int64_t id = -1, np = -1, nc = -1, ns = -1;
        snprintf(what, sizeof what, "state_id of J = %d", (int)j);
        if (check_ok(what, atomgpu_linestrength_state_id(h, blocks[j], 0, &id))) check(what, id == j + 1);
        snprintf(what, sizeof what, "block_size of J = %d is 1, 1, 1", (int)j);
        if (check_ok(what, atomgpu_linestrength_block_size(h, blocks[j], &np, &nc, &ns)))
            check(what, np == 1 && nc == 1 && ns == 1);
    }
    atomgpu_intensity_params p = default_params(t, q);
    for (int32_t j = 0; j <= 4; j++) {
        int32_t uppers[2];
        int32_t nu_blocks = 0;
        if (j > 0) uppers[nu_blocks++] = blocks[j - 1];
        if (j < 4) uppers[nu_blocks++] = blocks[j + 1];
        int64_t count = -1;
        snprintf(what, sizeof what, "line_list count query J'' = %d", (int)j);
        if (!check_ok(what, atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, 0, &count, NULL, NULL, NULL,
                                                            NULL, NULL, NULL)))
            continue;
        snprintf(what, sizeof what, "J'' = %d: %s", (int)j, j < 4 ? "only the R line absorbs" : "no line (no J'' + 1)");
        check(what, count == (j < 4 ? 1 : 0));
        if (j == 4) continue;
        {
            /* Capacity 0 < count: refused at `capacity` (argument 6), the count in the message. */
            int64_t n = -1, up = -1, lo = -1;
            double a = SENTINEL, wn = SENTINEL, s = SENTINEL, in = SENTINEL;
            char message[512];
            int64_t length;
            int32_t status = atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, 0, &n, &up, &lo, &a, &wn, &s,
                                                            &in);
            checks++;
            if (!invalid_argument_reported("line_list: capacity 0 < 1 line", status, 6, "capacity", "number of lines, 1,", message,
                                           sizeof message, &length) ||
                n != -1 || up != -1 || lo != -1 || a != SENTINEL || wn != SENTINEL || s != SENTINEL || in != SENTINEL) {
                printf("FAIL line_list capacity error J'' = %d (outputs untouched?)\n", (int)j);
                failures++;
            }
        }
        {
            int64_t n = -1, up[2] = {-1, -1}, lo[2] = {-1, -1};
            double a[2] = {SENTINEL, SENTINEL}, wn[2] = {SENTINEL, SENTINEL}, s[2] = {SENTINEL, SENTINEL};
            double in[2] = {SENTINEL, SENTINEL};
            snprintf(what, sizeof what, "line_list J'' = %d", (int)j);
            if (!check_ok(what, atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, 2, &n, up, lo, a, wn, s,
                                                                in)))
                continue;
            double jj = (double)j, nu = 2.0 * b * (jj + 1.0), e = b * jj * (jj + 1.0);
            double s_want = mu * mu * (jj + 1.0);
            double a_want = k_einstein * mu * mu * nu * nu * nu * (jj + 1.0) / (2.0 * jj + 3.0);
            double i_want = k_intensity * s_want * nu * exp(-c2 * e / t) * (1.0 - exp(-c2 * nu / t)) / q;
            snprintf(what, sizeof what, "J'' = %d: one line, entry 1 untouched", (int)j);
            check(what, n == 1 && up[1] == -1 && a[1] == SENTINEL && in[1] == SENTINEL);
            snprintf(what, sizeof what, "R(%d): nu = 2B(J''+1)", (int)j);
            check_rel(what, wn[0], nu, 1e-13);
            snprintf(what, sizeof what, "R(%d): A = 3.1361892e-7 mu^2 nu^3 (J''+1)/(2J''+3)", (int)j);
            check_rel(what, a[0], a_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): S = mu^2 (J''+1)", (int)j);
            check_rel(what, s[0], s_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): I = 4.1623797e-19 S nu e^(-c2 E''/T)(1-e^(-c2 nu/T))/Q", (int)j);
            check_rel(what, in[0], i_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): IDs upper %d, lower %d", (int)j, (int)j + 2, (int)j + 1);
            check(what, up[0] == j + 2 && lo[0] == j + 1);
        }
    }
    atomgpu_linestrength_destroy(h);
}

int main(void) {
    test_diatomic();
    test_hoenl_london();
    test_rigid_rotor();
    atomgpu_linestrength_destroy(NULL);
    printf("test_linestrength: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
