/*
 * test_linestrength.c: the C entry points of the line-strength family (src/ffi/linestrength.rs)
 * against closed forms, not against the library itself:
 *   (a) a diatomic J = 1 <- 0 line (one vibrational function, dipole mu along z): the Einstein
 *       coefficient A = A_coef mu^2 nu^3 / 3 s^-1 (paper eq. 1 with the Hoenl-London factor
 *       of R(0), (J''+1)/(2J''+1) = 1, in TROVE's units: nu in cm^-1, mu in Debye), the line
 *       strength S = mu^2 and the squared amplitude a^2 = mu^2 / 3;
 *   (b) the Hoenl-London factors of a parallel band of a symmetric top (Herzberg, Molecular
 *       Spectra and Molecular Structure II, eqs. IV,81; Bunker & Jensen table 14-5):
 *       P (J^2-K^2)/J, Q K^2(2J+1)/(J(J+1)), R ((J+1)^2-K^2)/(J+1); for J'' = 4, K = 2 they are
 *       3.0, 1.8 and 4.2, obtained here as sum_f (2J'+1)(2J''+1) a^2 over full upper Wang sets
 *       (atomgpu_linestrength_amplitudes), and as the same sum of squared half-linestrengths
 *       (atomgpu_linestrength_half, identity eigenvectors);
 *   (c) a rigid-rotor line list J = 0..4, E = B J(J+1): exactly one (R) line absorbs from each
 *       J'' < 4, with nu = 2B(J''+1), A = A_coef mu^2 nu^3 (J''+1)/(2J''+3),
 *       S = mu^2 (J''+1) and I = I_coef S nu exp(-c2 E''/T)(1 - exp(-c2 nu/T))/Q (paper
 *       eq. 2), c2 = hc/k from the CODATA 2018 constants (the documented convention), to 1e-12;
 *       the ExoMol IDs are the running numbers of the states; the count query and the capacity
 *       rule of atomgpu_linestrength_line_list;
 *   (d) degenerate species (issue 13) on the same rigid symmetric top in C3v(M), mu along z:
 *       the K = 1 Wang pair of J'' = 1 and of J' = 2 as E levels (one component per Wang
 *       function), the K = 0 functions as A2 (J'' = 1) and A1 (J' = 2): the E level's line
 *       strength is the Hoenl-London factor of its K, S = mu^2 ((J''+1)^2 - K^2)/(J''+1) = 1.5 mu^2
 *       (sum over the component pairs / ndeg'' = 2, TROVE's rule), the same with REDUCED, the
 *       A2 -> A1 line 2 mu^2; the amplitudes of the component pairs are a^2 = 1.5 mu^2 / 15 for
 *       the pairs of opposite tau (mu_z flips tau between J'' and J'' + 1) and 0 for the others; the species rule drops E -> A1 and the counts add up; the ExoMol
 *       files of the whole list hold the kept lines; on two engines (create_on_devices) and with
 *       states held on the host, the same numbers;
 *   (e) degenerate blocks against the same blocks split by hand (as tests/linestrength_degenerate.rs
 *       does in Rust): in Td(M), an E block (J'' = 1) into an F2 block (J' = 2) and an F1 block
 *       (J'' = 2) into an A2 block (J' = 1), full Wang sets over two vibrational functions, a
 *       random dipole, random sparse unfoldings T_d and random levels; the reference is a second
 *       handle without a group holding one non-degenerate block per component d (unfolding T_d
 *       alone, through atomgpu_linestrength_add_block, the path (a)-(c) check against closed
 *       forms). The component amplitudes a(f, d'; i, d'') and half-linestrengths of the
 *       degenerate blocks equal those of the split blocks, in the documented column order; the
 *       line list's S and A follow from the split amplitudes by TROVE's sum over the component
 *       pairs / ndeg'' (REDUCED: d' = 0 only, no division), with the counts adding up.
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
/* 64 pi^4 1e-36/(3h) and 8 pi^3 1e-36/(3hc) with the exact CODATA 2018 h = 6.62607015e-27 erg s and
 * c = 2.99792458e10 cm/s, evaluated with mpmath at 300 bits: 3.13618866338954369161e-7 and
 * 4.16237896357627952144e-19. */
