/*
 * test_sturmian_channels.c: what a Sturmian channel carries (issue 28), through the C interface,
 * against closed forms:
 *   (a) atomgpu_sturmian_add_gsf keeps the channel's -Z/r and energy: Coulomb Sturmians generated
 *       for Z = 0 at E = -1/2 hartree (Yukawa range 1e12 bohr, i.e. -1/r; lambda = k = 1), used
 *       for hydrogen (params Z = 1) with two electrons that do not interact (interaction_charge
 *       0) in the pair (0, 0), give the lowest two-electron levels 2 e_1 = -1 and e_1 + e_2 =
 *       -5/8 (twice), e_n = -1/(2 n^2), whatever params.energy_a/_b say (set to nonsense here);
 *   (b) atomgpu_sturmian_channel_values reads the channel back: S_0 = 2 r e^-r (hydrogen's 1s:
 *       the first Coulomb Sturmian, normalised as int S (1/r) S dr = 1), beta_n = n + 1 (closed
 *       form (k (n + l + 1) - Z) / v0), the generating potential -e^(-r/1e12)/r, U = 0 (Z = 0)
 *       and E = -0.5 at the grid's abscissas; NULL outputs are skipped; a complex basis reads
 *       the same channel back as (re, im) pairs with im = 0;
 *   (c) the functions read back and given again, with their U and E through
 *       atomgpu_sturmian_add_channel_at_energy (params' energies nonsense) and with U but no E
 *       through atomgpu_sturmian_add_channel (params' energies -0.5), assemble the same
 *       Hamiltonian (1e-13 of its largest element);
 *   (d) refusals (status, argument position and name, outputs untouched): channel_values' central
 *       of a channel added with central = NULL, its energy of a channel added without one,
 *       ld_values < n_points, cols_values < N, len_beta < N, a channel never added;
 *       add_channel_at_energy with a NaN energy.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/c/test_sturmian_channels.c -o test_sturmian_channels \
 *      -Ltarget/release -latomgpu -lm -Wl,-rpath,$PWD/target/release
 * Exit status 0 when every check passes.
 */
#include "atomgpu.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define RMAX 60.0
#define NQ 120
#define NS 3
#define NP (NQ + 1 + NQ * NS)
#define N 16
#define SIZE (N * N)
#define SENTINEL (-12345.0)

static double abscissas[NQ], weights[NQ], points[NP];
static double values[NP * N], beta[N], generating[NQ], central[NQ];
static double h_gsf[SIZE * SIZE], s_gsf[SIZE * SIZE], h_other[SIZE * SIZE], s_other[SIZE * SIZE];

/* Two electrons that do not interact, L = 0, in a field of charge 1; energies as given. */
static atomgpu_sturmian_params independent(double energy_a, double energy_b) {
    atomgpu_sturmian_params p = {0, 0, energy_a, energy_b, 1.0, 0.0, ATOMGPU_EXCHANGE_NONE};
    return p;
}

static const int32_t la[1] = {0}, lb[1] = {0};

/* Largest |a - b| over the SIZE x SIZE matrices, relative to the largest |b|. */
static double difference(const double *a, const double *b) {
    double d = 0.0, scale = 0.0;
    for (int i = 0; i < SIZE * SIZE; i++) d = fmax(d, fabs(a[i] - b[i])), scale = fmax(scale, fabs(b[i]));
    return d / scale;
}

