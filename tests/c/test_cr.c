/*
 * test_cr.c: calls every C entry point of the collisional-radiative driver (src/ffi/cr.rs) on a
 * small three-level model and checks the numbers against closed forms, not against the library
 * itself (the rate matrices are checked against conservation and against the right-hand side):
 *   (a) RK4 keeps the linear invariants of the radiation-free system (total ion density and total
 *       energy u + sum_l E_l N_l) to rounding;
 *   (b) the right-hand side moves no ions in or out (sum_l dN_l/dt = 0), conserves energy without
 *       radiation, and reports n_e = sum_l Z_l N_l and the temperature the state was made at;
 *   (c) the initial energy density is 3/2 n_e T_e (Maxwell-Boltzmann) and the Sommerfeld
 *       expansion (3/5) n_e E_F (1 + 5 pi^2/12 (T/E_F)^2) of a degenerate gas (Fermi-Dirac);
 *   (d) without radiation the stiff integrator relaxes the system to local thermodynamic
 *       equilibrium: Boltzmann N1/N0 = (g1/g0) e^{-5/T} and Saha N2/N0 = (g2/g0) e^{-(20+mu)/T};
 *   (e) bad input: status ATOMGPU_ERR_INVALID_ARGUMENT, the argument's 1-based position, and
 *       untouched outputs.
 *
 * The model: level 0 (Z = 1, 0 eV, g = 2), level 1 (Z = 1, 5 eV, g = 6), level 2 (Z = 2, 20 eV,
 * g = 1); excitation 0 -> 1 (5 eV), ionizations 0 -> 2 (20 eV) and 1 -> 2 (15 eV). Quadrature
 * p = 5 with 8 nodes per panel.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_cr.c -o test_cr \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define FD ATOMGPU_STATS_FERMI_DIRAC
#define MB ATOMGPU_STATS_MAXWELL_BOLTZMANN
#define NL 3
#define SENTINEL (-12345.0)

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

static const char *stats_name(int32_t stats) { return stats == FD ? "FD" : "MB"; }

/* The model's data. */
static const double charges[NL] = {1.0, 1.0, 2.0};
static const double weights[NL] = {2.0, 6.0, 1.0};
static const double level_energy[NL] = {0.0, 5.0, 20.0};
static const int64_t x_lower[1] = {0}, x_upper[1] = {1};
static const double x_energy[1] = {5.0};
static const double x_omega[6] = {0.5, 1.0, 0.3, -0.1, 0.0, 0.0};
static const int64_t i_lower[2] = {0, 1}, i_upper[2] = {2, 2};
static const double i_energy[2] = {20.0, 15.0};
static const double i_beli[10] = {3.0, -0.2, 2.0, -0.5, 0.0, 3.0, -0.2, 2.0, -0.5, 0.0};
static const double i_d0[2] = {5e-18, 5e-18};
static const double i_d1[2] = {4e-19, 4e-19};

/* The model's descriptor (statistics `stats`, quadrature p = 5 with 8 nodes, T_r = tr_ev). */
static atomgpu_cr_model_desc model_desc(int32_t stats, double tr_ev) {
    atomgpu_cr_model_desc d = {NL,     charges, weights, 1,      x_lower, x_upper, x_energy, x_omega, 2,   i_lower,
                               i_upper, i_energy, i_beli, i_d0, i_d1,    stats,   8,        5.0,     tr_ev};
    return d;
}

static atomgpu_cr *make_model(int32_t stats, double tr_ev) {
    atomgpu_cr *model = NULL;
    char what[64];
    atomgpu_cr_model_desc d = model_desc(stats, tr_ev);
    snprintf(what, sizeof what, "cr_create (%s, Tr = %g eV)", stats_name(stats), tr_ev);
    check_ok(what, atomgpu_cr_create(&d, &model));
    check("cr_create gives a handle", model != NULL);
    return model;
}

static double total_energy(const double *y) {
    double e = y[NL];
    for (int l = 0; l < NL; l++) e += level_energy[l] * y[l];
    return e;
}

