/*
 * test_rates.c: calls every C entry point of src/ffi/common.rs and src/ffi/rates.rs and checks
 * the numbers against independent references computed here from physical constants (CODATA
 * 2018): closed forms of the Maxwell-Boltzmann limits, the Sommerfeld expansion of a degenerate
 * Fermi gas, and detailed balance. Nothing here calls the library to make its own reference.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_rates.c -o test_rates \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* CODATA 2018, in eV, cm, s (k_pi, k_hc and k_mec2 are in check.h). */
static const double k_c = 2.99792458e10;          /* c [cm/s] */
static const double k_a0 = 5.29177210903e-9;      /* Bohr radius [cm] */
static const double k_ry = 13.605693122994;       /* Rydberg [eV] */
static const double k_alpha = 7.2973525693e-3;    /* fine-structure constant */
static const double k_euler_gamma = 0.57721566490153286061;

/* Thermal de Broglie wavelength lambda = h / sqrt(2 pi m_e k T) [cm], T in eV. */
static double thermal_wavelength(double te) { return k_hc / sqrt(2.0 * k_pi * k_mec2 * te); }

/* Maxwell-Boltzmann chemical potential mu = T ln(n_e lambda^3 / 2) [eV]. */
static double mu_maxwell_boltzmann(double te, double ne) {
    double l = thermal_wavelength(te);
    return te * log(ne * l * l * l / 2.0);
}

/* Fermi energy E_F = (hc)^2 / (2 m_e c^2) (3 n_e / 8 pi)^{2/3} [eV]. */
static double fermi_energy(double ne) { return k_hc * k_hc / (2.0 * k_mec2) * pow(3.0 * ne / (8.0 * k_pi), 2.0 / 3.0); }

/* G sqrt(2/m_e): free-electron density of states 4 pi (2 m_e/h^2)^{3/2} times the speed per
 * sqrt(energy) c sqrt(2/m_e c^2) [eV^-2 cm^-1 s^-1]. */
static double g_times_speed(void) {
    double g = 4.0 * k_pi * pow(2.0 * k_mec2 / (k_hc * k_hc), 1.5);
    return g * k_c * sqrt(2.0 / k_mec2);
}

/* Exponential integral E1(x), x > 0: power series for x <= 1, continued fraction (modified
 * Lentz) otherwise (Numerical Recipes 6.3); about 1e-15 relative. */
static double expint_e1(double x) {
    if (x <= 1.0) {
        double sum = 0.0, term = 1.0;
        for (int k = 1; k < 100; k++) {
            term *= -x / k;
            double add = term / k;
            sum += add;
            if (fabs(add) < 1e-18 * fabs(sum)) break;
        }
        return -k_euler_gamma - log(x) - sum;
    } else {
        double b = x + 1.0, c = 1.0 / 1e-300, d = 1.0 / b, h = d;
        for (int i = 1; i < 1000; i++) {
            double an = -(double)i * i;
            b += 2.0;
            d = 1.0 / (an * d + b);
            c = b + an / c;
            double del = c * d;
            h *= del;
            if (fabs(del - 1.0) < 1e-16) break;
        }
        return h * exp(-x);
    }
}

/* Dilogarithm Li2(z) for 0 <= z < 1 by its power series (converges fast for z <~ 0.9). */
static double dilog(double z) {
    double sum = 0.0, zk = 1.0;
    for (int k = 1; k < 100000; k++) {
        zk *= z;
        double add = zk / ((double)k * k);
        sum += add;
        if (add < 1e-18 * sum) break;
    }
    return sum;
}

/* ------------------------------------------------------------------------------------------ */

