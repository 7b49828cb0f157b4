/*
 * test_scf.c: every C entry point of the SCF family (src/ffi/scf.rs) against numbers known
 * independently of the library, on whatever backend is in use (the CPU, or CUDA on a GPU
 * machine):
 *   (a) WTBS exponents: the recursion zeta_1 = alpha, zeta_k = zeta_(k-1) beta (1 + gamma (k/K)^delta)
 *       evaluated here, with wtbspara in DFRATOM's order (alpha, beta, delta, gamma);
 *   (b) one normalised s Gaussian of exponent a: overlap 1, kinetic 3a/2, point-nucleus
 *       attraction -2Z sqrt(2a/pi), Gaussian-nucleus attraction -2Z sqrt(2a xi/(pi (2a + xi)));
 *   (c) its supermatrix R^0/2 and Fock build G(D = 2) = R^0 = 2 sqrt(a/pi) (the self-repulsion
 *       of a Gaussian charge), through an integral handle;
 *   (d) SCFs in one s Gaussian: hydrogen (one open s electron) -4/(3 pi) at a = 8/(9 pi), helium
 *       -k^2/12 at a = (k/6)^2 with k = (8 sqrt 2 - 2)/sqrt(pi), and the WTBS optimisation of
 *       that exponent finding (k/6)^2;
 *   (e) bad input: ATOMGPU_ERR_INVALID_ARGUMENT at the argument, its name in the message,
 *       outputs untouched; a non-converged SCF: ATOMGPU_ERR_NOT_CONVERGED, last cycle written;
 *   (f) atomgpu_scf_run_orbitals: He in one normalised Gaussian has the orbital c = +-1 and the
 *       density D = 2 exactly; Ne (s 10, p 6 functions): tr(D_s S_s) = 4 and 6 electrons with S
 *       from atomgpu_scf_one_electron, each orbital S-normalised; too short an array refused at
 *       its length argument, nothing written;
 *   (g) the Fermi nucleus (atomgpu_scf_fermi_nucleus, nucleus_model ATOMGPU_SCF_NUCLEUS_FERMI):
 *       Xe's c and a and one attraction element against mpmath (tests/reference/
 *       fermi_nucleus_mpmath.py), r_rms from A or given alike; inconsistent fields refused at
 *       `params` naming the field.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_scf.c -o test_scf \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-12345.0)

static atomgpu_scf_params params(int32_t method, double z) {
    atomgpu_scf_params p;
    atomgpu_scf_default_params(&p);
    p.method = method;
    p.nuclear_charge = z;
    p.threshold_large = 1e-10;
    p.threshold_small = 1e-10;
    p.max_iterations = 200;
    return p;
}

/* One check: `status` refuses `params` (position 1), the message naming the field `field`, and
 * `untouched` holds. */
static void expect_field(const char *what, int32_t status, const char *field, int untouched) {
    char message[1024];
    int64_t length;
    int ok = invalid_argument_reported(what, status, 1, "params", field, message, sizeof message, &length);
    checks++;
    if (!untouched) {
        printf("FAIL %s: an output was written on error\n", what);
        ok = 0;
    }
    if (!ok) failures++;
}

static void test_wtbs(void) {
    const double wtbspara[4] = {0.05, 2.1, 3.0, 0.4}; /* alpha, beta, delta, gamma */
    const int64_t nbs[2] = {5, 2}, start[2] = {1, 4}, groups[2] = {1, 1};
    double out[7], pool[5];
    if (!check_ok("wtbs_exponents", atomgpu_scf_wtbs_exponents(1, wtbspara, 2, nbs, start, groups, 7, out))) return;
    pool[0] = 0.05;
    for (int k = 2; k <= 5; k++) pool[k - 1] = pool[k - 2] * 2.1 * (1.0 + 0.4 * pow(k / 5.0, 3.0));
    for (int k = 0; k < 5; k++) check_rel("wtbs: symmetry 1", out[k], pool[k], 1e-15);
    check_rel("wtbs: symmetry 2 from position 4", out[5], pool[3], 1e-15);
    check_rel("wtbs: symmetry 2 from position 4", out[6], pool[4], 1e-15);
}