static const double k_einstein = 3.1361886633895437e-7;
static const double k_intensity = 4.1623789635762795e-19;
/* CODATA 2010 (TROVE's accuracy.f90): h [erg s], c [cm/s], k [erg/K]. */
static const double k_planck = 6.62607015e-27, k_light = 2.99792458e10, k_boltzmann = 1.380649e-16; /* CODATA 2018 */

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
    p.convention = ATOMGPU_CONVENTION_DOCUMENTED;
    p.action = ATOMGPU_ACTION_ABSORPTION;
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
    atomgpu_line_arrays one_line = {1, &up_id, &lo_id, &a, &wn, &s, &in};
    if (check_ok("diatomic line_list", atomgpu_linestrength_line_list(h, lower, 1, &upper, &p, &one_line, &n))) {
        check("diatomic: one line", n == 1);
        check_rel("diatomic J=1<-0: A = A_coef mu^2 nu^3 / 3", a, k_einstein * mu * mu * nu * nu * nu / 3.0, 1e-12);
        check_rel("diatomic J=1<-0: S = mu^2", s, mu * mu, 1e-12);
        check_rel("diatomic J=1<-0: nu = 2B", wn, nu, 1e-14);
        check("diatomic: IDs upper 2, lower 1", up_id == 2 && lo_id == 1);
    }
    {
        const double one[1] = {1.0};
        double amp = SENTINEL;
        if (check_ok("diatomic load_lower", atomgpu_linestrength_load_lower(h, lower, 1, one, 1, 0.0)) &&
            check_ok("diatomic amplitudes", atomgpu_linestrength_amplitudes(h, upper, 0.0, &amp, 1, 1)))
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
        if (check_ok(what, atomgpu_linestrength_amplitudes(h, upper, 0.0, amp, n, 1))) {
            double factor = 0.0;
            for (int i = 0; i < n; i++) factor += (double)((2 * jp + 1) * 9) * amp[i] * amp[i];
            snprintf(what, sizeof what, "Hoenl-London factor J''=4, K=2 -> J'=%d (amplitudes)", (int)jp);
            check_rel(what, factor, expected[c], 1e-13);
            check("amplitudes: nothing written past n_states", amp[n] == SENTINEL);
            total += factor;
        }
        snprintf(what, sizeof what, "half J' = %d", (int)jp);
        if (check_ok(what, atomgpu_linestrength_half(h, upper, 0.0, half, n, 1))) {
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
        if (!check_ok(what, atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, NULL, &count)))
            continue;
        snprintf(what, sizeof what, "J'' = %d: %s", (int)j, j < 4 ? "only the R line absorbs" : "no line (no J'' + 1)");
        check(what, count == (j < 4 ? 1 : 0));
        if (j == 4) continue;
        {
            /* Capacity 0 < count: refused at `lines` (argument 6), naming its field `capacity`,
             * the count in the message. */
            int64_t n = -1, up = -1, lo = -1;
            double a = SENTINEL, wn = SENTINEL, s = SENTINEL, in = SENTINEL;
            char message[512];
            int64_t length;
            atomgpu_line_arrays none = {0, &up, &lo, &a, &wn, &s, &in};
            int32_t status = atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, &none, &n);
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
            atomgpu_line_arrays two = {2, up, lo, a, wn, s, in};
            if (!check_ok(what, atomgpu_linestrength_line_list(h, blocks[j], nu_blocks, uppers, &p, &two, &n)))
                continue;
            double jj = (double)j, nu = 2.0 * b * (jj + 1.0), e = b * jj * (jj + 1.0);
            double s_want = mu * mu * (jj + 1.0);
            double a_want = k_einstein * mu * mu * nu * nu * nu * (jj + 1.0) / (2.0 * jj + 3.0);
            double i_want = k_intensity * s_want * nu * exp(-c2 * e / t) * (1.0 - exp(-c2 * nu / t)) / q;
            snprintf(what, sizeof what, "J'' = %d: one line, entry 1 untouched", (int)j);
            check(what, n == 1 && up[1] == -1 && a[1] == SENTINEL && in[1] == SENTINEL);
            snprintf(what, sizeof what, "R(%d): nu = 2B(J''+1)", (int)j);
            check_rel(what, wn[0], nu, 1e-13);
            snprintf(what, sizeof what, "R(%d): A = A_coef mu^2 nu^3 (J''+1)/(2J''+3)", (int)j);
            check_rel(what, a[0], a_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): S = mu^2 (J''+1)", (int)j);
            check_rel(what, s[0], s_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): I = I_coef S nu e^(-c2 E''/T)(1-e^(-c2 nu/T))/Q", (int)j);
            check_rel(what, in[0], i_want, 1e-12);
            snprintf(what, sizeof what, "R(%d): IDs upper %d, lower %d", (int)j, (int)j + 2, (int)j + 1);
            check(what, up[0] == j + 2 && lo[0] == j + 1);
        }
    }
    atomgpu_linestrength_destroy(h);
}

