/*
 * test_tdse_mpi.c: the TDSE family's domain split over MPI ranks (OpenMPI), on whatever backend
 * is in use. Each rank owns a slab of x planes of one cylindrical grid and connects its handle
 * with two callbacks over MPI_COMM_WORLD (MPI_Sendrecv of the halo planes, MPI_Allreduce of the
 * sums), exactly as a user's code would. A hydrogen ion moves in front of a jellium surface with
 * absorbing layers; after 20 steps the gathered wavefunction must equal, bit for bit, that of one
 * handle owning the whole grid (run on rank 0: every point's update reads the same numbers),
 * and the norm, energy, survival amplitude and population on the ion must agree to 1e-14 (only
 * the sums' order differs). Then, with 2 or more ranks, mismatched halo sizes (rank 1 with one
 * more ρ ring) must be refused by atomgpu_tdse_set_communicator with a message saying so.
 * Last, a time limit set on rank 0 alone (1 ns: it stops rank 0 after its first step) must stop
 * every rank, without a hang, at the same step: step(1000) at the norm check of step 10
 * (params.norm_check_interval = 10), ATOMGPU_ERR_CANCELLED everywhere ("time limit" on rank 0,
 * "another rank" elsewhere), atomgpu_tdse_state 10 steps on every rank; and relax(1000) at its
 * renormalisation after 50 steps, the handle normalised (a collective norm of 1).
 *
 * Build and run (scripts/test-all.sh does, at 2 and 3 ranks):
 *   mpicc -std=c99 -Wall -Wextra -Werror -Iinclude tests/mpi/test_tdse_mpi.c -o test_tdse_mpi \
 *       -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 *   mpirun -np 3 ./test_tdse_mpi
 * Exit status 0 on every rank when every check passes.
 */
#include "atomgpu.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

static void check(const char *what, int ok) {
    if (!ok) {
        char message[1024];
        atomgpu_last_error_message(message, sizeof message);
        printf("rank %d: FAIL %s (last message: %s)\n", rank, what, message);
        failures++;
    }
}

/* The halo exchange over MPI: the first owned plane goes down, the last up; MPI_PROC_NULL at
 * the ends leaves those receive buffers as they are, as the callback's contract asks. */