/* (a) RK4 conserves the ion density and the total energy (T_r -> 0: no radiation). */
static void test_rk4_invariants(int32_t stats) {
    char what[128];
    atomgpu_cr *model = make_model(stats, 1e-3);
    const double pops[NL] = {1e21, 0.0, 0.0};
    double y[NL + 1], y0[NL + 1];
    enum { MAX_SAMPLES = 8, STEPS = 50, EVERY = 10 };
    double times[MAX_SAMPLES], te[MAX_SAMPLES], ne[MAX_SAMPLES], pop[NL * MAX_SAMPLES];
    int64_t n_samples = -1;
    for (int i = 0; i < MAX_SAMPLES; i++) times[i] = te[i] = ne[i] = SENTINEL;
    snprintf(what, sizeof what, "%s: cr_initial_state", stats_name(stats));
    if (!check_ok(what, atomgpu_cr_initial_state(model, pops, 3.0, y))) goto done;
    memcpy(y0, y, sizeof y);
    snprintf(what, sizeof what, "%s: cr_run_rk4", stats_name(stats));
    if (!check_ok(what, atomgpu_cr_run_rk4(model, y, 2e-15, STEPS, EVERY, MAX_SAMPLES, &n_samples, times, te, ne, pop)))
        goto done;
    check("rk4: 1 + 50/10 samples", n_samples == 6);
    check("rk4: samples beyond n_samples untouched", times[6] == SENTINEL && te[7] == SENTINEL && ne[6] == SENTINEL);
    check("rk4: first sample at t = 0 is the initial state",
          times[0] == 0.0 && pop[0] == pops[0] && pop[1] == pops[1] && pop[2] == pops[2]);
    check_rel("rk4: first sample's Te is the initial one", te[0], 3.0, 1e-12);
    for (int s = 1; s < 6; s++) {
        snprintf(what, sizeof what, "%s: rk4 sample %d time", stats_name(stats), s);
        check_rel(what, times[s], s * EVERY * 2e-15, 1e-14);
    }
    for (int l = 0; l < NL; l++) {
        snprintf(what, sizeof what, "%s: y holds the last sample's N_%d", stats_name(stats), l);
        check(what, y[l] == pop[5 * NL + l]);
    }
    snprintf(what, sizeof what, "%s: something happened (N_2 > 1e-6 N)", stats_name(stats));
    check(what, y[2] > 1e-6 * 1e21 && y[1] > 1e-6 * 1e21);
    snprintf(what, sizeof what, "%s: rk4 conserves sum N", stats_name(stats));
    check_rel(what, y[0] + y[1] + y[2], y0[0] + y0[1] + y0[2], 1e-12);
    snprintf(what, sizeof what, "%s: rk4 conserves u + sum E_l N_l", stats_name(stats));
    check_rel(what, total_energy(y), total_energy(y0), 1e-12);
    /* n_e reported = sum Z N of the last sample; Te consistent with (u, n_e). */
    snprintf(what, sizeof what, "%s: rk4 last n_e = sum Z N", stats_name(stats));
    check_rel(what, ne[5], y[0] + y[1] + 2.0 * y[2], 1e-15);
    {
        double t_check = SENTINEL, mu_check = SENTINEL;
        snprintf(what, sizeof what, "%s: rates_temperature of the last state", stats_name(stats));
        if (check_ok(what, atomgpu_rates_temperature(stats, 1, &y[NL], &ne[5], &t_check, &mu_check))) {
            snprintf(what, sizeof what, "%s: rk4 last Te = T(u, n_e)", stats_name(stats));
            check_rel(what, te[5], t_check, 1e-12);
        }
        check("electrons cooled by exciting and ionizing", te[5] < 3.0);
    }
done:
    atomgpu_cr_destroy(model);
}

/* (b) the right-hand side: sum dN = 0, energy conservation without radiation, the conditions it
 * reports; with radiation (T_r = 100 eV) it differs from the radiation-free one by exactly the
 * photoionization terms L N and heating H N + IB of the rates family at the same conditions. */