static void test_one_electron(void) {
    const double a = 0.7, z = 3.0, xi = 2.5e4;
    atomgpu_scf_params p = params(ATOMGPU_SCF_HARTREE_FOCK, z);
    double s, t, v;
    if (!check_ok("one_electron (point)", atomgpu_scf_one_electron(&p, 0, 1, &a, &s, &t, &v))) return;
    check_rel("one Gaussian: overlap", s, 1.0, 1e-14);
    check_rel("one Gaussian: kinetic 3a/2", t, 1.5 * a, 1e-14);
    check_rel("one Gaussian: -2Z sqrt(2a/pi)", v, -2.0 * z * sqrt(2.0 * a / k_pi), 1e-13);
    p.nucleus_exponent = xi;
    v = SENTINEL;
    expect_field("one_electron: nucleus_exponent without the Gaussian model",
                 atomgpu_scf_one_electron(&p, 0, 1, &a, &s, &t, &v), "nucleus_exponent", v == SENTINEL);
    p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
    if (!check_ok("one_electron (Gaussian)", atomgpu_scf_one_electron(&p, 0, 1, &a, &s, &t, &v))) return;
    check_rel("Gaussian nucleus", v, -2.0 * z * sqrt(2.0 * a * xi / (k_pi * (2.0 * a + xi))), 1e-13);
}

/* (g) The Fermi nucleus of Xe (A = 132) with GRASP's defaults, against mpmath
 * (tests/reference/fermi_nucleus_mpmath.py: c from <r^2> of the distribution by quadrature,
 * matrix elements by quadrature of the Gaussians times the potential). */
static void test_fermi(void) {
    double c = SENTINEL, a = SENTINEL;
    if (check_ok("fermi_nucleus (Xe)", atomgpu_scf_fermi_nucleus(132.0, 0.0, 2.30, &c, &a))) {
        check_rel("Xe: c = 5.70250343443030 fm", c, 5.7025034344302989854, 1e-14);
        check_rel("Xe: a = 2.30/(4 ln 3) fm", a, 0.52338755531043150133, 1e-15);
    }
    const double rms = 0.836 * cbrt(132.0) + 0.570;
    double c_given = SENTINEL;
    if (check_ok("fermi_nucleus (given r_rms)", atomgpu_scf_fermi_nucleus(0.0, rms, 2.30, &c_given, &a)))
        check_rel("a given r_rms: the same c", c_given, c, 1e-15);
    c = SENTINEL;
    expect_invalid("fermi_nucleus: r_rms below the c -> 0 limit 1.8827 fm",
                   atomgpu_scf_fermi_nucleus(0.0, 1.5, 2.30, &c, &a), 2, "rms_radius", c == SENTINEL);
    expect_invalid("fermi_nucleus: A = 3 (r_rms 1.776 fm)", atomgpu_scf_fermi_nucleus(3.0, 0.0, 2.30, &c, &a), 1,
                   "mass_number", c == SENTINEL);
    expect_invalid("fermi_nucleus: skin 0", atomgpu_scf_fermi_nucleus(132.0, 0.0, 0.0, &c, &a), 3, "skin_thickness",
                   c == SENTINEL);
    /* V_ab of s Gaussians 1e9 and 2e9 bohr^-2, Z = 54. */
    atomgpu_scf_params p = params(ATOMGPU_SCF_HARTREE_FOCK, 54.0);
    p.nucleus_model = ATOMGPU_SCF_NUCLEUS_FERMI;
    p.nucleus_mass_number = 132.0;
    const double exponents[2] = {1e9, 2e9};
    double s[4], t[4], v[4];
    if (check_ok("one_electron (Fermi)", atomgpu_scf_one_electron(&p, 0, 2, exponents, s, t, v)))
        check_rel("Fermi nucleus: V_12 (mpmath -643777.90971509890)", v[2], -643777.9097150988953708, 1e-13);
    p.nucleus_mass_number = 0.0;
    p.nucleus_rms_radius = rms;
    if (check_ok("one_electron (Fermi, given r_rms)", atomgpu_scf_one_electron(&p, 0, 2, exponents, s, t, v)))
        check_rel("Fermi nucleus, given r_rms: V_12", v[2], -643777.9097150988953708, 1e-13);
    p.nucleus_rms_radius = 1.0;
    v[0] = SENTINEL;
    expect_field("one_electron: a Fermi r_rms of 1 fm", atomgpu_scf_one_electron(&p, 0, 2, exponents, s, t, v),
                 "nucleus_rms_radius", v[0] == SENTINEL);
    p.nucleus_model = 7;
    expect_field("one_electron: nucleus_model 7", atomgpu_scf_one_electron(&p, 0, 2, exponents, s, t, v),
                 "nucleus_model", v[0] == SENTINEL);
}