/* (a), (b): the generated channel, its levels and its read-back. Returns the handle (NULL on failure). */
static atomgpu_sturmian *generated(void) {
    const atomgpu_gsf_params gsf = {0.0, -0.5, 1.0, 1e12, N + 10, 1.0};
    const atomgpu_sturmian_params nonsense = independent(3.0, -40.0);
    atomgpu_sturmian *h = NULL;
    double energies[3], vectors[3 * SIZE], energy = SENTINEL;
    if (!check_ok("create", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, &h))) return NULL;
    if (!check_ok("add_gsf a", atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, N, &gsf, NULL)) ||
        !check_ok("add_gsf b", atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_B, 0, N, &gsf, NULL)) ||
        !check_ok("hamiltonian", atomgpu_sturmian_hamiltonian(h, &nonsense, 1, la, lb, ATOMGPU_ORDER_A_FASTEST, h_gsf,
                                                              SIZE, SIZE, s_gsf, SIZE, SIZE)) ||
        !check_ok("solve", atomgpu_sturmian_solve(SIZE, h_gsf, SIZE, s_gsf, SIZE, 3, energies, vectors, SIZE, 3))) {
        atomgpu_sturmian_destroy(h);
        return NULL;
    }
    printf("hydrogen from Z = 0 Coulomb Sturmians: %.12f %.12f %.12f (closed form -1, -0.625, -0.625)\n", energies[0],
           energies[1], energies[2]);
    check("(a) 1s^2 = -1", fabs(energies[0] + 1.0) <= 1e-9);
    check("(a) 1s2s = -5/8", fabs(energies[1] + 0.625) <= 1e-9 && fabs(energies[2] + 0.625) <= 1e-9);

    for (int i = 0; i < NP * N; i++) values[i] = SENTINEL;
    if (check_ok("channel_values", atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, values, NP, N, beta,
                                                                   N, generating, central, &energy))) {
        double worst_s = 0.0, worst_beta = 0.0, worst_v = 0.0, worst_u = 0.0;
        double sign = values[NS + 1] > 0.0 ? 1.0 : -1.0;
        for (int p = 0; p < NP; p++) worst_s = fmax(worst_s, fabs(sign * values[p] - 2.0 * points[p] * exp(-points[p])));
        for (int n = 0; n < N; n++) worst_beta = fmax(worst_beta, fabs(beta[n] - (n + 1)) / (n + 1));
        for (int j = 0; j < NQ; j++) {
            worst_v = fmax(worst_v, fabs(generating[j] + exp(-abscissas[j] / 1e12) / abscissas[j]) * abscissas[j]);
            worst_u = fmax(worst_u, fabs(central[j]));
        }
        check("(b) S_0 = 2 r e^-r", worst_s <= 1e-10);
        check("(b) beta_n = n + 1", worst_beta <= 1e-9);
        check("(b) generating = -e^(-r/a)/r", worst_v <= 1e-15);
        check("(b) central = 0 (Z = 0)", worst_u == 0.0);
        check("(b) energy = -0.5", energy == -0.5);
    }
    double b2[N];
    for (int n = 0; n < N; n++) b2[n] = SENTINEL;
    /* values NULL: ld_values and cols_values are not read (0 here). */
    if (check_ok("channel_values: beta only",
                 atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_B, 0, NULL, 0, 0, b2, N, NULL, NULL, NULL)))
        check("(b) beta only, electron b: the same beta", memcmp(b2, beta, sizeof b2) == 0);
    /* The same generated channel in a complex basis: (re, im) pairs, the real basis's values. */
    atomgpu_sturmian *hc = NULL;
    static double complex cvalues[NP * N], cbeta[N];
    if (check_ok("create (complex)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 1, &hc)) &&
        check_ok("add_gsf (complex)", atomgpu_sturmian_add_gsf(hc, ATOMGPU_ELECTRON_A, 0, N, &gsf, NULL)) &&
        check_ok("channel_values (complex)", atomgpu_sturmian_channel_values(hc, ATOMGPU_ELECTRON_A, 0, (double *)cvalues,
                                                                             NP, N, (double *)cbeta, N, NULL, NULL,
                                                                             NULL))) {
        int same = 1;
        for (int i = 0; i < NP * N; i++) same &= creal(cvalues[i]) == values[i] && cimag(cvalues[i]) == 0.0;
        for (int n = 0; n < N; n++) same &= creal(cbeta[n]) == beta[n] && cimag(cbeta[n]) == 0.0;
        check("(b) complex basis: the real basis's values and beta, imaginary parts 0", same);
    }
    atomgpu_sturmian_destroy(hc);
    return h;
}

