/*
 * tdse_scaling.c: scaling of the TDSE family over MPI ranks, one rank per GPU, through the path a
 * user's code takes: each rank creates a handle for its slab of x planes of one cylindrical grid
 * (atomgpu_tdse_create with x_offset / nx_local) and connects it with two callbacks over
 * MPI_COMM_WORLD (MPI_Sendrecv of the halo planes, MPI_Allreduce of the sums), as in
 * tests/mpi/test_tdse_mpi.c. The library computes the interior planes while the callback moves
 * the halos (paper §2.3: one halo plane per side per stage, 2 Nρ Nθ points).
 *
 * The case is tdse_bench's cylindrical one: Nρ = Nθ = 128, dx = dρ = 0.2 bohr, τ = 0.005 a.u.,
 * complex double, a hydrogen ion moving along x in front of a jellium surface (the potential made
 * on the device every step), absorbing layers 4 bohr wide at both x ends, a beam
 * exp(-ρ²/8) e^{0.3 i x} filling every rank's slab (no rank works on zeros).
 *
 *   mpicc -O2 -std=c99 -Wall -Iinclude bench/mpi/tdse_scaling.c -o tdse_scaling \
 *       -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 *   mpirun -np P ./tdse_scaling NX STEPS CASE [float]
 *
 * NX: planes of the whole grid (points = NX · 128 · 128), split as evenly as possible over the
 * P ranks; STEPS: steps per timed run; `float`: wavefunctions stored as complex float
 * (params.storage = ATOMGPU_TDSE_COMPLEX_FLOAT; the halos still travel as doubles). Every rank runs 2 untimed steps (the start, the kernel
 * compile), then 3 timed runs of STEPS steps, each between two MPI_Barrier calls; a run's time is
 * the slowest rank's (MPI_MAX), the median of the 3 is reported. Rank 0 prints one JSON line:
 * Gpnts/s = points × STEPS / seconds (10⁹ points per second). ATOMGPU_DEVICE unset: rank r takes
 * GPU (node-local rank mod GPUs), as the README describes.
 */
#include "atomgpu.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRHO 128
#define NTHETA 128
#define H 0.2

static int rank, size;