static void test_common(void) {
    int32_t major = -1, minor = -1, patch = -1;
    check_ok("atomgpu_version", atomgpu_version(&major, &minor, &patch));
    check("version matches ATOMGPU_VERSION_* macros",
          major == ATOMGPU_VERSION_MAJOR && minor == ATOMGPU_VERSION_MINOR && patch == ATOMGPU_VERSION_PATCH);
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", (int)major, (int)minor, (int)patch);
    const char *version = atomgpu_version_string();
    check("atomgpu_version_string is major.minor.patch", version != NULL && strcmp(version, expected) == 0);
    check("atomgpu_abi_version == ATOMGPU_ABI_VERSION", atomgpu_abi_version() == ATOMGPU_ABI_VERSION);

    int32_t codes[] = {ATOMGPU_OK, ATOMGPU_ERR_INVALID_ARGUMENT, ATOMGPU_ERR_NO_DEVICE,
                       ATOMGPU_ERR_DEVICE_OUT_OF_MEMORY, ATOMGPU_ERR_CUDA, ATOMGPU_ERR_NOT_CONVERGED,
                       ATOMGPU_ERR_INTERNAL, -1, 99};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = atomgpu_status_string(codes[i]);
        check("atomgpu_status_string is non-NULL and non-empty", s != NULL && s[0] != '\0');
    }
    check("distinct descriptions for OK and invalid argument",
          strcmp(atomgpu_status_string(ATOMGPU_OK), atomgpu_status_string(ATOMGPU_ERR_INVALID_ARGUMENT)) != 0);

    /* Re-assert the backend the environment asks for (so the test runs where it is told to). */
    const char *env = getenv("ATOMGPU_BACKEND");
    int32_t choice = ATOMGPU_BACKEND_AUTO;
    if (env != NULL && strcmp(env, "cpu") == 0) choice = ATOMGPU_BACKEND_CPU;
    if (env != NULL && (strcmp(env, "cuda") == 0 || strcmp(env, "gpu") == 0)) choice = ATOMGPU_BACKEND_CUDA;
    check_ok("atomgpu_set_backend", atomgpu_set_backend(choice));
    check("atomgpu_set_backend(7) is an invalid argument at position 1",
          atomgpu_set_backend(7) == ATOMGPU_ERR_INVALID_ARGUMENT && atomgpu_last_error_arg() == 1);
    check_ok("atomgpu_set_backend (again)", atomgpu_set_backend(choice));
    check("last error cleared by a successful call",
          atomgpu_last_error_message(NULL, 0) == 0 && atomgpu_last_error_arg() == 0);

    int32_t backend = -1, cc_major = -1, cc_minor = -1;
    int64_t total = -1, free_bytes = -1;
    char name[256];
    name[0] = '\0';
    check_ok("atomgpu_device_info",
             atomgpu_device_info(&backend, name, (int64_t)sizeof name, &total, &free_bytes, &cc_major, &cc_minor));
    check("device_info backend is CPU or CUDA", backend == ATOMGPU_BACKEND_CPU || backend == ATOMGPU_BACKEND_CUDA);
    check("device_info name is non-empty", strlen(name) > 0);
    check("device_info memory is consistent", total >= 0 && free_bytes >= 0 && free_bytes <= total);
    if (backend == ATOMGPU_BACKEND_CUDA) check("CUDA compute capability >= 1", cc_major >= 1);
    printf("backend: %s (%s), %lld bytes, cc %d.%d\n", backend == ATOMGPU_BACKEND_CUDA ? "cuda" : "cpu", name,
           (long long)total, (int)cc_major, (int)cc_minor);
}

/* ------------------------------------------------------------------------------------------ */

