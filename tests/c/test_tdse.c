/*
 * test_tdse.c: the C entry points of the TDSE family (src/ffi/tdse.rs) against numbers known
 * independently of the library, on whatever backend is in use:
 *   (a) a free Gaussian ψ0 = (2πσ²)^(-3/4) exp(-r²/(4σ²)), σ = 1 bohr, on a cylindrical grid at
 *       the paper's dx = dρ = 0.2: its survival amplitude has the closed form
 *       ⟨ψ0|ψ(t)⟩/⟨ψ0|ψ0⟩ = (1 + i t/(4σ²))^(-3/2) (the product of three 1D Gaussian overlaps);
 *       after 100 steps of τ = 0.005 (t = 0.5) the computed amplitude (atomgpu_tdse_overlap over
 *       atomgpu_tdse_norm at t = 0, which is 1 + 1.7e-3 on this grid: the midpoint rule in ρ)
 *       matches it to 1.5e-3 (the scheme's O(h²) dispersion), the norm stays within 1e-6 of its
 *       start (the leap-frog's conservation, no absorber), the time and step count are 0.5 and
 *       100, and the energy ⟨H⟩ = 3/(8σ²) = 0.375 hartree within 1e-2;
 *   (b) on the CPU backend, the same run with the planes spread over two members
 *       (params.n_devices = 2: two threads with the in-process halo exchange): the same amplitude
 *       to 1e-13 (tests/tdse_gpu.rs runs the two-GPU team);
 *   (b') the same run stored as complex float (params.storage = ATOMGPU_TDSE_COMPLEX_FLOAT): the
 *       amplitude within 1e-5 of the complex-double run (measured 1e-7; tests/tdse_float.rs);
 *   (c) hydrogen by imaginary time (atomgpu_tdse_relax) at h = 0.3: E within 0.025 below the
 *       exact −1/2 hartree (the grid's error there is −0.0185, tests/tdse_cpu.rs), the norm 1,
 *       and the density on the x plane through the nucleus peaked on the axis ring;
 *   (e) atomgpu_tdse_potential_slice: on the x plane through a Chulkov Cu(111) surface's
 *       reference plane (parameters in eV, as Chulkov, Silkin and Echenique's Table 1 prints
 *       them) with a soft-cored hydrogen ion at R(t) on a trajectory, U equals the closed form
 *       −1/(|r − R(t)|² + rs²)^½ + (A10 + A1)/27.211386245988 at every point (1e-13);
 *   (f) a run stopped by the progress callback at its 3rd report: ATOMGPU_ERR_CANCELLED, the
 *       handle at step 3 (atomgpu_tdse_state), and a further atomgpu_tdse_step(17) gives the
 *       wavefunction of an uninterrupted 20-step run bit for bit; a wavefunction of 1e300 is
 *       refused naming `psi`;
 *   (d) bad input: odd Nθ, a step past the stability limit, NaN in a potential array, a
 *       trajectory shorter than the run, NULLs, a destroyed handle: status, argument position,
 *       name; and an unstable run (check_stability = 0) stopped by the norm watchdog with
 *       ATOMGPU_ERR_NOT_CONVERGED, "norm grew" in the message, the wavefunction gone.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_tdse.c -o test_tdse \
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

static atomgpu_tdse_grid cylinder(int64_t nx, int64_t n_rho, int64_t n_theta, double h) {
    atomgpu_tdse_grid g = {ATOMGPU_TDSE_CYLINDRICAL, nx, n_rho, n_theta, h, h, 0.0, -(double)(nx - 1) * h / 2.0,
                           0.0, 0.0, 0, nx};
    return g;
}

/* The Gaussian of (a) on the grid's points (eq. 17 order), interleaved (re, im). */
static double *gaussian(const atomgpu_tdse_grid *g, double sigma) {
    int64_t n = g->nx * g->n2 * g->n3;
    double *psi = malloc(2 * (size_t)n * sizeof *psi);
    double a = pow(2.0 * k_pi * sigma * sigma, -0.75);
    for (int64_t k = 0; k < g->nx; k++)
        for (int64_t l = 0; l < g->n2; l++)
            for (int64_t m = 0; m < g->n3; m++) {
                double x = g->x0 + k * g->dx, rho = (l + 0.5) * g->d2;
                int64_t i = (k * g->n2 + l) * g->n3 + m;
                psi[2 * i] = a * exp(-(x * x + rho * rho) / (4.0 * sigma * sigma));
                psi[2 * i + 1] = 0.0;
            }
    return psi;
}