static void test_derivatives(int32_t stats) {
    char what[160];
    const char *tag = stats_name(stats);
    atomgpu_cr *dark = make_model(stats, 1e-3), *lit = make_model(stats, 100.0);
    const double pops[NL] = {6e20, 3e20, 1e20}, te0 = 2.5, tr[2] = {1e-3, 100.0};
    const double z2n = pops[0] + pops[1] + 4.0 * pops[2];
    double y[NL + 1], d[2][NL + 1], cond[2][3], mu = SENTINEL;
    double rate[2] = {SENTINEL, SENTINEL}, heat[2] = {SENTINEL, SENTINEL}, ib[2] = {SENTINEL, SENTINEL};
    if (!check_ok("cr_initial_state", atomgpu_cr_initial_state(dark, pops, te0, y))) goto done;
    snprintf(what, sizeof what, "%s: cr_derivatives (no radiation)", tag);
    if (!check_ok(what, atomgpu_cr_derivatives(dark, y, d[0], cond[0]))) goto done;
    snprintf(what, sizeof what, "%s: cr_derivatives (Tr = 100 eV)", tag);
    if (!check_ok(what, atomgpu_cr_derivatives(lit, y, d[1], cond[1]))) goto done;
    for (int k = 0; k < 2; k++) {
        double sum = d[k][0] + d[k][1] + d[k][2];
        double scale = fabs(d[k][0]) + fabs(d[k][1]) + fabs(d[k][2]);
        snprintf(what, sizeof what, "%s, Tr = %g: sum dN/dt = 0 (%.3g of %.3g)", tag, tr[k], sum, scale);
        check(what, scale > 0.0 && fabs(sum) <= 1e-14 * scale);
        snprintf(what, sizeof what, "%s, Tr = %g: conditions Te = Te of the initial state", tag, tr[k]);
        check_rel(what, cond[k][0], te0, 1e-12);
        snprintf(what, sizeof what, "%s, Tr = %g: conditions n_e = sum Z N", tag, tr[k]);
        check_rel(what, cond[k][2], pops[0] + pops[1] + 2.0 * pops[2], 1e-15);
    }
    {
        /* Without radiation: d/dt (u + sum E N) = 0. */
        double de = d[0][NL] + level_energy[1] * d[0][1] + level_energy[2] * d[0][2];
        double scale = fabs(d[0][NL]) + level_energy[1] * fabs(d[0][1]) + level_energy[2] * fabs(d[0][2]);
        snprintf(what, sizeof what, "%s: d/dt (u + sum E N) = 0 without radiation (%.3g of %.3g)", tag, de, scale);
        check(what, scale > 0.0 && fabs(de) <= 1e-13 * scale);
    }
    /* The rate matrices at the same conditions: columns conserve ions (and, without radiation,
     * energy), and dN/dt = M N, du/dt = sum m_energy N reproduce the right-hand side. */
    for (int k = 0; k < 2; k++) {
        double m[NL * NL], me[NL], mn[NL] = {0.0, 0.0, 0.0}, mn_scale[NL] = {0.0, 0.0, 0.0}, du = 0.0, du_scale = 0.0;
        snprintf(what, sizeof what, "%s, Tr = %g: cr_rate_matrix", tag, tr[k]);
        if (!check_ok(what, atomgpu_cr_rate_matrix(k == 0 ? dark : lit, cond[k][0], cond[k][2], m, me))) continue;
        for (int l = 0; l < NL; l++) {
            double col = 0.0, col_scale = 0.0, energy = me[l], energy_scale = fabs(me[l]);
            for (int r = 0; r < NL; r++) {
                col += m[r + NL * l];
                col_scale += fabs(m[r + NL * l]);
                energy += level_energy[r] * m[r + NL * l];
                energy_scale += level_energy[r] * fabs(m[r + NL * l]);
                mn[r] += m[r + NL * l] * pops[l];
                mn_scale[r] += fabs(m[r + NL * l] * pops[l]);
            }
            snprintf(what, sizeof what, "%s, Tr = %g: column %d of M sums to 0", tag, tr[k], l);
            check(what, col_scale > 0.0 && fabs(col) <= 1e-14 * col_scale);
            if (k == 0) {
                snprintf(what, sizeof what, "%s: m_energy[%d] + sum_k E_k M[k,%d] = 0 without radiation", tag, l, l);
                check(what, fabs(energy) <= 1e-13 * energy_scale);
            }
            du += me[l] * pops[l];
            du_scale += fabs(me[l] * pops[l]);
        }
        for (int r = 0; r < NL; r++) {
            snprintf(what, sizeof what, "%s, Tr = %g: (M N)[%d] = dN_%d/dt", tag, tr[k], r, r);
            check(what, fabs(mn[r] - d[k][r]) <= 1e-12 * mn_scale[r]);
        }
        snprintf(what, sizeof what, "%s, Tr = %g: sum m_energy N = du/dt", tag, tr[k]);
        check(what, fabs(du - d[k][NL]) <= 1e-12 * du_scale);
    }
    if (check_ok("rates_chemical_potential", atomgpu_rates_chemical_potential(stats, 1, &te0, &cond[0][2], &mu))) {
        snprintf(what, sizeof what, "%s: conditions mu = mu(Te, n_e)", tag);
        check(what, fabs(cond[0][1] - mu) <= 1e-12 * fabs(mu) + 1e-12 * te0);
    }
    /* Radiation adds L_l N_l to N_2 (from levels 0 and 1) and H_l N_l + IB to u. */
    if (check_ok("rates_photoionization", atomgpu_rates_photoionization(stats, 5.0, 8, 1, &cond[1][0], &cond[1][2],
                                                                         &tr[1], 2, i_energy, i_d0, i_d1, rate, heat)) &&
        check_ok("rates_inverse_bremsstrahlung (Tr = 100)",
                 atomgpu_rates_inverse_bremsstrahlung(stats, 5.0, 8, 1, &cond[1][0], &cond[1][2], &tr[1], &z2n, &ib[1])) &&
        check_ok("rates_inverse_bremsstrahlung (Tr = 1e-3)",
                 atomgpu_rates_inverse_bremsstrahlung(stats, 5.0, 8, 1, &cond[0][0], &cond[0][2], &tr[0], &z2n, &ib[0]))) {
        snprintf(what, sizeof what, "%s: radiation adds L_0 N_0 + L_1 N_1 to dN_2/dt", tag);
        check_rel(what, d[1][2] - d[0][2], rate[0] * pops[0] + rate[1] * pops[1], 1e-9);
        snprintf(what, sizeof what, "%s: radiation takes L_0 N_0 from dN_0/dt", tag);
        check_rel(what, d[1][0] - d[0][0], -rate[0] * pops[0], 1e-9);
        snprintf(what, sizeof what, "%s: radiation adds H_0 N_0 + H_1 N_1 + IB to du/dt", tag);
        check_rel(what, d[1][NL] - d[0][NL], heat[0] * pops[0] + heat[1] * pops[1] + ib[1] - ib[0], 1e-9);
        check("photoionization and heating are positive", rate[0] > 0.0 && rate[1] > 0.0 && ib[1] > 0.0);
    }
done:
    atomgpu_cr_destroy(dark);
    atomgpu_cr_destroy(lit);
}

