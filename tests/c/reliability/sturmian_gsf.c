/* Reliability cases of the Sturmian channels' potentials, energies and generated functions
 * (issue 28: add_channel_at_energy, channel_values, add_gsf), included by
 * tests/c/test_reliability.c (see there). */

/* add_channel_at_energy: channel (b, 1) of the fixture's grid, with U and E. */
static int32_t call_stg_add_channel_at_energy(void) {
    int32_t s = atomgpu_sturmian_add_channel_at_energy(
        P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_ELECTRON_B, BRK(K_NEG, 3) ? -1 : 1, N(2, 4),
        A(st_values, 2 * ST_NP, 5), N(ST_NP, 6), A(st_beta, 2, 7), A(st_generating, ST_NQ, 8), A(st_central, ST_NQ, 9),
        X(-0.5, 10));
    untouched = 1, finite = 1;
    return s;
}

/* channel_values of the fixture's generated channel (a, 0): every output (NULL is allowed for
 * each, so no NULL rows), `values` with one column more than the channel's two (left untouched). */
static int32_t call_stg_channel_values(void) {
    double values[3 * ST_NP], beta[2], generating[ST_NQ], central[ST_NQ], energy = SENTINEL;
    fill(values, 3 * ST_NP, SENTINEL), fill(beta, 2, SENTINEL), fill(generating, ST_NQ, SENTINEL);
    fill(central, ST_NQ, SENTINEL);
    int32_t s = atomgpu_sturmian_channel_values(P(fixture_st, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_ELECTRON_A,
                                                BRK(K_NEG, 3) ? -1 : 0, values, N(ST_NP, 5), N(3, 6), beta, N(2, 8),
                                                generating, central, &energy);
    untouched = all_equal(values, 3 * ST_NP, SENTINEL) && all_equal(beta, 2, SENTINEL) &&
                all_equal(generating, ST_NQ, SENTINEL) && all_equal(central, ST_NQ, SENTINEL) && energy == SENTINEL;
    finite = all_finite(values, 2 * ST_NP) && all_equal(values + 2 * ST_NP, ST_NP, SENTINEL) && all_finite(beta, 2) &&
             all_finite(generating, ST_NQ) && all_finite(central, ST_NQ) && isfinite(energy);
    return s;
}

/* The lowest eigenvalue of the L = 0 pair (0, 0) Hamiltonian of `h` (n functions per electron,
 * n <= 8) for two non-interacting electrons in the field of charge 1, params' energies nonsense;
 * NAN (and a failure printed) when a call fails. */
static double stg_lowest_hydrogen(atomgpu_sturmian *h, int n) {
    const atomgpu_sturmian_params params = {0, 0, 3.0, -40.0, 1.0, 0.0, ATOMGPU_EXCHANGE_NONE};
    static double hm[64 * 64], sm[64 * 64], vectors[64];
    double energy = NAN;
    const int32_t zero[1] = {0};
    if (status_is(atomgpu_sturmian_hamiltonian(h, &params, 1, zero, zero, ATOMGPU_ORDER_A_FASTEST, hm, n * n, n * n, sm,
                                               n * n, n * n),
                  ATOMGPU_OK, NULL) ||
        status_is(atomgpu_sturmian_solve(n * n, hm, n * n, sm, n * n, 1, &energy, vectors, n * n, 1), ATOMGPU_OK, NULL))
        return NAN;
    return energy;
}

/* The case: Coulomb Sturmians generated for Z = 0 at E = -1/2 (-1/r generating
 * potential, lambda = 1; the first is hydrogen's 1s) used for hydrogen (Z = 1) give the lowest
 * level of two independent electrons 2 (-1/2) = -1 (closed form), not 2 x 0.01555. */
static int case_stg_z0_sturmians_for_hydrogen(void) {
    const atomgpu_gsf_params gsf = {0.0, -0.5, 1.0, 1e12, 16, 1.0};
    atomgpu_sturmian *h = NULL;
    if (status_is(atomgpu_sturmian_create(40.0, 60, 1, NULL, NULL, 0, &h), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, 6, &gsf, NULL), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_B, 0, 6, &gsf, NULL), ATOMGPU_OK, NULL))
        return 1;
    double e = stg_lowest_hydrogen(h, 6);
    atomgpu_sturmian_destroy(h);
    return fabs(e + 1.0) <= 1e-9 ? 0 : fail("lowest level %.12f, want -1 (2 x hydrogen's -1/2)", e);
}

/* The parent counts the issue found refused ("not decayed at Rmax"): 40 parents with lambda = 1
 * on Rmax = 50 (Coulomb Sturmians, Z = 0, E = -1/2, 30 functions: beta_0 = 1, closed form), and
 * 42 parents for the helium example's GSFs (Z = 2, E = -2.2, 2 e^-r/r, lambda = 2, 32 functions,
 * its grid of 40 bohr). */