/* Runs (a) with `n_devices` members and `storage`; returns the amplitude (NAN on failure). */
static double complex free_gaussian(int32_t n_devices, int32_t storage, int verbose) {
    atomgpu_tdse_grid g = cylinder(60, 30, 8, 0.2);
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.n_devices = n_devices;
    p.storage = storage;
    atomgpu_tdse *h = NULL;
    if (!check_ok("create (free Gaussian)", atomgpu_tdse_create(&g, &p, &h))) return NAN;
    int64_t n = g.nx * g.n2 * g.n3;
    double *psi = gaussian(&g, 1.0), s[2] = {NAN, NAN}, norm0 = NAN, norm = NAN, energy = NAN, t = NAN, rho0 = NAN;
    int64_t steps = -1, rings = -1;
    int ok = check_ok("set_reference", atomgpu_tdse_set_reference(h, psi, n)) &&
             check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(h, psi, n, 0.0)) &&
             check_ok("energy at t = 0", atomgpu_tdse_energy(h, &energy)) &&
             check_ok("norm at t = 0", atomgpu_tdse_norm(h, &norm0)) &&
             check_ok("step", atomgpu_tdse_step(h, 100)) && check_ok("overlap", atomgpu_tdse_overlap(h, s)) &&
             check_ok("norm", atomgpu_tdse_norm(h, &norm)) &&
             check_ok("state", atomgpu_tdse_state(h, &t, &steps, &rho0, &rings));
    double complex amplitude = ok ? (s[0] + I * s[1]) / norm0 : NAN;
    if (ok && verbose) {
        double complex exact = cpow(1.0 + I * 0.5 / 4.0, -1.5);
        printf("free Gaussian: <psi0|psi(0.5)>/<psi0|psi0> = %.6f%+.6fi (closed form %.6f%+.6fi), norm %.10f -> "
               "%.10f, <H> = %.5f, rho0 = %.2f (%lld implicit rings)\n",
               creal(amplitude), cimag(amplitude), creal(exact), cimag(exact), norm0, norm, energy, rho0,
               (long long)rings);
        check("survival amplitude within 1.5e-3 of (1 + i t/4)^(-3/2)", cabs(amplitude - exact) < 1.5e-3);
        check("norm conserved to 1e-6", fabs(norm - norm0) < 1e-6 * norm0);
        check("<H> = 3/(8 sigma^2) within 1e-2", fabs(energy - 0.375) < 1e-2);
        check("time 0.5 after 100 steps", fabs(t - 0.5) < 1e-12 && steps == 100);
        check("the paper's rho0 = 1 bohr: 5 implicit rings at d_rho = 0.2", rho0 == 1.0 && rings == 5);
    }
    free(psi);
    atomgpu_tdse_destroy(h);
    return amplitude;
}