/* (c) the initial state's energy density against closed forms. */
static void test_initial_state(void) {
    atomgpu_cr *mb = make_model(MB, 1e-3), *fd = make_model(FD, 1e-3);
    const double pops[NL] = {2e20, 1e20, 3e20};
    double y[NL + 1];
    if (check_ok("MB cr_initial_state", atomgpu_cr_initial_state(mb, pops, 7.5, y))) {
        double ne = pops[0] + pops[1] + 2.0 * pops[2];
        check("initial_state copies the populations", y[0] == pops[0] && y[1] == pops[1] && y[2] == pops[2]);
        check_rel("MB initial u = 3/2 n_e T_e", y[NL], 1.5 * ne * 7.5, 1e-13);
    }
    {
        /* Degenerate gas: n_e = 1e23 cm^-3 (E_F = 7.9 eV) at T = 0.1 eV; the next term of the
         * Sommerfeld expansion, -(pi^4/16) (T/E_F)^4, is 1.6e-7 of u. */
        const double deg[NL] = {1e23, 0.0, 0.0}, t = 0.1;
        double ef = k_hc * k_hc / (2.0 * k_mec2) * pow(3.0 * deg[0] / (8.0 * k_pi), 2.0 / 3.0);
        double r = t / ef;
        double want = 0.6 * deg[0] * ef * (1.0 + 5.0 * k_pi * k_pi / 12.0 * r * r);
        if (check_ok("FD cr_initial_state", atomgpu_cr_initial_state(fd, deg, t, y)))
            check_rel("FD initial u = (3/5) n_e E_F (1 + 5 pi^2/12 (T/E_F)^2)", y[NL], want, 1e-6);
    }
    atomgpu_cr_destroy(mb);
    atomgpu_cr_destroy(fd);
}