static int case_stg_parents_past_rmax(void) {
    const atomgpu_gsf_params coulomb = {0.0, -0.5, 1.0, 1e12, 40, 1.0}, helium = {2.0, -2.2, 2.0, 1.0, 42, 2.0};
    double beta[32];
    atomgpu_sturmian *h = NULL;
    fill(beta, 32, SENTINEL);
    if (status_is(atomgpu_sturmian_create(50.0, 100, 1, NULL, NULL, 0, &h), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, 30, &coulomb, beta), ATOMGPU_OK, NULL))
        return 1;
    atomgpu_sturmian_destroy(h);
    if (fabs(beta[0] - 1.0) > 1e-9 || !all_finite(beta, 30)) return fail("Coulomb beta_0 = %.12f, want 1", beta[0]);
    h = NULL;
    if (status_is(atomgpu_sturmian_create(40.0, 160, 9, NULL, NULL, 0, &h), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_sturmian_add_gsf(h, ATOMGPU_ELECTRON_A, 0, 32, &helium, beta), ATOMGPU_OK, NULL))
        return 1;
    atomgpu_sturmian_destroy(h);
    return all_finite(beta, 32) ? 0 : fail("helium beta not finite");
}

/* A channel added without U or E: channel_values refuses to give them (naming central and energy,
 * outputs untouched) and gives what it has. */
static int case_stg_values_without_u_or_e(void) {
    atomgpu_sturmian *h = make_st();
    double central[ST_NQ], energy = SENTINEL, beta[2];
    fill(central, ST_NQ, SENTINEL), fill(beta, 2, SENTINEL);
    if (status_is(atomgpu_sturmian_add_channel(h, ATOMGPU_ELECTRON_B, 1, 2, st_values, ST_NP, st_beta, st_generating,
                                               NULL),
                  ATOMGPU_OK, NULL))
        return 1;
    if (refused(atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_B, 1, NULL, 0, 0, beta, 2, NULL, central, NULL), 10,
                "central"))
        return 1;
    if (refused(atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_B, 1, NULL, 0, 0, beta, 2, NULL, NULL, &energy), 11,
                "energy"))
        return 1;
    if (!all_equal(central, ST_NQ, SENTINEL) || energy != SENTINEL || !all_equal(beta, 2, SENTINEL))
        return fail("an output was written on error");
    if (status_is(atomgpu_sturmian_channel_values(h, ATOMGPU_ELECTRON_B, 1, NULL, 0, 0, beta, 2, NULL, NULL, NULL),
                  ATOMGPU_OK, NULL))
        return 1;
    return beta[0] == st_beta[0] && beta[1] == st_beta[1] ? 0 : fail("beta read back %g %g", beta[0], beta[1]);
}

#define RELIABILITY_STURMIAN_GSF_ARGUMENTS                                                                  \
    {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 1, "handle", "n"},                   \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 2, "electron", "m"},             \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 3, "l", "m"},                    \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 4, "n", "zmh"},                  \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 5, "values", "nai"},             \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 6, "ld_values", "zmh"},          \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 7, "beta", "nai"},               \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 8, "generating", "nai"},         \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 9, "central", "ai"},             \
        {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy", 10, "energy", "ai"},             \
        {call_stg_channel_values, "sturmian_channel_values", 1, "handle", "n"},                             \
        {call_stg_channel_values, "sturmian_channel_values", 2, "electron", "m"},                           \
        {call_stg_channel_values, "sturmian_channel_values", 3, "l", "m"},                                  \
        {call_stg_channel_values, "sturmian_channel_values", 5, "ld_values", "zmh"},                        \
        {call_stg_channel_values, "sturmian_channel_values", 6, "cols_values", "zmh"},                      \
        {call_stg_channel_values, "sturmian_channel_values", 8, "len_beta", "zmh"},
#define RELIABILITY_STURMIAN_GSF_VALID                                   \
    {call_stg_add_channel_at_energy, "sturmian_add_channel_at_energy"}, \
        {call_stg_channel_values, "sturmian_channel_values"},
#define RELIABILITY_STURMIAN_GSF_SPECIAL                                                                          \
    {"sturmian_add_gsf: Coulomb Sturmians for Z = 0 used for hydrogen give -1/2 a level",                          \
     case_stg_z0_sturmians_for_hydrogen},                                                                         \
        {"sturmian_add_gsf: 40 parents past Rmax = 50, 42 for the helium GSFs", case_stg_parents_past_rmax},      \
        {"sturmian_channel_values: U and E of a channel that has none", case_stg_values_without_u_or_e},