static int32_t exchange(void *user_data, const double *send_lower, const double *send_upper, double *recv_lower,
                        double *recv_upper, int64_t n_values) {
    MPI_Comm comm = *(MPI_Comm *)user_data;
    int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int n = (int)(2 * n_values);
    if (MPI_Sendrecv(send_lower, n, MPI_DOUBLE, below, 0, recv_upper, n, MPI_DOUBLE, above, 0, comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 1;
    if (MPI_Sendrecv(send_upper, n, MPI_DOUBLE, above, 1, recv_lower, n, MPI_DOUBLE, below, 1, comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 1;
    return 0;
}

static int32_t sum(void *user_data, double *values, int64_t n) {
    MPI_Comm comm = *(MPI_Comm *)user_data;
    return MPI_Allreduce(MPI_IN_PLACE, values, (int)n, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS;
}

static atomgpu_tdse_grid grid_of(int64_t n_rho, int64_t x_offset, int64_t nx_local) {
    atomgpu_tdse_grid g = {ATOMGPU_TDSE_CYLINDRICAL, 23, n_rho, 16, 0.2, 0.2, 0.0, -2.2, 0.0, 0.0, x_offset, nx_local};
    return g;
}

/* A moving Gaussian packet on the owned points (interleaved re, im). */
static double *packet(const atomgpu_tdse_grid *g) {
    int64_t n = g->nx_local * g->n2 * g->n3;
    double *psi = malloc(2 * (size_t)n * sizeof *psi);
    for (int64_t k = 0; k < g->nx_local; k++)
        for (int64_t l = 0; l < g->n2; l++)
            for (int64_t m = 0; m < g->n3; m++) {
                double x = g->x0 + (g->x_offset + k) * g->dx, rho = (l + 0.5) * g->d2, theta = m * 2.0 * 3.14159265358979323846 / g->n3;
                double y = rho * cos(theta) - 0.5, z = rho * sin(theta) - 0.1, r2 = (x - 0.2) * (x - 0.2) + y * y + z * z;
                int64_t i = (k * g->n2 + l) * g->n3 + m;
                psi[2 * i] = exp(-r2 / 2.56) * cos(0.7 * x);
                psi[2 * i + 1] = exp(-r2 / 2.56) * sin(0.7 * x);
            }
    return psi;
}

struct results {
    double norm, energy, overlap[2], population;
};

/* Sets up `h` (owning `g`) and runs it; the wavefunction is left in `psi`. */
static int run(atomgpu_tdse *h, const atomgpu_tdse_grid *g, double *psi, struct results *r) {
    const atomgpu_tdse_ion ion = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0};
    const atomgpu_tdse_surface jellium = {ATOMGPU_TDSE_SURFACE_JELLIUM, -1.0, 0.4, 1.0, -0.5, 0, 0, 0, 0, 0};
    const double times[2] = {0.0, 1.0}, path[6] = {0.3, 0.1, 0.0, 0.8, 0.1, 0.0};
    int64_t n = g->nx_local * g->n2 * g->n3;
    return atomgpu_tdse_set_potential(h, &ion, &jellium, NULL, 2, times, path) == ATOMGPU_OK &&
           atomgpu_tdse_set_reference(h, psi, n) == ATOMGPU_OK &&
           atomgpu_tdse_set_wavefunction(h, psi, n, 0.0) == ATOMGPU_OK && atomgpu_tdse_step(h, 20) == ATOMGPU_OK &&
           atomgpu_tdse_norm(h, &r->norm) == ATOMGPU_OK && atomgpu_tdse_energy(h, &r->energy) == ATOMGPU_OK &&
           atomgpu_tdse_overlap(h, r->overlap) == ATOMGPU_OK &&
           atomgpu_tdse_population(h, 1.5, &r->population) == ATOMGPU_OK &&
           atomgpu_tdse_get_wavefunction(h, psi, n) == ATOMGPU_OK;
}

static int agree(double a, double b) { return fabs(a - b) <= 1e-14 * fmax(fabs(a), fabs(b)); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.absorber_width = 1.0, p.absorber_strength = 0.5;

    /* This rank's slab of the 23 planes. */
    int64_t first = 23 * rank / size, last = 23 * (rank + 1) / size;
    atomgpu_tdse_grid g = grid_of(10, first, last - first);
    atomgpu_tdse *h = NULL;
    check("create (slab)", atomgpu_tdse_create(&g, &p, &h) == ATOMGPU_OK);
    check("set_communicator", atomgpu_tdse_set_communicator(h, exchange, sum, &comm) == ATOMGPU_OK);
    double *mine = packet(&g);
    struct results split;
    check("the split run", run(h, &g, mine, &split));
    atomgpu_tdse_destroy(h);

    int plane = 2 * 10 * 16, *counts = malloc(size * sizeof *counts), *offsets = malloc(size * sizeof *offsets);
    for (int r = 0; r < size; r++) {
        offsets[r] = (int)(23 * r / size) * plane;
        counts[r] = (int)(23 * (r + 1) / size - 23 * r / size) * plane;
    }
    double *gathered = rank == 0 ? malloc(23 * (size_t)plane * sizeof *gathered) : NULL;
    MPI_Gatherv(mine, counts[rank], MPI_DOUBLE, gathered, counts, offsets, MPI_DOUBLE, 0, comm);
    if (rank == 0) {
        atomgpu_tdse_grid whole = grid_of(10, 0, 23);
        atomgpu_tdse *single = NULL;
        double *psi = packet(&whole);
        struct results one;
        check("create (whole grid)", atomgpu_tdse_create(&whole, &p, &single) == ATOMGPU_OK);
        check("the single-rank run", run(single, &whole, psi, &one));
        check("the wavefunction equals the single-rank run's bit for bit",
              memcmp(psi, gathered, 23 * (size_t)plane * sizeof *psi) == 0);
        check("norm to 1e-14", agree(split.norm, one.norm));
        check("energy to 1e-14", agree(split.energy, one.energy));
        check("survival amplitude to 1e-14", agree(split.overlap[0], one.overlap[0]) && agree(split.overlap[1], one.overlap[1]));
        check("population on the ion to 1e-14", agree(split.population, one.population));
        printf("%d ranks: norm %.15f, energy %.15f, |<phi|psi>|^2 %.15f, population %.15f (single rank: %.15f %.15f)\n",
               size, split.norm, split.energy, split.overlap[0] * split.overlap[0] + split.overlap[1] * split.overlap[1],
               split.population, one.norm, one.energy);
        atomgpu_tdse_destroy(single);
        free(psi), free(gathered);
    }

    if (size >= 2) {
        /* Rank 1 with one more ρ ring: its neighbours must refuse the halo sizes. */
        atomgpu_tdse_grid bad = grid_of(rank == 1 ? 11 : 10, first, last - first);
        atomgpu_tdse *b = NULL;
        check("create (mismatched)", atomgpu_tdse_create(&bad, &p, &b) == ATOMGPU_OK);
        int32_t s = atomgpu_tdse_set_communicator(b, exchange, sum, &comm);
        char message[1024];
        atomgpu_last_error_message(message, sizeof message);
        check("mismatched halo sizes refused with a message",
              s == ATOMGPU_ERR_INVALID_ARGUMENT && strstr(message, "mismatched halo sizes") != NULL &&
                  atomgpu_last_error_arg() == 1);
        atomgpu_tdse_destroy(b);
    }

    {
        atomgpu_tdse_params q = p;
        q.norm_check_interval = 10;
        atomgpu_tdse *s = NULL;
        check("create (stopped runs)", atomgpu_tdse_create(&g, &q, &s) == ATOMGPU_OK);
        check("set_communicator", atomgpu_tdse_set_communicator(s, exchange, sum, &comm) == ATOMGPU_OK);
        double *psi = packet(&g), t = 0.0, rho0 = 0.0, e = -7.0, norm = 0.0;
        int64_t n = g.nx_local * g.n2 * g.n3, steps = -1, rings = 0;
        int32_t converged = -7;
        char message[1024];
        check("set_wavefunction", atomgpu_tdse_set_wavefunction(s, psi, n, 0.0) == ATOMGPU_OK);
        if (rank == 0) atomgpu_set_time_limit(1e-9);
        int32_t status = atomgpu_tdse_step(s, 1000);
        atomgpu_last_error_message(message, sizeof message);
        check("step stopped on every rank", status == ATOMGPU_ERR_CANCELLED);
        check("the stop's reason", strstr(message, rank == 0 ? "time limit" : "another rank") != NULL);
        check("state", atomgpu_tdse_state(s, &t, &steps, &rho0, &rings) == ATOMGPU_OK);
        check("every rank stopped at the norm check of step 10", steps == 10);
        status = atomgpu_tdse_relax(s, 1000, 1e-300, &e, &steps, &converged);
        check("relax stopped on every rank", status == ATOMGPU_ERR_CANCELLED && e == -7.0 && converged == -7);
        if (rank == 0) atomgpu_set_time_limit(0.0);
        check("norm after the stopped relaxation", atomgpu_tdse_norm(s, &norm) == ATOMGPU_OK);
        check("the stopped relaxation left psi normalised", fabs(norm - 1.0) < 1e-12);
        atomgpu_tdse_destroy(s);
        free(psi);
    }

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) printf("%s: %d ranks, %d failures\n", all == 0 ? "ok" : "FAIL", size, all);
    free(mine), free(counts), free(offsets);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