/* Adds a block of J with the given Wang functions (v = 0) of species gamma; with ndeg = 2 the
 * two functions are the two components (T_0 = e_0, T_1 = e_1, one symmetrised level). */
static int32_t species_block(atomgpu_linestrength *h, int32_t j, int32_t gamma, int32_t ndeg, int64_t n,
                             const int32_t *k, const int32_t *tau, double energy, int on_host) {
    static const int64_t v[2] = {0, 0};
    static const int64_t start_e[5] = {0, 1, 1, 1, 2}, start_a[2] = {0, 1};
    static const int64_t col[2] = {0, 0};
    static const double value[2] = {1.0, 1.0}, vector[1] = {1.0};
    int32_t block = -1;
    check_ok("add_block_species", atomgpu_linestrength_add_block_species(h, j, gamma, 1.0, n, v, k, tau, ndeg, 1,
                                                                         ndeg == 2 ? start_e : start_a, col, value,
                                                                         &block));
    int32_t (*store)(atomgpu_linestrength *, int32_t, int64_t, const double *, const double *, int64_t) =
        on_host ? atomgpu_linestrength_set_states_on_host : atomgpu_linestrength_set_states;
    check_ok("set_states", store(h, block, 1, &energy, vector, 1));
    return block;
}

static void test_degenerate_species(int32_t n_devices, int on_host) {
    const double mu = 1.7, b = 5.0;
    double dipole[3] = {0.0, 0.0, mu};
    atomgpu_linestrength *h = NULL;
    int32_t s = atomgpu_linestrength_create_on_devices(1, dipole, 1, 0, n_devices, &h);
    if (s == ATOMGPU_ERR_INVALID_ARGUMENT && atomgpu_last_error_arg() == 5 && n_devices > 1) {
        printf("note: %d GPUs asked for, fewer visible: the degenerate case runs on one\n", (int)n_devices);
        s = atomgpu_linestrength_create_on_devices(1, dipole, 1, 0, 1, &h);
    }
    check_ok("create_on_devices", s);
    check_ok("set_group", atomgpu_linestrength_set_group(h, "C3v(M)"));
    const int32_t k1[2] = {1, 1}, tau01[2] = {0, 1}, k0[1] = {0}, tau1[1] = {1}, tau0[1] = {0};
    /* Blocks: 0 E J''=1, 1 A2 J''=1, 2 E J'=2, 3 A1 J'=2 (E = B J(J+1) + 2 B K^2, any K term). */
    int32_t e1 = species_block(h, 1, 2, 2, 2, k1, tau01, 2.0 * b + 2.0 * b, on_host);
    int32_t a2 = species_block(h, 1, 1, 1, 1, k0, tau1, 2.0 * b, 0);
    int32_t e2 = species_block(h, 2, 2, 2, 2, k1, tau01, 6.0 * b + 2.0 * b, 0);
    int32_t a1 = species_block(h, 2, 0, 1, 1, k0, tau0, 6.0 * b, on_host);
    int32_t ndeg = 0;
    check_ok("block_ndeg", atomgpu_linestrength_block_ndeg(h, e1, &ndeg));
    check("block_ndeg: E has 2 components", ndeg == 2);

    /* Amplitudes of the component pairs: column dI + 2 (i + 1 dF). */
    const double vector[1] = {1.0};
    double a[4], half[4];
    check_ok("load_lower E", atomgpu_linestrength_load_lower(h, e1, 1, vector, 1, 0.0));
    check_ok("amplitudes E -> E", atomgpu_linestrength_amplitudes(h, e2, 0.0, a, 1, 4));
    /* mu_z keeps K and, between J'' and J' = J'' + 1, flips tau (TROVE's Wang functions: tau =
     * J mod 2 at K = 0), so component d'' couples to component d' = 1 - d''. */
    check_rel("a(d''=1, d'=0)^2 = HL mu^2 / 15", a[1] * a[1], 1.5 * mu * mu / 15.0, 1e-12);
    check_rel("a(d''=0, d'=1)^2 = HL mu^2 / 15", a[2] * a[2], 1.5 * mu * mu / 15.0, 1e-12);
    check("a(0,0) = a(1,1) = 0", fabs(a[0]) < 1e-15 && fabs(a[3]) < 1e-15);
    check_ok("half E -> E", atomgpu_linestrength_half(h, e2, 0.0, half, 2, 2));
    check_rel("half: component 0 on the tau 1 function", half[1] * half[1], 1.5 * mu * mu / 15.0, 1e-12);
    check_rel("half: component 1 on the tau 0 function", half[2] * half[2], 1.5 * mu * mu / 15.0, 1e-12);
    check("half: nothing on the same tau", fabs(half[0]) < 1e-15 && fabs(half[3]) < 1e-15);

    atomgpu_intensity_params p = default_params(296.0, 10.0);
    atomgpu_line_filters f = {0, 10, 0, 0, 3, {1, 0, 2}};
    int64_t n = -1, up[2], lo[2], counts[5];
    double ea[2], wn[2], st[2], in[2];
    const int32_t uppers[2] = {e2, a1};
    const atomgpu_line_arrays two = {2, up, lo, ea, wn, st, in};
    for (int reduced = 0; reduced <= 1; reduced++) {
        f.reduced = reduced;
        check_ok("line_list_filtered E",
                 atomgpu_linestrength_line_list_filtered(h, e1, 2, uppers, &p, &f, &two, &n, counts));
        check("E -> {E, A1}: one line", n == 1);
        check_rel(reduced ? "S(E) = mu^2 (4 - 1)/2, REDUCED" : "S(E) = mu^2 ((J''+1)^2 - K^2)/(J''+1)", st[0],
                  1.5 * mu * mu, 1e-12);
        check("counts: 2 pairs, 1 dropped by the species rule, 1 kept",
              counts[0] == 2 && counts[1] == 1 && counts[2] == 0 && counts[3] == 0 && counts[4] == 1);
    }
    const int32_t upper_a1[1] = {a1};
    check_ok("line_list_filtered A2", atomgpu_linestrength_line_list_filtered(h, a2, 1, upper_a1, &p, NULL, &two, &n, NULL));
    check("A2 -> A1: one line", n == 1);
    check_rel("S(A2 -> A1) = mu^2 (J''+1)", st[0], 2.0 * mu * mu, 1e-12);

    /* The whole list to ExoMol files: the two absorption lines (the J' = 2 blocks as lower
     * blocks only emit, nu < 0, outside the window). */
    const char *stem = "test_linestrength_c3v";
    f.reduced = 0;
    for (int i = 0; i < 5; i++) counts[i] = -1;
    check_ok("write_exomol", atomgpu_linestrength_write_exomol(h, stem, &p, &f, counts));
    check("write_exomol counts add up",
          counts[0] == counts[1] + counts[2] + counts[3] + counts[4] && counts[4] == 2);
    FILE *trans = fopen("test_linestrength_c3v.trans", "r");
    int lines = 0;
    for (int c; trans && (c = fgetc(trans)) != EOF;) lines += c == '\n';
    if (trans) fclose(trans);
    check(".trans holds the kept lines", lines == 2);
    remove("test_linestrength_c3v.trans");
    remove("test_linestrength_c3v.states");
    atomgpu_linestrength_destroy(h);
}