static void test_integrals(void) {
    const double a = 1.3, two = 2.0;
    const int32_t angular[1] = {0};
    const int64_t n_functions[1] = {1};
    atomgpu_scf_params p = params(ATOMGPU_SCF_HARTREE_FOCK, 2.0);
    atomgpu_scf_integrals *h = NULL;
    int64_t pairs = -1, sets = -1;
    double packed, g;
    if (!check_ok("integrals_create", atomgpu_scf_integrals_create(&p, 1, angular, n_functions, &a, &h))) return;
    if (check_ok("integrals_sizes", atomgpu_scf_integrals_sizes(h, &pairs, &sets)))
        check("one function: 1 pair, 1 set", pairs == 1 && sets == 1);
    if (check_ok("integrals_supermatrix", atomgpu_scf_integrals_supermatrix(h, 1, &packed)))
        check_rel("G_11 = R^0 / 2", packed, sqrt(a / k_pi), 1e-14);
    if (check_ok("integrals_two_electron", atomgpu_scf_integrals_two_electron(h, 1, &two, &g)))
        check_rel("G(D = 2) = R^0", g, 2.0 * sqrt(a / k_pi), 1e-14);
    check_ok("integrals_destroy", atomgpu_scf_integrals_destroy(h));
    g = SENTINEL;
    expect_invalid("two_electron: a destroyed handle", atomgpu_scf_integrals_two_electron(h, 1, &two, &g), 1, "handle",
               g == SENTINEL);
}

static void test_runs(void) {
    const int32_t s_symmetry[1] = {0};
    const int64_t one[1] = {1}, none[1] = {0};
    const double open_one[1] = {1.0}, open_none[1] = {0.0};
    double e[4], eps[1], a;
    int64_t iterations;
    atomgpu_scf_params p = params(ATOMGPU_SCF_HARTREE_FOCK, 1.0);
    a = 8.0 / (9.0 * k_pi);
    if (check_ok("run (H)", atomgpu_scf_run(&p, 1, s_symmetry, one, &a, none, open_one, e, 1, eps, &iterations)))
        check_rel("H in one Gaussian: -4/(3 pi)", e[0], -4.0 / (3.0 * k_pi), 1e-14);
    const double k = (8.0 * sqrt(2.0) - 2.0) / sqrt(k_pi);
    p = params(ATOMGPU_SCF_HARTREE_FOCK, 2.0);
    a = (k / 6.0) * (k / 6.0);
    if (check_ok("run (He)", atomgpu_scf_run(&p, 1, s_symmetry, one, &a, one, open_none, e, 1, eps, &iterations)))
        check_rel("He in one Gaussian: -k^2/12", e[0], -k * k / 12.0, 1e-14);
    /* The WTBS optimisation of that exponent. */
    const double wtbspara[4] = {0.4, 2.0, 1.0, 0.5};
    double optimised[4], exponent;
    int64_t evaluations;
    int32_t converged;
    const atomgpu_scf_wtbs_settings settings = {1, wtbspara, one, one, one, 0.2, 1e-7, 200};
    int32_t s = atomgpu_scf_optimise_wtbs(&p, 1, s_symmetry, one, open_none, &settings, optimised, 1, &exponent, e,
                                          &evaluations, &converged);
    if (check_ok("optimise_wtbs (He)", s)) {
        check("optimise: converged", converged == 1);
        check_rel("optimise: alpha = (k/6)^2", exponent, a, 1e-5);
        check_rel("optimise: E = -k^2/12", e[0], -k * k / 12.0, 1e-12);
    }
    /* A field of the settings is refused at `settings` (position 6), the message naming it. */
    atomgpu_scf_wtbs_settings backwards = settings;
    backwards.rho_end = 0.3;
    optimised[0] = SENTINEL;
    expect_invalid("optimise: rho_end above rho_begin",
                   atomgpu_scf_optimise_wtbs(&p, 1, s_symmetry, one, open_none, &backwards, optimised, 1, &exponent, e,
                                             &evaluations, &converged),
                   6, "rho_end", optimised[0] == SENTINEL);
    /* Bad input and non-convergence. */
    const double pair[2] = {1.0, -2.0};
    const int64_t two[1] = {2}, three[1] = {3};
    e[0] = SENTINEL;
    expect_invalid("run: a negative exponent",
               atomgpu_scf_run(&p, 1, s_symmetry, two, pair, one, open_none, e, 1, eps, &iterations), 5, "exponents",
               e[0] == SENTINEL);
    const double fine[2] = {1.0, 2.0};
    expect_invalid("run: three orbitals in two functions",
               atomgpu_scf_run(&p, 1, s_symmetry, two, fine, three, open_none, e, 3, eps, &iterations), 6, "closed",
               e[0] == SENTINEL);
    expect_invalid("run: n_orbitals wrong",
               atomgpu_scf_run(&p, 1, s_symmetry, two, fine, one, open_none, e, 2, eps, &iterations), 9, "n_orbitals",
               e[0] == SENTINEL);
    p.damping = 1.0;
    expect_invalid("run: damping 1", atomgpu_scf_run(&p, 1, s_symmetry, two, fine, one, open_none, e, 1, eps, &iterations),
               1, "params", e[0] == SENTINEL);
    p = params(ATOMGPU_SCF_HARTREE_FOCK, 10.0);
    p.max_iterations = 2;
    const int32_t sp[2] = {0, 1};
    const int64_t counts[2] = {10, 6}, closed[2] = {2, 1};
    const double opens[2] = {0.0, 0.0};
    double ne[16], eps3[3];
    for (int i = 0; i < 10; i++) ne[i] = 0.1 * pow(2.5, i);
    for (int i = 0; i < 6; i++) ne[10 + i] = 0.2 * pow(2.5, i);
    iterations = -1;
    s = atomgpu_scf_run(&p, 2, sp, counts, ne, closed, opens, e, 3, eps3, &iterations);
    check("not converged: ATOMGPU_ERR_NOT_CONVERGED", s == ATOMGPU_ERR_NOT_CONVERGED);
    check("not converged: the last cycle written", iterations == 2 && e[0] < -100.0 && e[0] > -140.0);
}