/* (d) the stiff integrator relaxes the radiation-free system to LTE. LTE is a fixed point of
 * the ROS4 step (f(y) = 0 gives k1 = ... = k4 = 0), so the ratios there do not depend on rtol:
 * the tolerances only set how many steps the way there takes. */
static void test_stiff_lte(int32_t stats, double rtol, double atol_fraction) {
    char what[160];
    atomgpu_cr *model = make_model(stats, 1e-3);
    const double pops[NL] = {4e20, 0.0, 1e20};
    const double times[3] = {1e-13, 1e-12, 1e-11};
    double y[NL + 1], te[3], ne[3], pop[NL * 3], mu = SENTINEL;
    struct timespec start;
    const char *tag = stats_name(stats);
    if (!check_ok("cr_initial_state", atomgpu_cr_initial_state(model, pops, 4.0, y))) goto done;
    clock_gettime(CLOCK_MONOTONIC, &start);
    snprintf(what, sizeof what, "%s: cr_run_stiff to 1e-11 s (rtol %g)", tag, rtol);
    if (!check_ok(what, atomgpu_cr_run_stiff(model, y, 3, times, rtol, atol_fraction, te, ne, pop))) goto done;
    printf("  %s stiff run to LTE (rtol %g, atol_fraction %g): %.2f s\n", tag, rtol, atol_fraction,
           seconds_since(&start));
    {
        double t = te[2], n0 = pop[6], n1 = pop[7], n2 = pop[8];
        double boltzmann = 3.0 * exp(-5.0 / t);
        snprintf(what, sizeof what, "%s: y holds the state at the last time", tag);
        check(what, y[0] == n0 && y[1] == n1 && y[2] == n2);
        snprintf(what, sizeof what, "%s: last n_e = sum Z N", tag);
        check_rel(what, ne[2], n0 + n1 + 2.0 * n2, 1e-15);
        snprintf(what, sizeof what, "%s: ions conserved", tag);
        check_rel(what, n0 + n1 + n2, 5e20, 1e-10);
        snprintf(what, sizeof what, "%s: LTE Boltzmann N1/N0 = 3 exp(-5/T) (T = %.6f eV)", tag, t);
        check_rel(what, n1 / n0, boltzmann, 1e-5);
        if (check_ok("rates_chemical_potential", atomgpu_rates_chemical_potential(stats, 1, &t, &ne[2], &mu))) {
            double saha = 0.5 * exp(-(20.0 + mu) / t);
            snprintf(what, sizeof what, "%s: LTE Saha N2/N0 = 0.5 exp(-(20 + mu)/T) (mu = %.6f eV)", tag, mu);
            check_rel(what, n2 / n0, saha, 1e-5);
        }
    }
done:
    atomgpu_cr_destroy(model);
}

/* (d') several systems in one call (atomgpu_cr_run_stiff_systems): two different starts, both
 * relax to LTE (Boltzmann ratio, closed form), and each follows the run it makes alone
 * (atomgpu_cr_run_stiff) exactly. */