/* (e) A deterministic generator (Park & Miller's minimal standard) for the random test data. */
static int64_t rng_state = 20261124;

static double uniform(double lo, double hi) {
    rng_state = (16807 * rng_state) % 2147483647;
    return lo + (hi - lo) * (double)rng_state / 2147483647.0;
}

#define N_VIB_SPLIT 2
#define MAX_PRIM 20 /* N_VIB_SPLIT full Wang sets of J <= 4 */
#define MAX_SYM 10
#define MAX_LEVELS 4

/* A block of one species: its Wang functions, its dense unfoldings T_d (n_prim x n_sym,
 * column-major) and its levels (n_sym x n_states, column-major). */
typedef struct {
    int32_t j, gamma, ndeg;
    int64_t n_prim, n_sym, n_states;
    int64_t v[MAX_PRIM];
    int32_t k[MAX_PRIM], tau[MAX_PRIM];
    double t[3][MAX_PRIM * MAX_SYM];
    double vectors[MAX_SYM * MAX_LEVELS], energies[MAX_LEVELS];
    double gns;
} split_block;

static split_block random_species_block(int32_t j, int32_t gamma, int32_t ndeg, int64_t n_states, double e_lo,
                                        double e_hi) {
    split_block b;
    memset(&b, 0, sizeof b);
    b.j = j, b.gamma = gamma, b.ndeg = ndeg, b.n_states = n_states, b.gns = uniform(0.5, 3.0);
    for (int64_t v = 0; v < N_VIB_SPLIT; v++)
        for (int32_t k = 0; k <= j; k++)
            for (int32_t tau = 0; tau <= 1; tau++) {
                if (k == 0 && tau != j % 2) continue; /* the one Wang function of K = 0 */
                b.v[b.n_prim] = v, b.k[b.n_prim] = k, b.tau[b.n_prim] = tau;
                b.n_prim++;
            }
    b.n_sym = b.n_prim / ndeg;
    for (int32_t d = 0; d < ndeg; d++) {
        for (int64_t e = 0; e < b.n_prim * b.n_sym; e++) b.t[d][e] = uniform(0.0, 1.0) < 0.4 ? uniform(-1.0, 1.0) : 0.0;
        b.t[d][d] = 1.0 + 0.5 * d; /* no component left empty */
    }
    for (int64_t e = 0; e < b.n_sym * n_states; e++) b.vectors[e] = uniform(-1.0, 1.0);
    for (int64_t s = 0; s < n_states; s++) b.energies[s] = uniform(e_lo, e_hi);
    return b;
}