static void test_orbitals(void) {
    const int32_t s_symmetry[1] = {0};
    const int64_t one[1] = {1};
    const double open_none[1] = {0.0};
    const double k = (8.0 * sqrt(2.0) - 2.0) / sqrt(k_pi), a = (k / 6.0) * (k / 6.0);
    atomgpu_scf_params p = params(ATOMGPU_SCF_HARTREE_FOCK, 2.0);
    double e[4], eps[1], c[1], d[1], convergence[2];
    int64_t iterations;
    if (check_ok("run_orbitals (He)", atomgpu_scf_run_orbitals(&p, 1, s_symmetry, one, &a, one, open_none, e, 1, eps,
                                                               &iterations, c, 1, d, 1, convergence))) {
        check_rel("He in one Gaussian: |c| = 1", fabs(c[0]), 1.0, 1e-14);
        check_rel("He in one Gaussian: D = 2", d[0], 2.0, 1e-14);
        check("He: the last energy change is finite", isfinite(convergence[0]) && fabs(convergence[0]) < 1e-10);
    }
    /* Ne: s (10) and p (6) functions. */
    const int32_t sp[2] = {0, 1};
    const int64_t counts[2] = {10, 6}, closed[2] = {2, 1};
    const double opens[2] = {0.0, 0.0};
    double ne[16], eps3[3], coefficients[26], densities[136];
    for (int i = 0; i < 10; i++) ne[i] = 0.1 * pow(2.5, i);
    for (int i = 0; i < 6; i++) ne[10 + i] = 0.2 * pow(2.5, i);
    p = params(ATOMGPU_SCF_HARTREE_FOCK, 10.0);
    if (check_ok("run_orbitals (Ne)", atomgpu_scf_run_orbitals(&p, 2, sp, counts, ne, closed, opens, e, 3, eps3,
                                                               &iterations, coefficients, 26, densities, 136,
                                                               convergence))) {
        const int64_t offsets_c[2] = {0, 20}, offsets_d[2] = {0, 100};
        const double electrons[2] = {4.0, 6.0};
        for (int sym = 0; sym < 2; sym++) {
            int m = (int)counts[sym];
            double overlap[100], t[100], v[100];
            if (!check_ok("one_electron (Ne)", atomgpu_scf_one_electron(&p, sp[sym], m, ne + (sym ? 10 : 0), overlap,
                                                                         t, v)))
                return;
            double trace = 0.0, norm = 0.0;
            const double *ds = densities + offsets_d[sym], *cs = coefficients + offsets_c[sym];
            for (int q = 0; q < m; q++)
                for (int r = 0; r < m; r++) {
                    trace += ds[r + m * q] * overlap[r + m * q];
                    norm += cs[r] * overlap[r + m * q] * cs[q];
                }
            check_rel("Ne: tr(D S) counts the symmetry's electrons", trace, electrons[sym], 1e-10);
            check_rel("Ne: the first orbital is S-normalised", norm, 1.0, 1e-10);
        }
    }
    coefficients[0] = SENTINEL;
    expect_invalid("run_orbitals: coefficients too short",
                   atomgpu_scf_run_orbitals(&p, 2, sp, counts, ne, closed, opens, e, 3, eps3, &iterations,
                                            coefficients, 25, densities, 136, convergence),
                   13, "len_coefficients", coefficients[0] == SENTINEL);
}

int main(void) {
    test_wtbs();
    test_one_electron();
    test_fermi();
    test_integrals();
    test_runs();
    test_orbitals();
    printf("test_scf: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