static void test_electron_gas(void) {
    enum { NS = 3 };
    const double te[NS] = {0.5, 10.0, 30.0};
    const double ne[NS] = {1e18, 1e21, 1e22};
    double mu[NS], u[NS], te_back[NS], mu_back[NS];

    /* (a) Maxwell-Boltzmann chemical potential, closed form. */
    check_ok("chemical_potential MB", atomgpu_rates_chemical_potential(ATOMGPU_STATS_MAXWELL_BOLTZMANN, NS, te, ne, mu));
    for (int s = 0; s < NS; s++) check_rel("MB mu = T ln(ne lambda^3/2)", mu[s], mu_maxwell_boltzmann(te[s], ne[s]), 1e-13);

    /* (c) Maxwell-Boltzmann energy density 3/2 ne T and its inversion. */
    check_ok("energy_density MB", atomgpu_rates_energy_density(ATOMGPU_STATS_MAXWELL_BOLTZMANN, NS, te, ne, u));
    for (int s = 0; s < NS; s++) check_rel("MB u = 3/2 ne T", u[s], 1.5 * ne[s] * te[s], 1e-14);
    check_ok("temperature MB", atomgpu_rates_temperature(ATOMGPU_STATS_MAXWELL_BOLTZMANN, NS, u, ne, te_back, mu_back));
    for (int s = 0; s < NS; s++) {
        check_rel("MB temperature round trip", te_back[s], te[s], 1e-14);
        check_rel("MB temperature: mu", mu_back[s], mu_maxwell_boltzmann(te[s], ne[s]), 1e-13);
    }

    /* Fermi-Dirac at low density: eta = ln y + y / 2^{3/2} + O(y^2), y = ne lambda^3 / 2. */
    {
        double t1 = 10.0, n1 = 1e18, mu1;
        check_ok("chemical_potential FD (non-degenerate)", atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, 1, &t1, &n1, &mu1));
        double l = thermal_wavelength(t1), y = n1 * l * l * l / 2.0;
        double want = t1 * (log(y) + y / sqrt(8.0));
        check_rel("FD mu -> T (ln y + y/sqrt 8) at low density", mu1, want, 1e-12);
    }

    /* (b) Fermi-Dirac chemical potential and energy density of a degenerate gas
     * (T = 0.1 eV, ne = 1e24 cm^-3, T/E_F ~ 3e-3): Sommerfeld expansions
     * mu = E_F (1 - (pi^2/12) t^2), u = (3/5) ne E_F (1 + (5 pi^2/12) t^2), t = T/E_F,
     * whose next terms are O(t^4) ~ 1e-10. */
    {
        double t1 = 0.1, n1 = 1e24, mu1, u1, t_back, mu_back1;
        double ef = fermi_energy(n1), t = t1 / ef;
        check_ok("chemical_potential FD (degenerate)", atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, 1, &t1, &n1, &mu1));
        check_rel("FD mu ~ E_F", mu1, ef, 1e-3);
        check_rel("FD mu = E_F (1 - pi^2/12 (T/E_F)^2)", mu1, ef * (1.0 - k_pi * k_pi / 12.0 * t * t), 1e-6);
        check_rel("FD mu, Sommerfeld, tight", mu1, ef * (1.0 - k_pi * k_pi / 12.0 * t * t), 1e-9);
        check_ok("energy_density FD (degenerate)", atomgpu_rates_energy_density(ATOMGPU_STATS_FERMI_DIRAC, 1, &t1, &n1, &u1));
        check_rel("FD u = 3/5 ne E_F (1 + 5 pi^2/12 (T/E_F)^2)", u1, 0.6 * n1 * ef * (1.0 + 5.0 * k_pi * k_pi / 12.0 * t * t), 1e-9);
        check_ok("temperature FD (degenerate)", atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, 1, &u1, &n1, &t_back, &mu_back1));
        /* dT/T = du/(2 (u - u0)) with (u - u0)/u ~ 4e-5: the round trip keeps ~1e-11. */
        check_rel("FD temperature round trip (degenerate)", t_back, t1, 1e-8);
        check_rel("FD temperature: mu (degenerate)", mu_back1, mu1, 1e-12);
    }

    /* Fermi-Dirac round trip over the states. */
    check_ok("energy_density FD", atomgpu_rates_energy_density(ATOMGPU_STATS_FERMI_DIRAC, NS, te, ne, u));
    check_ok("chemical_potential FD", atomgpu_rates_chemical_potential(ATOMGPU_STATS_FERMI_DIRAC, NS, te, ne, mu));
    check_ok("temperature FD", atomgpu_rates_temperature(ATOMGPU_STATS_FERMI_DIRAC, NS, u, ne, te_back, mu_back));
    for (int s = 0; s < NS; s++) {
        check_rel("FD temperature round trip", te_back[s], te[s], 1e-12);
        check_rel("FD temperature round trip: mu", mu_back[s], mu[s], 1e-11);
    }
}

/* ------------------------------------------------------------------------------------------ */

enum { NS = 3, NT = 2 };
static const double TE[NS] = {0.5, 10.0, 30.0};
static const double NE[NS] = {1e18, 1e21, 1e22};
static const double TR[NS] = {5.0, 20.0, 100.0};
/* A non-degenerate state (ne lambda^3 / 2 ~ 5e-6) where Fermi-Dirac rates tend to MB ones. */
static const double TE_LOW = 10.0, NE_LOW = 1e18, TR_LOW = 20.0;