/* Appends T_d as CSR rows (0-based, zeros left out) after `*nnz` entries; row_start gets n_prim
 * more entries (the first one already set). */
static void append_csr(const split_block *b, int32_t d, int64_t *row_start, int64_t *col, double *value, int64_t *nnz) {
    for (int64_t p = 0; p < b->n_prim; p++) {
        for (int64_t c = 0; c < b->n_sym; c++) {
            double x = b->t[d][p + b->n_prim * c];
            if (x != 0.0) col[*nnz] = c, value[*nnz] = x, (*nnz)++;
        }
        row_start[p + 1] = *nnz;
    }
}

/* Registers the block with all its components (degenerate handle) or component d alone as a
 * non-degenerate block (the split handle); stores its levels. Returns the block index. */
static int32_t register_split_block(atomgpu_linestrength *h, const split_block *b, int32_t d) {
    int64_t row_start[3 * MAX_PRIM + 1] = {0}, col[3 * MAX_PRIM * MAX_SYM];
    double value[3 * MAX_PRIM * MAX_SYM];
    int64_t nnz = 0;
    int32_t block = -1;
    if (d < 0) {
        for (int32_t c = 0; c < b->ndeg; c++) append_csr(b, c, row_start + c * b->n_prim, col, value, &nnz);
        check_ok("split: add_block_species", atomgpu_linestrength_add_block_species(h, b->j, b->gamma, b->gns, b->n_prim,
                                                                                    b->v, b->k, b->tau, b->ndeg,
                                                                                    b->n_sym, row_start, col, value,
                                                                                    &block));
    } else {
        append_csr(b, d, row_start, col, value, &nnz);
        check_ok("split: add_block of one component", atomgpu_linestrength_add_block(h, b->j, b->gns, b->n_prim, b->v,
                                                                                      b->k, b->tau, b->n_sym, row_start,
                                                                                      col, value, &block));
    }
    check_ok("split: set_states", atomgpu_linestrength_set_states(h, block, b->n_states, b->energies, b->vectors,
                                                                  b->n_sym));
    return block;
}