static void hydrogen(void) {
    const double hh = 0.3;
    atomgpu_tdse_grid g = cylinder(60, 30, 8, hh);
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.dtau = 0.01 * (hh / 0.2) * (hh / 0.2);
    atomgpu_tdse *h = NULL;
    if (!check_ok("create (hydrogen)", atomgpu_tdse_create(&g, &p, &h))) return;
    atomgpu_tdse_ion ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0};
    const double t0[1] = {0.0}, r0[3] = {0.0, 0.0, 0.0};
    int64_t n = g.nx * g.n2 * g.n3;
    double *psi = gaussian(&g, 1.0), energy = NAN, norm = NAN;
    int64_t steps = 0;
    int32_t converged = 0;
    double *plane = malloc((size_t)(g.n2 * g.n3) * sizeof *plane);
    if (check_ok("set_potential (hydrogen)", atomgpu_tdse_set_potential(h, &ion, NULL, NULL, 1, t0, r0)) &&
        check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(h, psi, n, 0.0)) &&
        check_ok("relax", atomgpu_tdse_relax(h, 40000, 1e-9, &energy, &steps, &converged)) &&
        check_ok("norm after relax", atomgpu_tdse_norm(h, &norm)) &&
        check_ok("density slice", atomgpu_tdse_density_slice(h, ATOMGPU_TDSE_SLICE_X, 30, plane, g.n2 * g.n3))) {
        printf("hydrogen 1s at h = %.1f: E = %.8f hartree after %lld steps (exact -0.5)\n", hh, energy,
               (long long)steps);
        check("relaxation converged", converged == 1);
        check("E within 0.025 below -1/2", energy < -0.5 && energy > -0.525);
        check("normalised", fabs(norm - 1.0) < 1e-12);
        /* Plane 30 is x = +0.15 bohr, nearest the nucleus: the first ring is densest. */
        check("density largest on the first ring", plane[0] > plane[g.n3] && plane[g.n3] > plane[5 * g.n3]);
        check("density isotropic in theta", fabs(plane[0] - plane[3]) < 1e-12 * plane[0]);
    }
    free(psi), free(plane);
    atomgpu_tdse_destroy(h);
}

static void bad_input(void) {
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    atomgpu_tdse *h = NULL;
    atomgpu_tdse_grid g = cylinder(20, 10, 7, 0.2);
    expect_invalid("odd N_theta", atomgpu_tdse_create(&g, &p, &h), 1, "grid", h == NULL);
    g = cylinder(20, 10, 8, 0.2);
    p.dtau = 0.5;
    expect_invalid("tau past the stability limit", atomgpu_tdse_create(&g, &p, &h), 2, "params", h == NULL);
    atomgpu_tdse_default_params(&p);
    expect_invalid("NULL handle output", atomgpu_tdse_create(&g, &p, NULL), 3, "handle", 1);
    if (!check_ok("create", atomgpu_tdse_create(&g, &p, &h))) return;
    int64_t n = g.nx * g.n2 * g.n3;
    double *u = calloc((size_t)n, sizeof *u);
    u[17] = NAN;
    expect_invalid("NaN in the potential array", atomgpu_tdse_set_potential_array(h, u, n), 2, "values", 1);
    expect_invalid("wrong n_points", atomgpu_tdse_set_potential_array(h, u, n - 1), 3, "n_points", 1);
    double norm = -1.0;
    expect_invalid("norm without a wavefunction", atomgpu_tdse_norm(h, &norm), 1, "handle", norm == -1.0);

    atomgpu_tdse_ion ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0};
    const double times[2] = {0.0, 0.1}, path[6] = {0, 0, 0, 1, 0, 0};
    double *psi = gaussian(&g, 0.6);
    check_ok("set_potential", atomgpu_tdse_set_potential(h, &ion, NULL, NULL, 2, times, path));
    check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(h, psi, n, 0.0));
    expect_invalid("a trajectory shorter than the run", atomgpu_tdse_step(h, 100), 2, "n_steps", 1);
    check_ok("the wavefunction is kept after a refused run", atomgpu_tdse_norm(h, &norm));
    const double backwards[2] = {0.0, -1.0};
    expect_invalid("times not increasing", atomgpu_tdse_set_potential(h, &ion, NULL, NULL, 2, backwards, path), 6,
                   "times", 1);
    atomgpu_tdse_surface jellium = {ATOMGPU_TDSE_SURFACE_JELLIUM, -1.0, 0.4, 2.0, -0.5, 0, 0, 0, 0, 0};
    expect_invalid("jellium lambda >= 4 U0", atomgpu_tdse_set_potential(h, NULL, &jellium, NULL, 0, NULL, NULL), 3,
                   "surface", 1);
    double slice[4];
    expect_invalid("slice size", atomgpu_tdse_density_slice(h, ATOMGPU_TDSE_SLICE_X, 3, slice, 4), 5, "n_values", 1);
    expect_invalid("slice axis", atomgpu_tdse_density_slice(h, 7, 3, slice, 4), 2, "axis", 1);
    expect_invalid("no communicator callbacks", atomgpu_tdse_set_communicator(h, NULL, NULL, NULL), 2, "exchange", 1);
    check_ok("destroy", atomgpu_tdse_destroy(h));
    expect_invalid("use after destroy", atomgpu_tdse_step(h, 1), 1, "handle", 1);
    expect_invalid("double destroy", atomgpu_tdse_destroy(h), 1, "handle", 1);

    /* An unstable run let through: the watchdog stops it and says so. */
    p.dtau = 0.05;
    p.check_stability = 0;
    p.norm_check_interval = 10;
    if (!check_ok("create (unstable)", atomgpu_tdse_create(&g, &p, &h))) return;
    check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(h, psi, n, 0.0));
    int32_t s = atomgpu_tdse_step(h, 2000);
    char message[1024];
    atomgpu_last_error_message(message, sizeof message);
    check("the watchdog stops the unstable run: NOT_CONVERGED, \"norm grew\"",
          s == ATOMGPU_ERR_NOT_CONVERGED && strstr(message, "norm grew") != NULL);
    expect_invalid("no wavefunction after the failed run", atomgpu_tdse_norm(h, &norm), 1, "handle", 1);
    atomgpu_tdse_destroy(h);
    free(u), free(psi);
}