/* (c): the read-back functions given again, with and without their energy. */
static void given_again(void) {
    const atomgpu_sturmian_params nonsense = independent(3.0, -40.0), at_half = independent(-0.5, -0.5);
    atomgpu_sturmian *h = NULL;
    if (check_ok("create (at energy)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, &h))) {
        if (check_ok("add_channel_at_energy a", atomgpu_sturmian_add_channel_at_energy(
                                                    h, ATOMGPU_ELECTRON_A, 0, N, values, NP, beta, generating, central, -0.5)) &&
            check_ok("add_channel_at_energy b", atomgpu_sturmian_add_channel_at_energy(
                                                    h, ATOMGPU_ELECTRON_B, 0, N, values, NP, beta, generating, central, -0.5)) &&
            check_ok("hamiltonian (at energy)", atomgpu_sturmian_hamiltonian(h, &nonsense, 1, la, lb, ATOMGPU_ORDER_A_FASTEST,
                                                                             h_other, SIZE, SIZE, s_other, SIZE, SIZE))) {
            check("(c) add_channel_at_energy: the generated channel's H", difference(h_other, h_gsf) <= 1e-13);
            check("(c) add_channel_at_energy: the generated channel's S", difference(s_other, s_gsf) <= 1e-13);
        }
        atomgpu_sturmian_destroy(h);
    }
    h = NULL;
    if (check_ok("create (no energy)", atomgpu_sturmian_create(RMAX, NQ, NS, NULL, NULL, 0, &h))) {
        if (check_ok("add_channel a", atomgpu_sturmian_add_channel(h, ATOMGPU_ELECTRON_A, 0, N, values, NP, beta,
                                                                   generating, central)) &&
            check_ok("add_channel b", atomgpu_sturmian_add_channel(h, ATOMGPU_ELECTRON_B, 0, N, values, NP, beta,
                                                                   generating, central)) &&
            check_ok("hamiltonian (no energy)", atomgpu_sturmian_hamiltonian(h, &at_half, 1, la, lb, ATOMGPU_ORDER_A_FASTEST,
                                                                             h_other, SIZE, SIZE, s_other, SIZE, SIZE)))
            check("(c) add_channel with params' energies: the generated channel's H", difference(h_other, h_gsf) <= 1e-13);
        /* (d) This channel has U but no energy: asking for its energy is refused. */
        double energy = SENTINEL, u[NQ];
        for (int j = 0; j < NQ; j++) u[j] = SENTINEL;
        expect_invalid("channel_values: energy of a channel without one",
                       atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, NULL, 0, 0, NULL, 0, NULL, u, &energy), 11,
                       "energy", energy == SENTINEL && u[0] == SENTINEL);
        /* Replaced with central = NULL: asking for its U is refused. */
        if (check_ok("add_channel a (central NULL)", atomgpu_sturmian_add_channel(h, ATOMGPU_ELECTRON_A, 0, N, values, NP,
                                                                                  beta, generating, NULL)))
            expect_invalid("channel_values: central of a channel without one",
                           atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, NULL, 0, 0, NULL, 0, NULL, u, NULL), 10,
                           "central", u[0] == SENTINEL);
        double b[N];
        for (int n = 0; n < N; n++) b[n] = SENTINEL;
        expect_invalid("channel_values: ld_values < n_points",
                       atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, values, NP - 1, N, b, N, NULL, NULL, NULL),
                       5, "ld_values", b[0] == SENTINEL);
        expect_invalid("channel_values: cols_values < N",
                       atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, values, NP, N - 1, b, N, NULL, NULL, NULL),
                       6, "cols_values", b[0] == SENTINEL);
        expect_invalid("channel_values: len_beta < N",
                       atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 0, NULL, 0, 0, b, N - 1, NULL, NULL, NULL), 8,
                       "len_beta", b[0] == SENTINEL);
        expect_invalid("channel_values: no channel l = 1",
                       atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_A, 1, NULL, 0, 0, b, N, NULL, NULL, NULL), 3, "l",
                       b[0] == SENTINEL);
        expect_invalid("add_channel_at_energy: NaN energy",
                       atomgpu_sturmian_add_channel_at_energy(h, ATOMGPU_ELECTRON_A, 2, N, values, NP, beta, generating,
                                                              NULL, NAN),
                       10, "energy", 1);
        atomgpu_sturmian_destroy(h);
    }
}

int main(void) {
    if (check_ok("grid", atomgpu_sturmian_grid(RMAX, NQ, NS, abscissas, weights, points))) {
        atomgpu_sturmian *h = generated();
        if (h != NULL) {
            given_again();
            atomgpu_sturmian_destroy(h);
        }
    }
    printf("test_sturmian_channels: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