/* Checks one (lower, upper) pair of degenerate blocks against their components split by hand. */
static void check_split_pair(const double *dipole, const char *group, const split_block *lo, const split_block *up) {
    char what[160];
    atomgpu_linestrength *dg = NULL, *sp = NULL;
    if (!check_ok("split: create degenerate", atomgpu_linestrength_create(N_VIB_SPLIT, dipole, N_VIB_SPLIT, 0, &dg)) ||
        !check_ok("split: create split", atomgpu_linestrength_create(N_VIB_SPLIT, dipole, N_VIB_SPLIT, 0, &sp)))
        return;
    check_ok("split: set_group", atomgpu_linestrength_set_group(dg, group));
    int32_t lower = register_split_block(dg, lo, -1), upper = register_split_block(dg, up, -1);
    int32_t lower_d[3], upper_d[3];
    for (int32_t d = 0; d < lo->ndeg; d++) lower_d[d] = register_split_block(sp, lo, d);
    for (int32_t d = 0; d < up->ndeg; d++) upper_d[d] = register_split_block(sp, up, d);
    int32_t ndeg_lo = 0, ndeg_up = 0;
    check_ok("split: block_ndeg lower", atomgpu_linestrength_block_ndeg(dg, lower, &ndeg_lo));
    check_ok("split: block_ndeg upper", atomgpu_linestrength_block_ndeg(dg, upper, &ndeg_up));
    snprintf(what, sizeof what, "split %s: block_ndeg gives %d and %d", group, (int)lo->ndeg, (int)up->ndeg);
    check(what, ndeg_lo == lo->ndeg && ndeg_up == up->ndeg);

    const int64_t n = lo->n_states, nf = up->n_states, np = up->n_prim;
    const int64_t ndi = lo->ndeg, ndf = up->ndeg;
    /* Split amplitudes a_sp[dI][dF][f + nf i] and half-linestrengths h_sp[dI][p + np i] (upper
     * component 0's block: the half-linestrengths live on the primitive functions). */
    static double a_sp[3][3][MAX_LEVELS * MAX_LEVELS], h_sp[3][MAX_PRIM * MAX_LEVELS];
    static double a_dg[MAX_LEVELS * 3 * MAX_LEVELS * 3], h_dg[MAX_PRIM * 3 * MAX_LEVELS];
    for (int32_t di = 0; di < ndi; di++) {
        check_ok("split: load_lower component", atomgpu_linestrength_load_lower(sp, lower_d[di], n, lo->vectors,
                                                                                lo->n_sym, 0.0));
        for (int32_t df = 0; df < ndf; df++)
            check_ok("split: amplitudes component",
                     atomgpu_linestrength_amplitudes(sp, upper_d[df], 0.0, a_sp[di][df], nf, n));
        check_ok("split: half component", atomgpu_linestrength_half(sp, upper_d[0], 0.0, h_sp[di], np, n));
    }
    check_ok("split: load_lower degenerate", atomgpu_linestrength_load_lower(dg, lower, n, lo->vectors, lo->n_sym, 0.0));
    check_ok("split: amplitudes degenerate", atomgpu_linestrength_amplitudes(dg, upper, 0.0, a_dg, nf, ndi * n * ndf));
    check_ok("split: half degenerate", atomgpu_linestrength_half(dg, upper, 0.0, h_dg, np, ndi * n));
    double worst_a = 0.0, largest_a = 0.0, worst_h = 0.0, largest_h = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int32_t di = 0; di < ndi; di++) {
            for (int32_t df = 0; df < ndf; df++)
                for (int64_t f = 0; f < nf; f++) {
                    double want = a_sp[di][df][f + nf * i];
                    double got = a_dg[f + nf * (di + ndi * (i + n * df))]; /* column d'' + ndeg'' (i + n d') */
                    largest_a = fmax(largest_a, fabs(want));
                    worst_a = fmax(worst_a, fabs(got - want));
                }
            for (int64_t p = 0; p < np; p++) {
                double want = h_sp[di][p + np * i], got = h_dg[p + np * (di + ndi * i)]; /* column d + ndeg'' i */
                largest_h = fmax(largest_h, fabs(want));
                worst_h = fmax(worst_h, fabs(got - want));
            }
        }
    snprintf(what, sizeof what, "split %s: amplitudes of every component pair = the split blocks' (%.2g of %.2g)", group,
             worst_a, largest_a);
    check(what, largest_a > 0.1 && worst_a <= 1e-13 * largest_a);
    snprintf(what, sizeof what, "split %s: half-linestrengths of every component = the split blocks' (%.2g of %.2g)",
             group, worst_h, largest_h);
    check(what, largest_h > 0.1 && worst_h <= 1e-13 * largest_h);

    /* The line list: every pair kept (open windows, no thresholds), by lower state then upper. */
    atomgpu_intensity_params p = default_params(296.0, 250.0);
    atomgpu_line_filters f = {0, 10, 0, 0, 0, {0}};
    for (int reduced = 0; reduced <= 1; reduced++) {
        int64_t n_lines = -1, up_id[MAX_LEVELS * MAX_LEVELS], lo_id[MAX_LEVELS * MAX_LEVELS], counts[5] = {-1, -1, -1, -1, -1};
        double ea[MAX_LEVELS * MAX_LEVELS], wn[MAX_LEVELS * MAX_LEVELS], st[MAX_LEVELS * MAX_LEVELS];
        double in[MAX_LEVELS * MAX_LEVELS];
        f.reduced = reduced;
        atomgpu_line_arrays all = {MAX_LEVELS * MAX_LEVELS, up_id, lo_id, ea, wn, st, in};
        if (!check_ok("split: line_list_filtered",
                      atomgpu_linestrength_line_list_filtered(dg, lower, 1, &upper, &p, &f, &all, &n_lines, counts)))
            continue;
        snprintf(what, sizeof what, "split %s%s: every pair a line, counts add up", group, reduced ? " REDUCED" : "");
        check(what, n_lines == n * nf && counts[0] == n * nf && counts[4] == n * nf &&
                        counts[0] == counts[1] + counts[2] + counts[3] + counts[4]);
        if (n_lines != n * nf) continue;
        double worst_s = 0.0, worst_e = 0.0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t fu = 0; fu < nf; fu++) {
                double sum = 0.0;
                for (int32_t di = 0; di < ndi; di++)
                    for (int32_t df = 0; df < (reduced ? 1 : ndf); df++) sum += pow(a_sp[di][df][fu + nf * i], 2);
                double l = reduced ? sum : sum / (double)ndi, nu = up->energies[fu] - lo->energies[i];
                double s_want = lo->gns * (2.0 * up->j + 1.0) * (2.0 * lo->j + 1.0) * l;
                double a_want = k_einstein * (2.0 * lo->j + 1.0) * l * nu * nu * nu;
                int64_t e = fu + nf * i;
                worst_s = fmax(worst_s, fabs(st[e] - s_want) / s_want);
                worst_e = fmax(worst_e, fabs(ea[e] - a_want) / a_want);
            }
        snprintf(what, sizeof what, "split %s%s: S = g_ns (2J'+1)(2J''+1) sum a^2 / ndeg'' of the split blocks (%.2g)",
                 group, reduced ? " REDUCED" : "", worst_s);
        check(what, worst_s <= 1e-12);
        snprintf(what, sizeof what, "split %s%s: A = A_coef (2J''+1) L nu^3 (%.2g)", group,
                 reduced ? " REDUCED" : "", worst_e);
        check(what, worst_e <= 1e-12);
    }
    atomgpu_linestrength_destroy(dg);
    atomgpu_linestrength_destroy(sp);
}

static void test_split_by_hand(void) {
    double dipole[N_VIB_SPLIT * 3 * N_VIB_SPLIT];
    for (int e = 0; e < N_VIB_SPLIT * 3 * N_VIB_SPLIT; e++) dipole[e] = uniform(-1.0, 1.0);
    /* Td(M): A1, A2, E, F1, F2 = 0..4. */
    split_block e_low = random_species_block(1, 2, 2, 3, 100.0, 1500.0);
    split_block f2_high = random_species_block(2, 4, 3, 2, 2000.0, 3500.0);
    check_split_pair(dipole, "Td(M)", &e_low, &f2_high);
    split_block f1_low = random_species_block(2, 3, 3, 4, 100.0, 1500.0);
    split_block a2_high = random_species_block(1, 1, 1, 3, 2000.0, 3500.0);
    check_split_pair(dipole, "Td(M)", &f1_low, &a2_high);
}

int main(void) {
    test_diatomic();
    test_hoenl_london();
    test_rigid_rotor();
    test_degenerate_species(1, 0);
    test_degenerate_species(2, 1);
    test_split_by_hand();
    atomgpu_linestrength_destroy(NULL);
    printf("test_linestrength: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