static void potential_read_back(void) {
    atomgpu_tdse_grid g = cylinder(21, 6, 8, 0.25);
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    atomgpu_tdse *h = NULL;
    if (!check_ok("create (potential)", atomgpu_tdse_create(&g, &p, &h))) return;
    /* Plane k = 14 is x = x0 + 14 dx = 1.0: the surface's reference plane. */
    const double x14 = g.x0 + 14 * g.dx, rs = 0.3;
    const atomgpu_tdse_surface cu111 = {ATOMGPU_TDSE_SURFACE_CHULKOV, x14, 0, 0, 0, 3.94, -11.895, 5.14, 4.3279, 2.9416};
    const atomgpu_tdse_ion ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, rs};
    const double times[2] = {0.0, 10.0}, path[6] = {0.0, 0.2, -0.1, 2.0, 0.2, 0.3};
    const double t = 2.5, rx = 0.5, ry = 0.2, rz = 0.0; /* R(2.5), linearly interpolated */
    double u[6 * 8];
    if (check_ok("set_potential (Chulkov, ion)", atomgpu_tdse_set_potential(h, &ion, &cu111, NULL, 2, times, path)) &&
        check_ok("potential_slice", atomgpu_tdse_potential_slice(h, ATOMGPU_TDSE_SLICE_X, 14, t, u, 6 * 8))) {
        double worst = 0.0;
        for (int l = 0; l < 6; l++)
            for (int m = 0; m < 8; m++) {
                double rho = (l + 0.5) * g.d2, theta = m * 2.0 * k_pi / 8.0;
                double dy = rho * cos(theta) - ry, dz = rho * sin(theta) - rz, dx = x14 - rx;
                double exact = -1.0 / sqrt(dx * dx + dy * dy + dz * dz + rs * rs) + (-11.895 + 5.14) / 27.211386245988;
                worst = fmax(worst, fabs(u[l * 8 + m] - exact));
            }
        printf("potential read back at the Cu(111) reference plane: max |U - closed form| = %.2e hartree\n", worst);
        check("the potential slice equals the closed form to 1e-13", worst < 1e-13);
    }
    atomgpu_tdse_destroy(h);
}