static void test_excitation(void) {
    /* Transition 0: constant Omega = B1 = 0.7; transition 1: a full fit with weights. */
    const double energy[NT] = {3.0, 20.0};
    const double omega[6 * NT] = {0.0, 0.7, 0.0, 0.0, 0.0, 0.0, /* B0..B5 of transition 0 */
                                  0.3, 1.2, -0.4, 0.1, 0.05, 0.01};
    const double gl[NT] = {2.0, 6.0}, gu[NT] = {6.0, 10.0};
    double up[NT * NS], down[NT * NS], mu[NS], up1[NT * NS], down1[NT * NS];
    const double k = g_times_speed() * k_pi * k_a0 * k_a0 * k_ry;
    check_rel("excitation prefactor K ~ 4.836e14 (paper's 4.831e14 with older constants)", k, 4.831e14, 2e-3);

    for (int stats = 0; stats <= 1; stats++) {
        check_ok("excitation", atomgpu_rates_excitation(stats, 10.0, 64, NS, TE, NE, NT, energy, omega, gl, gu, up, down));
        check_ok("chemical_potential", atomgpu_rates_chemical_potential(stats, NS, TE, NE, mu));
        for (int s = 0; s < NS; s++)
            for (int t = 0; t < NT; t++) {
                /* (d) detailed balance, both statistics: down/up = (g_l/g_u) e^{E/T}. */
                double ratio = down[t + NT * s] / up[t + NT * s];
                check_rel("excitation detailed balance", ratio, gl[t] / gu[t] * exp(energy[t] / TE[s]), 1e-12);
                check("excitation rates positive and finite", up[t + NT * s] > 0 && isfinite(down[t + NT * s]));
            }
        if (stats == ATOMGPU_STATS_MAXWELL_BOLTZMANN) {
            /* (e) J_up = K B1 e^{mu/T} T e^{-E/T}, J_down = (g_l/g_u) K B1 e^{mu/T} T. */
            for (int s = 0; s < NS; s++) {
                double want_up = k * 0.7 * exp(mu[s] / TE[s]) * TE[s] * exp(-energy[0] / TE[s]);
                check_rel("MB excitation, constant Omega, closed form", up[0 + NT * s], want_up, 1e-8);
                double want_down = gl[0] / gu[0] * k * 0.7 * exp(mu[s] / TE[s]) * TE[s];
                check_rel("MB de-excitation, constant Omega, closed form", down[0 + NT * s], want_down, 1e-8);
                check_rel("MB mu used by the rates is T ln(ne lambda^3/2)", mu[s], mu_maxwell_boltzmann(TE[s], NE[s]), 1e-13);
            }
            /* The paper's defaults (p = 5, 32 nodes) reach the accuracy Table 1 promises (1e-5). */
            check_ok("excitation p=5, 32 nodes", atomgpu_rates_excitation(stats, 5.0, 32, NS, TE, NE, NT, energy, omega, gl, gu, up1, down1));
            for (int i = 0; i < NT * NS; i++) check_rel("excitation at p = 5, 32 nodes", up1[i], up[i], 1e-5);
        }
    }
    /* NULL weights mean all 1. */
    check_ok("excitation, no weights", atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, NS, TE, NE, NT, energy, omega, NULL, NULL, up1, down1));
    check_ok("excitation FD", atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, NS, TE, NE, NT, energy, omega, gl, gu, up, down));
    for (int i = 0; i < NT * NS; i++) {
        check_rel("excitation up without weights", up1[i], up[i], 1e-15);
        int t = i % NT;
        check_rel("de-excitation without weights = (g_u/g_l) x with", down1[i], down[i] * gu[t] / gl[t], 1e-14);
    }
    /* FD tends to MB at low density. */
    {
        double fd[NT], fd_down[NT], mb[NT], mb_down[NT];
        check_ok("excitation FD 1 state", atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, 1, &TE_LOW, &NE_LOW, NT, energy, omega, gl, gu, fd, fd_down));
        check_ok("excitation MB 1 state", atomgpu_rates_excitation(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, 1, &TE_LOW, &NE_LOW, NT, energy, omega, gl, gu, mb, mb_down));
        for (int t = 0; t < NT; t++) {
            check_rel("FD excitation -> MB at low density", fd[t], mb[t], 1e-4);
            check_rel("FD de-excitation -> MB at low density", fd_down[t], mb_down[t], 1e-4);
        }
    }
}