static void test_stiff_systems(int32_t stats) {
    char what[160];
    atomgpu_cr *model = make_model(stats, 1e-3);
    const double pops[2][NL] = {{4e20, 0.0, 1e20}, {1e21, 2e20, 0.0}};
    const double start_te[2] = {4.0, 9.0};
    const double times[3] = {1e-13, 1e-12, 1e-11};
    double y[2][NL + 1], alone_y[NL + 1], te[2][3], ne[2][3], pop[2][3][NL];
    double alone_te[3], alone_ne[3], alone_pop[3 * NL];
    const char *tag = stats_name(stats);
    for (int s = 0; s < 2; s++)
        if (!check_ok("cr_initial_state", atomgpu_cr_initial_state(model, pops[s], start_te[s], y[s]))) goto done;
    memcpy(alone_y, y[1], sizeof alone_y);
    snprintf(what, sizeof what, "%s: cr_run_stiff_systems, 2 systems to 1e-11 s", tag);
    if (!check_ok(what, atomgpu_cr_run_stiff_systems(model, 2, &y[0][0], 3, times, 1e-7, 1e-12, &te[0][0], &ne[0][0],
                                                     &pop[0][0][0])))
        goto done;
    for (int s = 0; s < 2; s++) {
        double t = te[s][2], boltzmann = 3.0 * exp(-5.0 / t);
        snprintf(what, sizeof what, "%s: system %d: y holds its state at the last time", tag, s);
        check(what, y[s][0] == pop[s][2][0] && y[s][2] == pop[s][2][2]);
        snprintf(what, sizeof what, "%s: system %d: LTE Boltzmann N1/N0 = 3 exp(-5/T) (T = %.6f eV)", tag, s, t);
        check_rel(what, pop[s][2][1] / pop[s][2][0], boltzmann, 1e-5);
    }
    snprintf(what, sizeof what, "%s: cr_run_stiff of system 1 alone", tag);
    if (check_ok(what, atomgpu_cr_run_stiff(model, alone_y, 3, times, 1e-7, 1e-12, alone_te, alone_ne, alone_pop))) {
        snprintf(what, sizeof what, "%s: system 1 in the batch follows its run alone", tag);
        check(what, memcmp(alone_te, te[1], sizeof alone_te) == 0 && memcmp(alone_pop, pop[1], sizeof alone_pop) == 0);
    }
done:
    atomgpu_cr_destroy(model);
}

/* (e) bad input. */
static double out_y[NL + 1], out_d[NL + 1], out_c[3], out_t[8], out_te[8], out_ne[8], out_p[NL * 8];
static int64_t out_n;

static void reset(void) {
    for (int i = 0; i < NL + 1; i++) out_d[i] = SENTINEL;
    for (int i = 0; i < 3; i++) out_c[i] = SENTINEL;
    for (int i = 0; i < 8; i++) out_t[i] = out_te[i] = out_ne[i] = SENTINEL;
    for (int i = 0; i < NL * 8; i++) out_p[i] = SENTINEL;
    out_n = -7;
}

static int untouched(const double *y_before) {
    for (int i = 0; i < NL + 1; i++)
        if (out_d[i] != SENTINEL || out_y[i] != y_before[i]) return 0;
    for (int i = 0; i < 3; i++)
        if (out_c[i] != SENTINEL) return 0;
    for (int i = 0; i < 8; i++)
        if (out_t[i] != SENTINEL || out_te[i] != SENTINEL || out_ne[i] != SENTINEL) return 0;
    for (int i = 0; i < NL * 8; i++)
        if (out_p[i] != SENTINEL) return 0;
    return out_n == -7;
}

static void expect_bad(const char *what, int32_t status, int32_t position, const char *name, const double *y_before) {
    char message[1024];
    int64_t length;
    int ok = invalid_argument_reported(what, status, position, name, NULL, message, sizeof message, &length);
    checks++;
    if (!untouched(y_before)) {
        printf("FAIL %s: an output was written on error\n", what);
        ok = 0;
    }
    if (!ok) failures++;
}

