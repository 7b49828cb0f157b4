/*
 * test_device_sets.c: the one device rule of README "Several GPUs", on the ranks of one node.
 *
 * Each rank asks for n = 1 and n = 2 devices (atomgpu_resolve_devices) and makes a line-strength
 * handle, a Sturmian basis and a TDSE team on n devices; atomgpu_handle_devices must report, for
 * every handle, the set atomgpu_resolve_devices gave. The sets are gathered on every rank and
 * checked against the rule written out here from the README (the reference):
 *   n GPUs of a rank = (r n + k) mod visible, k = 0..n-1, r the node-local rank;
 * on a node with at least (ranks x n) GPUs the ranks' sets are disjoint, every GPU used once.
 * On the CPU backend every device is a CPU engine (-1) and a set has n of them. Then the
 * explicit lists: a rank's reversed set through _create_on_device_list comes back reversed, and
 * a list that repeats a GPU is refused naming `device_ids` (argument 6 of the line-strength call).
 *
 * Build and run (scripts/test-all.sh does, at 1 and 2 ranks; bench/devices.sh on 2 and 4 GPUs):
 *   mpicc -std=c99 -Wall -Wextra -Werror -Iinclude tests/mpi/test_device_sets.c -o test_device_sets \
 *       -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 *   mpirun -np 2 ./test_device_sets
 * Prints one line per rank with its sets; exit status 0 on every rank when every check passes.
 */
#include "atomgpu.h"

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

/* The devices of `handle` equal `want[n]`. */
static void check_handle(const char *what, const void *handle, int32_t n, const int32_t *want) {
    int32_t got[8] = {0}, count = 0;
    check(what, atomgpu_handle_devices(handle, 8, &count, got) == ATOMGPU_OK && count == n);
    for (int32_t k = 0; k < n && k < count; k++)
        check(what, got[k] == want[k]);
}

/* Makes a handle of each family on the `n` devices `ids` (NULL: by the count rule), checks what
 * each reports, destroys them. */
static void handles_on(int32_t n, const int32_t *ids, const int32_t *want) {
    enum { NV = 6 };
    double dipole[NV * NV * 3];
    for (int i = 0; i < NV * NV * 3; i++)
        dipole[i] = 0.01 * (i % 17) - 0.05;
    atomgpu_linestrength *lines = NULL;
    int32_t status = ids ? atomgpu_linestrength_create_on_device_list(NV, dipole, NV, 0, n, ids, &lines)
                         : atomgpu_linestrength_create_on_devices(NV, dipole, NV, 0, n, &lines);
    check("a line-strength handle on the set", status == ATOMGPU_OK);
    check_handle("the line-strength handle's devices", lines, n, want);
    atomgpu_linestrength_destroy(lines);

    atomgpu_sturmian *basis = NULL;
    status = ids ? atomgpu_sturmian_create_on_device_list(10.0, 16, 3, NULL, NULL, 0, n, ids, &basis)
                 : atomgpu_sturmian_create_on_devices(10.0, 16, 3, NULL, NULL, 0, n, &basis);
    check("a Sturmian basis on the set", status == ATOMGPU_OK);
    check_handle("the Sturmian basis's devices", basis, n, want);
    atomgpu_sturmian_destroy(basis);

    atomgpu_tdse_grid grid = {ATOMGPU_TDSE_CYLINDRICAL, 12, 6, 4, 0.4, 0.4, 0.0, -2.2, 0.0, 0.0, 0, 12};
    atomgpu_tdse_params params;
    atomgpu_tdse_default_params(&params);
    params.n_devices = n;
    atomgpu_tdse *team = NULL;
    status = ids ? atomgpu_tdse_create_on_device_list(&grid, &params, n, ids, &team)
                 : atomgpu_tdse_create(&grid, &params, &team);
    check("a TDSE team on the set", status == ATOMGPU_OK);
    check_handle("the TDSE team's devices", team, n, want);
    atomgpu_tdse_destroy(team);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t backend = 0, visible = 0;
    check("device info", atomgpu_device_info(&backend, NULL, 0, NULL, NULL, NULL, NULL) == ATOMGPU_OK);
    check("device count", atomgpu_device_count(&visible) == ATOMGPU_OK);
    int on_gpus = backend == ATOMGPU_BACKEND_CUDA;

    for (int32_t n = 1; n <= 2; n++) {
        if (on_gpus && n > visible)
            break;
        int32_t set[2] = {-7, -7}, count = 0;
        check("resolve the set", atomgpu_resolve_devices(n, 2, &count, set) == ATOMGPU_OK && count == n);
        printf("rank %d of %d: %s, %d visible GPU(s), n = %d: devices", rank, size, on_gpus ? "cuda" : "cpu", visible,
               n);
        for (int32_t k = 0; k < n; k++)
            printf(" %d", set[k]);
        printf("\n");
        for (int32_t k = 0; k < n; k++) {
            /* The reference: the rule as README "Several GPUs" states it. */
            int32_t want = on_gpus ? (int32_t)((rank * n + k) % visible) : -1;
            check("the set follows the rule", set[k] == want);
        }
        handles_on(n, NULL, set);

        int32_t all[64];
        MPI_Allgather(set, 2, MPI_INT32_T, all, 2, MPI_INT32_T, MPI_COMM_WORLD);
        if (on_gpus && size * n <= visible && size <= 32) {
            /* Disjoint: no GPU in two ranks' sets. */
            for (int a = 0; a < size * 2; a++)
                for (int b = a + 1; b < size * 2; b++)
                    if (a % 2 < n && b % 2 < n && all[a] == all[b])
                        check("the ranks' sets are disjoint", 0);
        }
        if (n == 2) {
            int32_t reversed[2] = {set[1], set[0]};
            if (on_gpus)
                handles_on(2, reversed, reversed);
            else {
                int32_t ids[2] = {3, 0}, want[2] = {-1, -1};
                handles_on(2, ids, want);
            }
        }
    }
    /* A list that repeats a device is refused, naming `device_ids` (argument 6). */
    double dipole[3] = {1.0, 1.0, 1.0};
    int32_t twice[2] = {0, 0};
    atomgpu_linestrength *lines = NULL;
    int32_t status = atomgpu_linestrength_create_on_device_list(1, dipole, 1, 0, 2, twice, &lines);
    char message[512];
    atomgpu_last_error_message(message, sizeof message);
    check("a repeated device is refused", status == ATOMGPU_ERR_INVALID_ARGUMENT && lines == NULL &&
                                              atomgpu_last_error_arg() == 6 && strstr(message, "`device_ids`") &&
                                              strstr(message, "twice"));

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s) over %d rank(s)\n", total ? "FAIL" : "ok", total, size);
    MPI_Finalize();
    return total != 0;
}