static void test_ionization(void) {
    /* Transition 0: pure A (sigma = 1e-13 A ln(eps/E) / (E eps)); transition 1: pure B1
     * (sigma = 1e-13 B1 (1 - E/eps) / (E eps)), with weights. In Maxwell-Boltzmann statistics
     * K_up = G sqrt(2/m) e^{mu/T} int_E^inf eps sigma(eps) e^{-eps/T} d eps:
     *   A:  1e-13 A e^{mu/T} (T/E) E1(E/T) x G sqrt(2/m),
     *   B1: 1e-13 B1 e^{mu/T} (1/E) (T e^{-E/T} - E E1(E/T)) x G sqrt(2/m). */
    const double energy[NT] = {12.0, 25.0};
    const double beli[5 * NT] = {2.5, 0.0, 0.0, 0.0, 0.0, /* A, B1..B4 of transition 0 */
                                 0.0, 1.8, 0.0, 0.0, 0.0};
    const double gl[NT] = {1.0, 2.0}, gu[NT] = {2.0, 1.0};
    double up[NT * NS], down[NT * NS], mu[NS];
    const double kion = g_times_speed() * 1e-13;
    check_rel("ionization prefactor ~ 4.036e16 (paper, older constants)", kion, 4.036e16, 2e-3);
    for (int stats = 0; stats <= 1; stats++) {
        check_ok("ionization", atomgpu_rates_ionization(stats, 10.0, 64, NS, TE, NE, NT, energy, beli, gl, gu, up, down));
        check_ok("chemical_potential", atomgpu_rates_chemical_potential(stats, NS, TE, NE, mu));
        for (int s = 0; s < NS; s++)
            for (int t = 0; t < NT; t++) {
                /* Detailed balance (eq. 10), both statistics: K_down/K_up = (g_l/g_u) e^{(E+mu)/T}. */
                double ratio = down[t + NT * s] / up[t + NT * s];
                check_rel("ionization detailed balance", ratio, gl[t] / gu[t] * exp((energy[t] + mu[s]) / TE[s]), 1e-11);
            }
        if (stats == ATOMGPU_STATS_MAXWELL_BOLTZMANN) {
            for (int s = 0; s < NS; s++) {
                double x0 = energy[0] / TE[s], x1 = energy[1] / TE[s], f = exp(mu[s] / TE[s]);
                double want_a = kion * 2.5 * f * (TE[s] / energy[0]) * expint_e1(x0);
                double want_b = kion * 1.8 * f / energy[1] * (TE[s] * exp(-x1) - energy[1] * expint_e1(x1));
                check_rel("MB ionization, BELI A term, closed form", up[0 + NT * s], want_a, 1e-8);
                check_rel("MB ionization, BELI B1 term, closed form", up[1 + NT * s], want_b, 1e-8);
            }
        }
    }
}