static void require_ok(const char *what, int32_t status) {
    if (status != ATOMGPU_OK) {
        char message[1024];
        atomgpu_last_error_message(message, sizeof message);
        fprintf(stderr, "tdse_scaling (rank %d): %s failed (%s): %s\n", rank, what, atomgpu_status_string(status),
                message);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The halo exchange: the first owned plane goes down, the last up (MPI_PROC_NULL at the ends
 * leaves those receive buffers as they are). */
static int32_t exchange(void *user_data, const double *send_lower, const double *send_upper, double *recv_lower,
                        double *recv_upper, int64_t n_values) {
    MPI_Comm comm = *(MPI_Comm *)user_data;
    int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int n = (int)(2 * n_values);
    if (MPI_Sendrecv(send_lower, n, MPI_DOUBLE, below, 0, recv_upper, n, MPI_DOUBLE, above, 0, comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 1;
    return MPI_Sendrecv(send_upper, n, MPI_DOUBLE, above, 1, recv_lower, n, MPI_DOUBLE, below, 1, comm,
                        MPI_STATUS_IGNORE) != MPI_SUCCESS;
}

static int32_t sum(void *user_data, double *values, int64_t n) {
    MPI_Comm comm = *(MPI_Comm *)user_data;
    return MPI_Allreduce(MPI_IN_PLACE, values, (int)n, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: tdse_scaling NX STEPS CASE [float]\n");
        MPI_Finalize();
        return 2;
    }
    const int64_t nx = atoll(argv[1]), steps = atoll(argv[2]);
    const char *label = argv[3];
    const int single = argc > 4 && strcmp(argv[4], "float") == 0;
    if (nx < size || steps < 1) {
        if (rank == 0) fprintf(stderr, "tdse_scaling: NX must be >= the rank count and STEPS >= 1\n");
        MPI_Finalize();
        return 2;
    }

    double t_setup = MPI_Wtime();
    const int64_t first = nx * rank / size, last = nx * (rank + 1) / size;
    const double x0 = -0.1 * (double)nx;
    atomgpu_tdse_grid g = {ATOMGPU_TDSE_CYLINDRICAL, nx, NRHO, NTHETA, H, H, 0.0, x0, 0.0, 0.0, first, last - first};
    atomgpu_tdse_params p;
    require_ok("default_params", atomgpu_tdse_default_params(&p));
    p.absorber_width = 4.0, p.absorber_strength = 0.5, p.norm_check_interval = 1000000;
    p.storage = single ? ATOMGPU_TDSE_COMPLEX_FLOAT : ATOMGPU_TDSE_COMPLEX_DOUBLE;
    atomgpu_tdse *h = NULL;
    require_ok("create", atomgpu_tdse_create(&g, &p, &h));
    require_ok("set_communicator", atomgpu_tdse_set_communicator(h, exchange, sum, &comm));

    const atomgpu_tdse_ion ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0.05};
    const atomgpu_tdse_surface jellium = {ATOMGPU_TDSE_SURFACE_JELLIUM, x0 + 10.0, 0.4, 1.1, -0.5, 0, 0, 0, 0, 0};
    const double times[2] = {0.0, 1000.0}, path[6] = {2.0, 0.0, 0.0, 102.0, 0.0, 0.0};
    require_ok("set_potential", atomgpu_tdse_set_potential(h, &ion, &jellium, NULL, 2, times, path));

    /* The beam: a ring profile exp(-ρ²/8) times the plane wave e^{0.3 i x}. */
    const int64_t plane = NRHO * NTHETA, n = g.nx_local * plane;
    double *psi = malloc(2 * (size_t)n * sizeof *psi);
    if (psi == NULL) {
        fprintf(stderr, "tdse_scaling (rank %d): no host memory for %lld points\n", rank, (long long)n);
        MPI_Abort(comm, 1);
    }
    for (int64_t k = 0; k < g.nx_local; k++) {
        double x = x0 + (double)(first + k) * H, c = cos(0.3 * x), s = sin(0.3 * x);
        for (int64_t l = 0; l < NRHO; l++) {
            double rho = (l + 0.5) * H, a = exp(-rho * rho / 8.0);
            double *line = psi + 2 * (k * plane + l * NTHETA);
            for (int64_t m = 0; m < NTHETA; m++) line[2 * m] = a * c, line[2 * m + 1] = a * s;
        }
    }
    require_ok("set_wavefunction", atomgpu_tdse_set_wavefunction(h, psi, n, 0.0));
    free(psi);
    require_ok("the untimed steps", atomgpu_tdse_step(h, 2));
    t_setup = MPI_Wtime() - t_setup;

    double runs[3];
    for (int r = 0; r < 3; r++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        require_ok("step", atomgpu_tdse_step(h, steps));
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &runs[r], 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    double norm;
    require_ok("norm", atomgpu_tdse_norm(h, &norm));
    qsort(runs, 3, sizeof runs[0], by_value);
    if (rank == 0) {
        double points = (double)nx * plane, per_step = runs[1] / (double)steps;
        printf("{\"case\":\"%s\",\"storage\":\"%s\",\"ranks\":%d,\"nx\":%lld,\"points\":%.4e,\"points_per_rank\":%.4e,"
               "\"steps\":%lld,\"seconds_per_step\":%.4e,\"gpnts_per_s\":%.2f,\"runs_s\":[%.4f,%.4f,%.4f],"
               "\"setup_s\":%.1f,\"norm\":%.6e}\n",
               label, single ? "complex float" : "complex double", size, (long long)nx, points, points / size, (long long)steps, per_step, points / per_step / 1e9,
               runs[0], runs[1], runs[2], t_setup, norm);
        fflush(stdout);
    }
    atomgpu_tdse_destroy(h);
    MPI_Finalize();
    return 0;
}