static void test_bad_input(void) {
    atomgpu_cr *model = make_model(MB, 1e-3), *made = (atomgpu_cr *)&out_n; /* a sentinel handle */
    const double pops[NL] = {1e21, 0.0, 0.0}, pops_neg[NL] = {1e21, -1.0, 0.0};
    const double times_ok[3] = {1e-15, 2e-15, 3e-15}, times_unsorted[3] = {1e-15, 3e-15, 2e-15};
    const int64_t x_out_of_range[1] = {3}, x_negative[1] = {-1}, i_out_of_range[2] = {0, 5};
    double y0[NL + 1];
    if (!check_ok("cr_initial_state", atomgpu_cr_initial_state(model, pops, 3.0, out_y))) {
        atomgpu_cr_destroy(model);
        return;
    }
    memcpy(y0, out_y, sizeof y0);

    /* NULL model. */
    reset();
    expect_bad("initial_state: NULL model", atomgpu_cr_initial_state(NULL, pops, 3.0, out_d), 1, "model", y0);
    reset();
    expect_bad("derivatives: NULL model", atomgpu_cr_derivatives(NULL, out_y, out_d, out_c), 1, "model", y0);
    reset();
    expect_bad("run_rk4: NULL model",
               atomgpu_cr_run_rk4(NULL, out_y, 1e-16, 10, 5, 8, &out_n, out_t, out_te, out_ne, out_p), 1, "model", y0);
    reset();
    expect_bad("run_stiff: NULL model",
               atomgpu_cr_run_stiff(NULL, out_y, 3, times_ok, 1e-6, 1e-10, out_te, out_ne, out_p), 1, "model", y0);
    reset();
    expect_bad("run_stiff_systems: n_systems = 0",
               atomgpu_cr_run_stiff_systems(model, 0, out_y, 3, times_ok, 1e-6, 1e-10, out_te, out_ne, out_p), 2,
               "n_systems", y0);
    reset();
    expect_bad("run_stiff_systems: unsorted times",
               atomgpu_cr_run_stiff_systems(model, 1, out_y, 3, times_unsorted, 1e-6, 1e-10, out_te, out_ne, out_p),
               5, "sample_times_s", y0);
    {
        int64_t n = -7;
        reset();
        expect_bad("n_levels: NULL model", atomgpu_cr_n_levels(NULL, &n), 1, "model", y0);
        check("n_levels: NULL model leaves the output", n == -7);
        check_ok("n_levels", atomgpu_cr_n_levels(model, &n));
        check("n_levels = 3", n == NL);
    }

    /* run_rk4: negative n_steps, max_samples too small, NULL outputs. */
    reset();
    expect_bad("run_rk4: negative n_steps",
               atomgpu_cr_run_rk4(model, out_y, 1e-16, -10, 5, 8, &out_n, out_t, out_te, out_ne, out_p), 4, "n_steps",
               y0);
    reset();
    expect_bad("run_rk4: zero sample_every",
               atomgpu_cr_run_rk4(model, out_y, 1e-16, 10, 0, 8, &out_n, out_t, out_te, out_ne, out_p), 5,
               "sample_every", y0);
    reset();
    expect_bad("run_rk4: max_samples too small (1 + ceil(10/3) = 5 > 4)",
               atomgpu_cr_run_rk4(model, out_y, 1e-16, 10, 3, 4, &out_n, out_t, out_te, out_ne, out_p), 6,
               "max_samples", y0);
    reset();
    expect_bad("run_rk4: NULL populations",
               atomgpu_cr_run_rk4(model, out_y, 1e-16, 10, 5, 8, &out_n, out_t, out_te, out_ne, NULL), 11,
               "populations", y0);
    reset();
    expect_bad("run_rk4: NaN dt_s",
               atomgpu_cr_run_rk4(model, out_y, NAN, 10, 5, 8, &out_n, out_t, out_te, out_ne, out_p), 3, "dt_s", y0);

    /* run_stiff: unsorted sample times, bad tolerances. */
    reset();
    expect_bad("run_stiff: unsorted sample times",
               atomgpu_cr_run_stiff(model, out_y, 3, times_unsorted, 1e-6, 1e-10, out_te, out_ne, out_p), 4,
               "sample_times_s", y0);
    reset();
    expect_bad("run_stiff: rtol = 0",
               atomgpu_cr_run_stiff(model, out_y, 3, times_ok, 0.0, 1e-10, out_te, out_ne, out_p), 5, "rtol", y0);
    reset();
    expect_bad("run_stiff: negative n_times",
               atomgpu_cr_run_stiff(model, out_y, -3, times_ok, 1e-6, 1e-10, out_te, out_ne, out_p), 3, "n_times", y0);

    /* initial_state and derivatives. */
    reset();
    expect_bad("initial_state: negative population",
               atomgpu_cr_initial_state(model, pops_neg, 3.0, out_d), 2, "populations", y0);
    reset();
    expect_bad("initial_state: NaN te_ev", atomgpu_cr_initial_state(model, pops, NAN, out_d), 3, "te_ev", y0);
    reset();
    expect_bad("derivatives: NULL conditions", atomgpu_cr_derivatives(model, out_y, out_d, NULL), 4, "conditions",
               y0);

    /* rate_matrix: NULL model, NaN temperature, negative density. */
    reset();
    expect_bad("rate_matrix: NULL model", atomgpu_cr_rate_matrix(NULL, 3.0, 1e21, out_p, out_d), 1, "model", y0);
    reset();
    expect_bad("rate_matrix: NaN te_ev", atomgpu_cr_rate_matrix(model, NAN, 1e21, out_p, out_d), 2, "te_ev", y0);
    reset();
    expect_bad("rate_matrix: negative ne_cm3", atomgpu_cr_rate_matrix(model, 3.0, -1e21, out_p, out_d), 3, "ne_cm3",
               y0);
    reset();
    expect_bad("rate_matrix: NULL m_energy", atomgpu_cr_rate_matrix(model, 3.0, 1e21, out_p, NULL), 5, "m_energy", y0);

    /* create: level index out of range (excitation 0 -> 3 with 3 levels; ionization 1 -> 5),
     * negative index, NULL model pointer, NULL descriptor. A field of the descriptor is refused
     * at `desc` (position 1) naming the field. *model must stay untouched. */
    reset();
    made = (atomgpu_cr *)&out_n;
    atomgpu_cr_model_desc bad = model_desc(MB, 1e-3);
    bad.excitation_upper = x_out_of_range;
    expect_bad("create: excitation level out of range", atomgpu_cr_create(&bad, &made), 1, "excitation_upper", y0);
    check("create: *model untouched on error", made == (atomgpu_cr *)&out_n);
    reset();
    bad = model_desc(MB, 1e-3);
    bad.excitation_lower = x_negative;
    expect_bad("create: negative excitation level", atomgpu_cr_create(&bad, &made), 1, "excitation_lower", y0);
    reset();
    bad = model_desc(MB, 1e-3);
    bad.ionization_upper = i_out_of_range;
    expect_bad("create: ionization level out of range", atomgpu_cr_create(&bad, &made), 1, "ionization_upper", y0);
    reset();
    bad = model_desc(MB, 1e-3);
    expect_bad("create: NULL model pointer", atomgpu_cr_create(&bad, NULL), 2, "model", y0);
    reset();
    expect_bad("create: NULL descriptor", atomgpu_cr_create(NULL, &made), 1, "desc", y0);
    reset();
    bad.stats = 7;
    expect_bad("create: stats out of range", atomgpu_cr_create(&bad, &made), 1, "stats", y0);
    check("create: *model still untouched", made == (atomgpu_cr *)&out_n);

    /* destroy accepts NULL (and a model with no transitions is valid). */
    check_ok("destroy(NULL)", atomgpu_cr_destroy(NULL));
    {
        atomgpu_cr *bare = NULL;
        atomgpu_cr_model_desc d = {NL, charges, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                                   FD, 8,  5.0,     1.0};
        check_ok("create with no transitions and NULL weights", atomgpu_cr_create(&d, &bare));
        int64_t n = 0;
        check("n_levels of the bare model", atomgpu_cr_n_levels(bare, &n) == ATOMGPU_OK && n == NL);
        check_ok("destroy the bare model", atomgpu_cr_destroy(bare));
    }
    atomgpu_cr_destroy(model);
}

int main(void) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    test_rk4_invariants(FD);
    test_rk4_invariants(MB);
    test_derivatives(FD);
    test_derivatives(MB);
    test_initial_state();
    test_stiff_lte(MB, 1e-8, 1e-13);
    test_stiff_lte(FD, 1e-6, 1e-10); /* Fermi-Dirac: 3x dearer right-hand sides, looser way there */
    test_stiff_systems(MB);
    test_stiff_systems(FD);
    test_bad_input();
    printf("test_cr: %d checks, %d failures (%.1f s)\n", checks, failures, seconds_since(&start));
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