static void test_photoionization(void) {
    /* Maxwell-Boltzmann (no blocking) in a black body at T_r, photon flux per unit energy
     * Phi = (8 pi c / (hc)^3) eps^2 / (e^{eps/Tr} - 1), x = E/T_r:
     *  D0 (E/eps)^2:  rate = D0 E^2 PHI T_r (-ln(1 - e^{-x})), heating = D0 E^2 PHI T_r^2 Li2(e^{-x});
     *  D1 (E/eps)^3:  rate = D1 E^3 PHI sum_n E1(n x),
     *                 heating = D1 E^3 PHI (T_r (-ln(1 - e^{-x})) - E sum_n E1(n x)). */
    const double energy[NT] = {30.0, 80.0};
    const double d0[NT] = {4e-18, 0.0}, d1[NT] = {0.0, 2.5e-18};
    double rate[NT * NS], heating[NT * NS], rate_fd[NT * NS], heating_fd[NT * NS];
    const double phi = 8.0 * k_pi * k_c / (k_hc * k_hc * k_hc);
    check_ok("photoionization MB", atomgpu_rates_photoionization(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, NS, TE, NE, TR, NT, energy, d0, d1, rate, heating));
    for (int s = 0; s < NS; s++) {
        double e = energy[0], x = e / TR[s];
        check_rel("MB photoionization D0, closed form", rate[0 + NT * s], d0[0] * e * e * phi * TR[s] * -log1p(-exp(-x)), 1e-8);
        check_rel("MB photoionization heating D0, closed form", heating[0 + NT * s], d0[0] * e * e * phi * TR[s] * TR[s] * dilog(exp(-x)), 1e-8);
        e = energy[1];
        x = e / TR[s];
        double sum = 0.0;
        for (int n = 1; n < 100000; n++) {
            double add = expint_e1(n * x);
            sum += add;
            if (add < 1e-18 * sum) break;
        }
        check_rel("MB photoionization D1, closed form", rate[1 + NT * s], d1[1] * e * e * e * phi * sum, 1e-8);
        double want_h = d1[1] * e * e * e * phi * (TR[s] * -log1p(-exp(-x)) - e * sum);
        check_rel("MB photoionization heating D1, closed form", heating[1 + NT * s], want_h, 1e-8);
    }
    check_ok("photoionization FD", atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, NS, TE, NE, TR, NT, energy, d0, d1, rate_fd, heating_fd));
    for (int i = 0; i < NT * NS; i++) check("FD photoionization is blocked: 0 < FD <= MB", rate_fd[i] > 0 && rate_fd[i] <= rate[i] * (1 + 1e-14));
    {
        double fd[NT], fd_h[NT], mb[NT], mb_h[NT];
        check_ok("photoionization FD 1 state", atomgpu_rates_photoionization(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, 1, &TE_LOW, &NE_LOW, &TR_LOW, NT, energy, d0, d1, fd, fd_h));
        check_ok("photoionization MB 1 state", atomgpu_rates_photoionization(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, 1, &TE_LOW, &NE_LOW, &TR_LOW, NT, energy, d0, d1, mb, mb_h));
        for (int t = 0; t < NT; t++) {
            check_rel("FD photoionization -> MB at low density", fd[t], mb[t], 1e-4);
            check_rel("FD photoionization heating -> MB at low density", fd_h[t], mb_h[t], 1e-4);
        }
    }
}

static void test_inverse_bremsstrahlung(void) {
    /* Maxwell-Boltzmann: heating = int kappa(w) w Phi(w) dw over w > hbar omega_p, with Kramers'
     * free-free absorption (Rybicki & Lightman eq. 5.18a, g_ff = 1, stimulated emission included)
     * kappa = A_FF Z^2 n_e n_i T^{-1/2} w^{-3} (1 - e^{-w/T}),
     * A_FF = (4 e^6 / 3 m h c) sqrt(2 pi / 3 k m) in cgs = (4/3) sqrt(2 pi/3) (alpha hbar c)^3 (hc)^2 / (m c^2)^{3/2},
     * so heating = A_FF z2n ne T^{-1/2} PHI int_{wc}^inf (1 - e^{-w/T}) / (e^{w/Tr} - 1) dw
     *            = A_FF z2n ne T^{-1/2} PHI sum_n [ (Tr/n) e^{-n wc/Tr} - e^{-wc (n/Tr + 1/T)} / (n/Tr + 1/T) ],
     * hbar omega_p = sqrt(4 pi ne alpha (hbar c)^3 / m c^2). */
    const double z2n[NS] = {1e18, 5e21, 2e22};
    double heating[NS], heating_fd[NS];
    const double hbarc = k_hc / (2.0 * k_pi);
    const double e2 = k_alpha * hbarc;
    const double a_ff = 4.0 / 3.0 * sqrt(2.0 * k_pi / 3.0) * e2 * e2 * e2 * k_hc * k_hc / pow(k_mec2, 1.5);
    const double phi = 8.0 * k_pi * k_c / (k_hc * k_hc * k_hc);
    check_ok("inverse_bremsstrahlung MB", atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, NS, TE, NE, TR, z2n, heating));
    for (int s = 0; s < NS; s++) {
        double wc = sqrt(4.0 * k_pi * NE[s] * k_alpha * hbarc * hbarc * hbarc / k_mec2);
        double sum = 0.0;
        for (int n = 1; n < 10000000; n++) {
            double k = n / TR[s] + 1.0 / TE[s];
            double add = TR[s] / n * exp(-n * wc / TR[s]) - exp(-wc * k) / k;
            sum += add;
            if (fabs(add) < 1e-17 * fabs(sum)) break;
        }
        double want = a_ff * z2n[s] * NE[s] / sqrt(TE[s]) * phi * sum;
        check_rel("MB inverse bremsstrahlung, Kramers closed form", heating[s], want, 1e-8);
    }
    check_ok("inverse_bremsstrahlung FD", atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, NS, TE, NE, TR, z2n, heating_fd));
    for (int s = 0; s < NS; s++) check("FD inverse bremsstrahlung positive, <= MB", heating_fd[s] > 0 && heating_fd[s] <= heating[s] * (1 + 1e-12));
    {
        double z = 1e18, fd, mb;
        check_ok("inverse_bremsstrahlung FD 1 state", atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_FERMI_DIRAC, 10.0, 64, 1, &TE_LOW, &NE_LOW, &TR_LOW, &z, &fd));
        check_ok("inverse_bremsstrahlung MB 1 state", atomgpu_rates_inverse_bremsstrahlung(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, 1, &TE_LOW, &NE_LOW, &TR_LOW, &z, &mb));
        check_rel("FD inverse bremsstrahlung -> MB at low density", fd, mb, 1e-4);
    }
}