static int32_t stop_at_third(void *user_data, const char *task, double done, double total) {
    (void)task, (void)done, (void)total;
    return ++*(int *)user_data == 3;
}

static void stopped_run(void) {
    atomgpu_tdse_grid g = cylinder(20, 10, 8, 0.2);
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    atomgpu_tdse *a = NULL, *b = NULL;
    if (!check_ok("create (stopped run)", atomgpu_tdse_create(&g, &p, &a)) ||
        !check_ok("create (uninterrupted run)", atomgpu_tdse_create(&g, &p, &b)))
        return;
    int64_t n = g.nx * g.n2 * g.n3, steps = -1, rings = 0;
    double *psi = gaussian(&g, 0.7), *pa = malloc(2 * (size_t)n * sizeof *pa), *pb = malloc(2 * (size_t)n * sizeof *pb);
    double t = 0.0, rho0 = 0.0;
    int calls = 0;
    check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(a, psi, n, 0.0));
    check_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(b, psi, n, 0.0));
    atomgpu_set_progress(stop_at_third, &calls, 0.0);
    int32_t s = atomgpu_tdse_step(a, 20);
    atomgpu_set_progress(NULL, NULL, 0.0);
    check("the callback stops the run: ATOMGPU_ERR_CANCELLED", s == ATOMGPU_ERR_CANCELLED);
    check_ok("state", atomgpu_tdse_state(a, &t, &steps, &rho0, &rings));
    check("the handle holds step 3", steps == 3 && fabs(t - 0.015) < 1e-15);
    if (check_ok("step the remaining 17", atomgpu_tdse_step(a, 17)) && check_ok("20 steps", atomgpu_tdse_step(b, 20)) &&
        check_ok("get (stopped)", atomgpu_tdse_get_wavefunction(a, pa, n)) &&
        check_ok("get (uninterrupted)", atomgpu_tdse_get_wavefunction(b, pb, n)))
        check("continued = uninterrupted, bit for bit", memcmp(pa, pb, 2 * (size_t)n * sizeof *pa) == 0);
    for (int64_t i = 0; i < 2 * n; i++) pa[i] = 1e300;
    expect_invalid("a wavefunction of 1e300 (its norm overflows)", atomgpu_tdse_set_wavefunction(a, pa, n, 0.0), 2,
                   "psi", 1);
    free(psi), free(pa), free(pb);
    atomgpu_tdse_destroy(a), atomgpu_tdse_destroy(b);
}

int main(void) {
    double complex one = free_gaussian(1, ATOMGPU_TDSE_COMPLEX_DOUBLE, 1);
    double complex single = free_gaussian(1, ATOMGPU_TDSE_COMPLEX_FLOAT, 0);
    printf("complex float storage: %.10f%+.10fi (double - float: %.2e)\n", creal(single), cimag(single),
           cabs(single - one));
    check("complex float storage: amplitude within 1e-5 of complex double", cabs(single - one) < 1e-5);
    int32_t backend = 0, major = 0, minor = 0;
    int64_t total = 0, free_bytes = 0;
    char name[128];
    atomgpu_device_info(&backend, name, sizeof name, &total, &free_bytes, &major, &minor);
    if (backend == ATOMGPU_BACKEND_CPU) {
        double complex two = free_gaussian(2, ATOMGPU_TDSE_COMPLEX_DOUBLE, 0);
        printf("two members: %.15f%+.15fi\n", creal(two), cimag(two));
        check("two members give the same amplitude to 1e-13", cabs(two - one) < 1e-13);
    }
    hydrogen();
    potential_read_back();
    stopped_run();
    bad_input();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
