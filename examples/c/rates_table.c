/*
 * rates_table.c: a table of Fermi-Dirac (FD) and Maxwell-Boltzmann (MB) rate coefficients of two
 * transitions of the paper's aluminium model (examples/data/aluminium-cr-*.csv) at the paper's
 * free-electron density n_e = 2.7e23 cm^-3, for T_e = 0.5 .. 20 eV:
 *   - the 8.08 eV excitation of Al3+ (levels 1 -> 2 of the CSV, 0-based), collision strength
 *     Omega(x) = B0 ln x + B1 + B2/x + B3/x^2 (dimensionless);
 *   - the 20.926 eV ionization of Al3+ (level 4 -> 5), BELI coefficients in 1e-13 cm^2 eV^2.
 * Every level has statistical weight 1, as in the paper's model. Rates are per ion per second:
 * excitation/ionization per ion of the lower level, de-excitation/three-body recombination per
 * ion of the upper level. One call per statistics computes the whole column of temperatures.
 *
 * Build and run (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Iinclude examples/c/rates_table.c -o rates_table \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release && ./rates_table
 * (or, with atomgpu installed: cc examples/c/rates_table.c $(pkg-config --cflags --libs atomgpu)).
 * ATOMGPU_BACKEND=cpu|cuda chooses the backend.
 */
#include "atomgpu.h"

#include <stdio.h>
#include <stdlib.h>

#define N_STATES 6

/* Reports a failed call with the library's message and exits. */
static void require_ok(const char *what, int32_t status) {
    if (status != ATOMGPU_OK) {
        char message[512];
        atomgpu_last_error_message(message, sizeof message);
        fprintf(stderr, "rates_table: %s failed (%s): %s\n", what, atomgpu_status_string(status), message);
        exit(EXIT_FAILURE);
    }
}

int main(void) {
    const double te[N_STATES] = {0.5, 1.0, 2.0, 5.0, 10.0, 20.0};
    double ne[N_STATES], mu[2][N_STATES];
    /* aluminium-cr-excitations.csv, line "1,2,8.08E+00,...": B0..B3, B4 = B5 = 0. */
    const double x_energy[1] = {8.08};
    const double x_omega[6] = {7.078345e+01, 3.952529e+01, 9.925136e+01, -2.871901e+01, 0.0, 0.0};
    /* aluminium-cr-ionizations.csv, line "4,5,2.09260E+01,...": C0..C4 (A, B1..B4). */
    const double i_energy[1] = {20.926};
    const double i_beli[5] = {3.71, -0.236, 2.35, -0.66, 0.0};
    const int32_t stats[2] = {ATOMGPU_STATS_FERMI_DIRAC, ATOMGPU_STATS_MAXWELL_BOLTZMANN};
    const double accuracy_p = 5.0; /* the paper's defaults: ranges to 1e-5, 32 nodes per panel */
    const int32_t nodes = 32;
    double x_up[2][N_STATES], x_down[2][N_STATES], i_up[2][N_STATES], i_down[2][N_STATES];
    int32_t backend = -1, cc_major = 0, cc_minor = 0, major = 0, minor = 0, patch = 0;
    int64_t total = 0, free_bytes = 0;
    char device[256];

    for (int s = 0; s < N_STATES; s++) ne[s] = 2.7e23;
    require_ok("atomgpu_version", atomgpu_version(&major, &minor, &patch));
    require_ok("atomgpu_device_info",
               atomgpu_device_info(&backend, device, sizeof device, &total, &free_bytes, &cc_major, &cc_minor));
    printf("atomgpu %d.%d.%d, backend: %s (%s", (int)major, (int)minor, (int)patch,
           backend == ATOMGPU_BACKEND_CUDA ? "CUDA" : "CPU", device);
    if (backend == ATOMGPU_BACKEND_CUDA)
        printf(", compute capability %d.%d, %.1f GiB", (int)cc_major, (int)cc_minor, (double)total / (1 << 30));
    printf(")\n");

    for (int k = 0; k < 2; k++) {
        require_ok("atomgpu_rates_chemical_potential",
                   atomgpu_rates_chemical_potential(stats[k], N_STATES, te, ne, mu[k]));
        require_ok("atomgpu_rates_excitation",
                   atomgpu_rates_excitation(stats[k], accuracy_p, nodes, N_STATES, te, ne, 1, x_energy, x_omega, NULL,
                                            NULL, x_up[k], x_down[k]));
        require_ok("atomgpu_rates_ionization",
                   atomgpu_rates_ionization(stats[k], accuracy_p, nodes, N_STATES, te, ne, 1, i_energy, i_beli, NULL,
                                            NULL, i_up[k], i_down[k]));
    }

    printf("aluminium, n_e = 2.7e23 cm^-3, rates per ion [s^-1] (p = %.0f, %d nodes per panel)\n", accuracy_p,
           (int)nodes);
    printf("  excitation 8.08 eV (Al3+ level 1 -> 2) and ionization 20.926 eV (Al3+ level 4 -> Al4+)\n\n");
    printf("%6s %2s %8s %11s %11s %11s %11s\n", "Te/eV", "", "mu/eV", "excitation", "de-excit.", "ionization",
           "recombin.");
    for (int s = 0; s < N_STATES; s++) {
        for (int k = 0; k < 2; k++) {
            printf("%6.1f %2s %8.3f %11.4e %11.4e %11.4e %11.4e\n", te[s], k == 0 ? "FD" : "MB", mu[k][s], x_up[k][s],
                   x_down[k][s], i_up[k][s], i_down[k][s]);
        }
    }
    printf("\nFD/MB ratios (Pauli blocking of the final states lowers the FD rates where T_e << mu):\n");
    printf("%6s %11s %11s %11s %11s\n", "Te/eV", "excitation", "de-excit.", "ionization", "recombin.");
    for (int s = 0; s < N_STATES; s++) {
        printf("%6.1f %11.4f %11.4f %11.4f %11.4f\n", te[s], x_up[0][s] / x_up[1][s], x_down[0][s] / x_down[1][s],
               i_up[0][s] / i_up[1][s], i_down[0][s] / i_down[1][s]);
    }
    return EXIT_SUCCESS;
}