/* Single precision (atomgpu_rates_set_precision): FP32 integrands with FP64 sums, used on a GPU for
 * the pairs inside its range (the others run in double). Reference: the Maxwell-Boltzmann closed form of a
 * constant collision strength, J_up = K B1 e^{mu/T} T e^{-E/T} (as in test_excitation), and the
 * double path under Fermi-Dirac, both to the documented single-precision bound, 1e-6 relative
 * (src/rates/precision.rs). (On the CPU single precision is ignored.) */
static void test_single_precision(void) {
    const double energy[NT] = {3.0, 20.0};
    const double omega[6 * NT] = {0.0, 0.7, 0.0, 0.0, 0.0, 0.0, 0.3, 1.2, -0.4, 0.1, 0.05, 0.01};
    double up[NT * NS], down[NT * NS], up_d[NT * NS], down_d[NT * NS], mu[NS];
    const double k = g_times_speed() * k_pi * k_a0 * k_a0 * k_ry;
    check("atomgpu_rates_set_precision(2) is an invalid argument at position 1",
          atomgpu_rates_set_precision(2) == ATOMGPU_ERR_INVALID_ARGUMENT && atomgpu_last_error_arg() == 1);
    check_ok("excitation FD, double", atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 32, NS, TE, NE, NT, energy, omega, NULL, NULL, up_d, down_d));
    check_ok("set single precision", atomgpu_rates_set_precision(ATOMGPU_PRECISION_SINGLE));
    check_ok("excitation MB, single", atomgpu_rates_excitation(ATOMGPU_STATS_MAXWELL_BOLTZMANN, 10.0, 64, NS, TE, NE, NT, energy, omega, NULL, NULL, up, down));
    check_ok("chemical_potential MB", atomgpu_rates_chemical_potential(ATOMGPU_STATS_MAXWELL_BOLTZMANN, NS, TE, NE, mu));
    for (int s = 0; s < NS; s++)
        check_rel("single-precision MB excitation, constant Omega, closed form", up[0 + NT * s],
                  k * 0.7 * exp(mu[s] / TE[s]) * TE[s] * exp(-energy[0] / TE[s]), 1e-6);
    check_ok("excitation FD, single", atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 32, NS, TE, NE, NT, energy, omega, NULL, NULL, up, down));
    for (int i = 0; i < NT * NS; i++) {
        check_rel("single-precision FD excitation = double", up[i], up_d[i], 1e-6);
        check_rel("single-precision FD de-excitation = double", down[i], down_d[i], 1e-6);
    }
    check_ok("back to double precision", atomgpu_rates_set_precision(ATOMGPU_PRECISION_DOUBLE));
}

int main(void) {
    test_common();
    test_electron_gas();
    test_excitation();
    test_ionization();
    test_photoionization();
    test_inverse_bremsstrahlung();
    test_single_precision();
    printf("test_rates: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
