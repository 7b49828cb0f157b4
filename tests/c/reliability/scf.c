/* Reliability cases of the scf part, included by tests/c/test_reliability.c (see there).
 *
 * Runaway calls: atomgpu_scf_run with a million cycles, thresholds 5e-324 and damping 0.999999,
 * atomgpu_scf_optimise_wtbs with a million evaluations, both under a 1 ms time limit and under a
 * progress callback that stops them (ATOMGPU_ERR_CANCELLED, outputs untouched, the reports' task,
 * done and total as documented); max_iterations = 2^62 refused; atomgpu_scf_integrals_create
 * stopped by its callback.
 * Extreme one-electron inputs, each computed right or given its documented status: the values are
 * mpmath's at 50 digits (tests/reference/scf_extremes_mpmath.py: the closed forms of
 * src/scf/one_electron.rs and quadrature of the defining integrals agree to 1e-30), S_ab = 2.8e-450
 * is below the double range (0); T of 1.5e308 overflows (ATOMGPU_ERR_NOT_FINITE at `free_hamiltonian`[0]);
 * c = 1e300 is outside [1, 1e5]; a point nucleus of Z = 140 >= c is refused, a Gaussian one
 * accepted; beyond the critical charge (Z = 175, Gaussian nucleus) the SCF is refused; Z = 1e308
 * makes the SCF energies overflow (ATOMGPU_ERR_NOT_FINITE); the supermatrix of one s function of
 * exponent 1e300 is sqrt(a/pi) (half the self-repulsion 2 sqrt(a/pi) of its density).
 */

static int scf_close(double got, double want, double tolerance, const char *what) {
    double error = want == 0.0 ? fabs(got) : fabs((got - want) / want);
    return error <= tolerance ? 0 : fail("%s = %.17g, mpmath %.17g (relative %.1e)", what, got, want, error);
}

/* Ne (s 10, p 6 functions), DFRATOM's damped iteration with thresholds no SCF meets and a million cycles:
 * hours unless stopped. With `c` (26 values), `d` (136) and `convergence` (2) through
 * atomgpu_scf_run_orbitals, else atomgpu_scf_run. */
static int32_t scf_runaway_with(double energies[4], double orbitals[3], int64_t *iterations, double *c, double *d,
                                double *convergence) {
    atomgpu_scf_params p = scf_params();
    p.nuclear_charge = 10.0, p.threshold_large = 5e-324, p.threshold_small = 5e-324;
    p.damping = 0.999999, p.max_iterations = 1000000, p.diis_size = 0;
    const int32_t angular[2] = {0, 1};
    const int64_t counts[2] = {10, 6}, closed[2] = {2, 1};
    const double open[2] = {0.0, 0.0};
    double exponents[16];
    for (int k = 0; k < 10; k++) exponents[k] = 0.1 * pow(2.5, k);
    for (int k = 0; k < 6; k++) exponents[10 + k] = 0.2 * pow(2.5, k);
    fill(energies, 4, SENTINEL), fill(orbitals, 3, SENTINEL), *iterations = ISENTINEL;
    if (c == NULL)
        return atomgpu_scf_run(&p, 2, angular, counts, exponents, closed, open, energies, 3, orbitals, iterations);
    return atomgpu_scf_run_orbitals(&p, 2, angular, counts, exponents, closed, open, energies, 3, orbitals, iterations, c,
                                    26, d, 136, convergence);
}

static int32_t scf_runaway(double energies[4], double orbitals[3], int64_t *iterations) {
    return scf_runaway_with(energies, orbitals, iterations, NULL, NULL, NULL);
}

static int scf_run_untouched(const double energies[4], const double orbitals[3], int64_t iterations) {
    return all_equal(energies, 4, SENTINEL) && all_equal(orbitals, 3, SENTINEL) && iterations == ISENTINEL
               ? 0
               : fail("an output was written");
}

/* Helium in n s functions (one WTBS group from (0.4, 2, 1, 0.5), rho 0.2 ... rho_end). */
static int32_t scf_optimise_helium(int64_t n, double rho_end, int64_t max_evaluations, int *untouched_out) {
    atomgpu_scf_params p = scf_params();
    const int32_t angular[1] = {0};
    const int64_t closed[1] = {1}, one[1] = {1}, nbs[1] = {n};
    const double open[1] = {0.0}, wtbspara[4] = {0.4, 2.0, 1.0, 0.5};
    double optimised[4], exponents[10], e[4];
    int64_t evaluations = ISENTINEL;
    int32_t converged = ISENTINEL;
    fill(optimised, 4, SENTINEL), fill(exponents, 10, SENTINEL), fill(e, 4, SENTINEL);
    const atomgpu_scf_wtbs_settings settings = {1, wtbspara, nbs, one, one, 0.2, rho_end, max_evaluations};
    int32_t s = atomgpu_scf_optimise_wtbs(&p, 1, angular, closed, open, &settings, optimised, n, exponents, e,
                                          &evaluations, &converged);
    *untouched_out = all_equal(optimised, 4, SENTINEL) && all_equal(exponents, 10, SENTINEL) &&
                     all_equal(e, 4, SENTINEL) && evaluations == ISENTINEL && converged == ISENTINEL;
    return s;
}

static int case_scf_run_2_62(void) {
    atomgpu_scf_params p = scf_params();
    p.max_iterations = HUGE_SIZE;
    double e[4], eps[1];
    int64_t iterations = ISENTINEL;
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL);
    int32_t s = atomgpu_scf_run(&p, 2, scf_angular, scf_counts, scf_exponents, scf_closed, scf_open, e, 1, eps,
                                &iterations);
    if (refused(s, 1, "params")) return 1;
    if (strstr(message(), "max_iterations") == NULL) return fail("message lacks max_iterations: %s", message());
    return all_equal(e, 4, SENTINEL) && iterations == ISENTINEL ? 0 : fail("an output was written");
}

static int case_scf_run_time_limit(void) {
    double e[4], eps[3];
    int64_t iterations;
    if (status_is(atomgpu_set_time_limit(0.001), ATOMGPU_OK, NULL)) return 1;
    if (status_is(scf_runaway(e, eps, &iterations), ATOMGPU_ERR_CANCELLED, "time limit")) return 1;
    if (scf_run_untouched(e, eps, iterations)) return 1;
    return status_is(atomgpu_set_time_limit(0.0), ATOMGPU_OK, NULL);
}

/* atomgpu_scf_run_orbitals on the runaway SCF under a 1 ms time limit: CANCELLED, every output
 * (coefficients, densities and convergence too) untouched. */
static int case_scf_run_orbitals_time_limit(void) {
    double e[4], eps[3], c[26], d[136], convergence[2];
    int64_t iterations;
    fill(c, 26, SENTINEL), fill(d, 136, SENTINEL), fill(convergence, 2, SENTINEL);
    if (status_is(atomgpu_set_time_limit(0.001), ATOMGPU_OK, NULL)) return 1;
    if (status_is(scf_runaway_with(e, eps, &iterations, c, d, convergence), ATOMGPU_ERR_CANCELLED, "time limit"))
        return 1;
    if (scf_run_untouched(e, eps, iterations)) return 1;
    if (!all_equal(c, 26, SENTINEL) || !all_equal(d, 136, SENTINEL) || !all_equal(convergence, 2, SENTINEL))
        return fail("an orbital output was written");
    return status_is(atomgpu_set_time_limit(0.0), ATOMGPU_OK, NULL);
}

static int case_scf_run_callback_stops(void) {
    double e[4], eps[3];
    int64_t iterations;
    struct progress_record r = {0, 3, 0.0, 0.0, ""};
    if (status_is(atomgpu_set_progress(record_progress, &r, 0.0), ATOMGPU_OK, NULL)) return 1;
    if (status_is(scf_runaway(e, eps, &iterations), ATOMGPU_ERR_CANCELLED, "progress callback")) return 1;
    if (scf_run_untouched(e, eps, iterations)) return 1;
    if (strcmp(r.task, "atomgpu_scf_run") != 0) return fail("task \"%s\"", r.task);
    /* Reports: the supermatrix done (1.0 of the first cycle's unit), cycle 1, cycle 2. */
    return r.done == 2.0 && r.total == 1e6 ? 0 : fail("third report %g of %g, want 2 of 1e6", r.done, r.total);
}

static int case_scf_run_callback_to_the_end(void) {
    atomgpu_scf_params p = scf_params();
    double e[4], eps[1];
    int64_t iterations;
    struct progress_record r = {0, -1, 0.0, 0.0, ""};
    atomgpu_set_progress(record_progress, &r, 0.0);
    int32_t s = atomgpu_scf_run(&p, 2, scf_angular, scf_counts, scf_exponents, scf_closed, scf_open, e, 1, eps,
                                &iterations);
    if (status_is(s, ATOMGPU_OK, NULL)) return 1;
    return r.done == 50.0 && r.total == 50.0 ? 0 : fail("last report %g of %g, want 50 of 50", r.done, r.total);
}

static int case_scf_optimise_time_limit(void) {
    int untouched_outputs;
    if (status_is(atomgpu_set_time_limit(0.001), ATOMGPU_OK, NULL)) return 1;
    if (status_is(scf_optimise_helium(10, 1e-12, 1000000, &untouched_outputs), ATOMGPU_ERR_CANCELLED, "time limit"))
        return 1;
    if (!untouched_outputs) return fail("an output was written");
    return status_is(atomgpu_set_time_limit(0.0), ATOMGPU_OK, NULL);
}

static int case_scf_optimise_callback_stops(void) {
    int untouched_outputs;
    struct progress_record r = {0, 3, 0.0, 0.0, ""};
    atomgpu_set_progress(record_progress, &r, 0.0);
    if (status_is(scf_optimise_helium(10, 1e-12, 1000000, &untouched_outputs), ATOMGPU_ERR_CANCELLED,
                  "progress callback"))
        return 1;
    if (!untouched_outputs) return fail("an output was written");
    if (strcmp(r.task, "atomgpu_scf_optimise_wtbs") != 0) return fail("task \"%s\"", r.task);
    /* Within the start SCF: 0 SCFs completed, of max_evaluations + 2. */
    return r.done == 0.0 && r.total == 1000002.0 ? 0 : fail("third report %g of %g", r.done, r.total);
}

static int case_scf_integrals_callback_stops(void) {
    atomgpu_scf_params p = scf_params();
    atomgpu_scf_integrals *h = (atomgpu_scf_integrals *)&untouched, *before = h;
    struct progress_record r = {0, 1, 0.0, 0.0, ""};
    atomgpu_set_progress(record_progress, &r, 0.0);
    int32_t s = atomgpu_scf_integrals_create(&p, 2, scf_angular, scf_counts, scf_exponents, &h);
    if (status_is(s, ATOMGPU_ERR_CANCELLED, "progress callback")) return 1;
    if (h != before) return fail("the handle was written");
    return strcmp(r.task, "atomgpu_scf_integrals_create") == 0 ? 0 : fail("task \"%s\"", r.task);
}

/* One symmetry of two exponents: S, T, V (Hartree-Fock) into 2 x 2 matrices. */
static int32_t scf_pair(atomgpu_scf_params p, int32_t angular, double a, double b, double s[16], double t[16],
                        double v[16]) {
    const double exponents[2] = {a, b};
    fill(s, 16, SENTINEL), fill(t, 16, SENTINEL), fill(v, 16, SENTINEL);
    return atomgpu_scf_one_electron(&p, angular, 2, exponents, s, t, v);
}

/* S_ab, T_aa, T_ab, V_aa, V_ab of Z = 1 (mpmath; tests/scf.rs's EXTREMES). */
static int scf_hf_extreme(int32_t l, double a, double b, double xi, const double want[5]) {
    atomgpu_scf_params p = scf_params();
    p.nuclear_charge = 1.0, p.nucleus_exponent = xi;
    if (xi > 0.0) p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
    double s[16], t[16], v[16];
    if (status_is(scf_pair(p, l, a, b, s, t, v), ATOMGPU_OK, NULL)) return 1;
    return scf_close(s[2], want[0], 1e-12, "S_ab") || scf_close(t[0], want[1], 1e-12, "T_aa") ||
           scf_close(t[2], want[2], 1e-12, "T_ab") || scf_close(v[0], want[3], 1e-12, "V_aa") ||
           scf_close(v[2], want[4], 1e-12, "V_ab") || scf_close(s[0], 1.0, 1e-15, "S_aa");
}

static int case_scf_one_electron_1e300(void) {
    const double point[5] = {0.9154520639587190025912343, 1.5e300, 1.830904127917438005182469e300,
                             -1.595769121605730711759784e150, -1.789168711907770443260773e150};
    const double gaussian[5] = {0.9154520639587190025912343, 1.5e300, 1.830904127917438005182469e300,
                                -35682.48232305542229077933, -32665.60208981159266216917};
    return scf_hf_extreme(0, 1e300, 2e300, 0.0, point) || scf_hf_extreme(0, 1e300, 2e300, 1e9, gaussian);
}

static int case_scf_one_electron_1e_300_1e300(void) {
    const double want[5] = {0.0, 1.5e-300, 0.0, -1.595769121605730711759784e-150, -3.191538243211461423519568e-300};
    return scf_hf_extreme(0, 1e-300, 1e300, 0.0, want);
}

static int case_scf_one_electron_1e_200(void) {
    const double want[5] = {0.9154520639587190025912343, 1.5e-200, 1.830904127917438005182469e-200,
                            -1.595769121605730711759784e-100, -1.789168711907770443260773e-100};
    return scf_hf_extreme(0, 1e-200, 2e-200, 0.0, want);
}

static int case_scf_one_electron_1e200(void) {
    const double want[5] = {0.9154520639587190025912343, 1.5e200, 1.830904127917438005182469e200,
                            -1.595769121605730711759784e100, -1.789168711907770443260773e100};
    return scf_hf_extreme(0, 1e200, 2e200, 0.0, want);
}

static int case_scf_one_electron_f_1e100(void) {
    const double want[5] = {0.7671968738091036764977314, 4.5e100, 4.603181242854622058986388e100,
                            -7.294944555911911825187585e49, -6.854478988200146873365185e49};
    return scf_hf_extreme(3, 1e100, 2e100, 0.0, want);
}

static int case_scf_one_electron_l20_1e150(void) {
    const double want[5] = {0.281909936461138711669306, 2.15e151, 8.081418178552643067853437e150,
                            -3.104489480511255617406759e74, -1.071880094342575850504303e74};
    return scf_hf_extreme(20, 1e150, 2e150, 0.0, want);
}

static int case_scf_one_electron_overflow(void) {
    atomgpu_scf_params p = scf_params();
    double s[16], t[16], v[16];
    if (status_is(scf_pair(p, 0, 1.5e308, 1.7e308, s, t, v), ATOMGPU_ERR_NOT_FINITE, "`free_hamiltonian`[0]")) return 1;
    return all_equal(s, 16, SENTINEL) && all_equal(t, 16, SENTINEL) && all_equal(v, 16, SENTINEL)
               ? 0
               : fail("an output was written");
}

static int case_scf_one_electron_c_1e300(void) {
    atomgpu_scf_params p = scf_params();
    p.method = ATOMGPU_SCF_DIRAC_FOCK, p.speed_of_light = 1e300;
    double s[16], t[16], v[16];
    if (refused(scf_pair(p, -1, 1.0, 2.0, s, t, v), 1, "params")) return 1;
    if (strstr(message(), "speed_of_light") == NULL) return fail("message lacks speed_of_light: %s", message());
    return all_equal(s, 16, SENTINEL) ? 0 : fail("an output was written");
}

/* Dirac-Fock (kappa = -1, c = 137.03599976, Z = 1) of 1e300 and 2e300: S^SS_ab, Pi_ab,
 * -2c^2 S^SS_ab, V^SS_ab (mpmath; tests/scf_dirac.rs's DIRAC_EXTREMES). */
static int case_scf_one_electron_dirac_1e300(void) {
    atomgpu_scf_params p = scf_params();
    p.method = ATOMGPU_SCF_DIRAC_FOCK, p.nuclear_charge = 1.0;
    double s[16], t[16], v[16];
    if (status_is(scf_pair(p, -1, 1e300, 2e300, s, t, v), ATOMGPU_OK, NULL)) return 1;
    if (!all_finite(s, 16) || !all_finite(t, 16) || !all_finite(v, 16)) return fail("a non-finite element");
    /* 4 x 4 over (large a, large b, small a, small b): (i, j) at i + 4 j. */
    return scf_close(s[2 + 4 * 3], 0.8630964830352416360599478, 1e-12, "S^SS_ab") ||
           scf_close(t[4 * 3], 2.048588105935873537029721e152, 1e-12, "Pi_ab") ||
           scf_close(t[2 + 4 * 3], -32415.94507119602584494087, 1e-12, "-2c^2 S^SS_ab") ||
           scf_close(v[2 + 4 * 3], -1.124562959001586596411476e150, 1e-12, "V^SS_ab");
}

static int case_scf_one_electron_z140(void) {
    atomgpu_scf_params p = scf_params();
    p.method = ATOMGPU_SCF_DIRAC_FOCK, p.nuclear_charge = 140.0;
    double s[16], t[16], v[16];
    if (refused(scf_pair(p, -1, 1.0, 2.0, s, t, v), 1, "params")) return 1;
    if (strstr(message(), "nuclear_charge") == NULL) return fail("message lacks nuclear_charge: %s", message());
    if (!all_equal(v, 16, SENTINEL)) return fail("an output was written");
    p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
    p.nucleus_exponent = 9.726116378227422e7; /* Visscher and Dyall, A = 370 */
    if (status_is(scf_pair(p, -1, 1.0, 2.0, s, t, v), ATOMGPU_OK, NULL)) return 1;
    return all_finite(v, 16) ? 0 : fail("a non-finite element");
}

/* Dirac-Fock of one s1/2 electron, Gaussian nucleus (A = 370), 36 exponents 0.5 2^k: Z = 175 is
 * beyond the critical charge (1s1/2 below -2c^2), refused at `params` before the supermatrix. */
static int case_scf_run_beyond_critical_charge(void) {
    atomgpu_scf_params p = scf_params();
    p.method = ATOMGPU_SCF_DIRAC_FOCK, p.nuclear_charge = 175.0, p.nucleus_exponent = 9.726116378227422e7;
    p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN;
    const int32_t angular[1] = {-1};
    const int64_t counts[1] = {36}, closed[1] = {0};
    const double open[1] = {1.0};
    double exponents[36], e[4], eps[1];
    int64_t iterations = ISENTINEL;
    for (int k = 0; k < 36; k++) exponents[k] = 0.5 * pow(2.0, k);
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL);
    int32_t s = atomgpu_scf_run(&p, 1, angular, counts, exponents, closed, open, e, 1, eps, &iterations);
    if (refused(s, 1, "params")) return 1;
    if (strstr(message(), "critical") == NULL) return fail("message lacks \"critical\": %s", message());
    return all_equal(e, 4, SENTINEL) && iterations == ISENTINEL ? 0 : fail("an output was written");
}

static int case_scf_run_z_1e308(void) {
    atomgpu_scf_params p = scf_params();
    p.nuclear_charge = 1e308;
    double e[4], eps[1];
    int64_t iterations = ISENTINEL;
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL);
    int32_t s = atomgpu_scf_run(&p, 2, scf_angular, scf_counts, scf_exponents, scf_closed, scf_open, e, 1, eps,
                                &iterations);
    if (status_is(s, ATOMGPU_ERR_NOT_FINITE, "`energies`")) return 1;
    return all_equal(e, 4, SENTINEL) && iterations == ISENTINEL ? 0 : fail("an output was written");
}

static int case_scf_run_orbitals_z_1e308(void) {
    atomgpu_scf_params p = scf_params();
    p.nuclear_charge = 1e308;
    double e[4], eps[1], c[2], d[5], convergence[2];
    int64_t iterations = ISENTINEL;
    fill(e, 4, SENTINEL), fill(eps, 1, SENTINEL), fill(c, 2, SENTINEL), fill(d, 5, SENTINEL);
    fill(convergence, 2, SENTINEL);
    int32_t s = atomgpu_scf_run_orbitals(&p, 2, scf_angular, scf_counts, scf_exponents, scf_closed, scf_open, e, 1,
                                         eps, &iterations, c, 2, d, 5, convergence);
    if (status_is(s, ATOMGPU_ERR_NOT_FINITE, "`energies`")) return 1;
    return all_equal(e, 4, SENTINEL) && iterations == ISENTINEL && all_equal(c, 2, SENTINEL) &&
                   all_equal(d, 5, SENTINEL) && all_equal(convergence, 2, SENTINEL)
               ? 0
               : fail("an output was written");
}

static int case_scf_supermatrix_1e300(void) {
    atomgpu_scf_params p = scf_params();
    const int32_t angular[1] = {0};
    const int64_t counts[1] = {1};
    const double a = 1e300;
    atomgpu_scf_integrals *h = NULL;
    if (status_is(atomgpu_scf_integrals_create(&p, 1, angular, counts, &a, &h), ATOMGPU_OK, NULL)) return 1;
    double packed = SENTINEL;
    if (status_is(atomgpu_scf_integrals_supermatrix(h, 1, &packed), ATOMGPU_OK, NULL)) return 1;
    return scf_close(packed, sqrt(a / acos(-1.0)), 1e-13, "G = R^0 / 2");
}

/* atomgpu_scf_fermi_nucleus of Xe (A = 132, r_rms from A, t = 2.30 fm). */
static int32_t call_scf_fermi_nucleus(void) {
    double c = SENTINEL, a = SENTINEL;
    int32_t s = atomgpu_scf_fermi_nucleus(BRK(K_NEG, 1) ? -1.0 : X(132.0, 1), BRK(K_NEG, 2) ? -1.0 : X(0.0, 2),
                                          BRK(K_ZERO, 3) ? 0.0 : BRK(K_NEG, 3) ? -1.0 : X(2.30, 3), P(&c, 4), P(&a, 5));
    untouched = c == SENTINEL && a == SENTINEL, finite = isfinite(c) && isfinite(a);
    return s;
}

/* One field of a Fermi (or inconsistent) nucleus in atomgpu_scf_one_electron's params: refused at
 * `params` (position 1), the message naming the field, nothing written. */
static int scf_nucleus_field(atomgpu_scf_params p, const char *field) {
    double s[16], t[16], v[16];
    if (refused(scf_pair(p, 0, 1.0, 2.0, s, t, v), 1, "params")) return 1;
    if (strstr(message(), field) == NULL) return fail("message lacks %s: %s", field, message());
    return all_equal(v, 16, SENTINEL) ? 0 : fail("an output was written");
}

static atomgpu_scf_params scf_fermi_params(void) {
    atomgpu_scf_params p = scf_params();
    p.nucleus_model = ATOMGPU_SCF_NUCLEUS_FERMI, p.nucleus_mass_number = 132.0;
    return p;
}

static int case_scf_nucleus_fields(void) {
    atomgpu_scf_params p = scf_params();
    p.nucleus_model = 3;
    if (scf_nucleus_field(p, "nucleus_model")) return 1;
    p = scf_params(), p.nucleus_exponent = 1e9; /* ABI 7's Gaussian nucleus without the model */
    if (scf_nucleus_field(p, "nucleus_exponent")) return 1;
    p = scf_params(), p.nucleus_model = ATOMGPU_SCF_NUCLEUS_GAUSSIAN; /* no exponent */
    if (scf_nucleus_field(p, "nucleus_exponent")) return 1;
    p.nucleus_exponent = (double)NAN;
    if (scf_nucleus_field(p, "nucleus_exponent")) return 1;
    p = scf_fermi_params(), p.nucleus_exponent = 1e9;
    if (scf_nucleus_field(p, "nucleus_exponent")) return 1;
    const double bad_lengths[4] = {(double)NAN, (double)INFINITY, -1.0, 1e5};
    for (int i = 0; i < 4; i++) {
        p = scf_fermi_params(), p.nucleus_skin_thickness = bad_lengths[i];
        if (scf_nucleus_field(p, "nucleus_skin_thickness")) return 1;
        p = scf_fermi_params(), p.nucleus_rms_radius = bad_lengths[i];
        if (scf_nucleus_field(p, "nucleus_rms_radius")) return 1;
        p = scf_fermi_params(), p.nucleus_mass_number = i == 3 ? 0.5 : bad_lengths[i]; /* A >= 1 */
        if (scf_nucleus_field(p, "nucleus_mass_number")) return 1;
    }
    p = scf_fermi_params(), p.nucleus_skin_thickness = 0.0;
    if (scf_nucleus_field(p, "nucleus_skin_thickness")) return 1;
    p = scf_fermi_params(), p.nucleus_rms_radius = 1.8; /* below the c -> 0 limit 1.8827 fm of t = 2.30 fm */
    if (scf_nucleus_field(p, "nucleus_rms_radius")) return 1;
    p = scf_fermi_params(), p.nucleus_mass_number = 3.0; /* r_rms 1.776 fm by GRASP's formula */
    return scf_nucleus_field(p, "nucleus_mass_number");
}

/* A Fermi nucleus at Z = 140 > c in Dirac-Fock: accepted (a finite nucleus), as a Gaussian one. */
static int case_scf_fermi_z140(void) {
    atomgpu_scf_params p = scf_fermi_params();
    p.method = ATOMGPU_SCF_DIRAC_FOCK, p.nuclear_charge = 140.0, p.nucleus_mass_number = 370.0;
    double s[16], t[16], v[16];
    if (status_is(scf_pair(p, -1, 1.0, 2.0, s, t, v), ATOMGPU_OK, NULL)) return 1;
    return all_finite(v, 16) ? 0 : fail("a non-finite element");
}

#define RELIABILITY_SCF_ARGUMENTS                                                                                     \
    {call_scf_fermi_nucleus, "scf_fermi_nucleus", 1, "mass_number", "mai"},                                           \
        {call_scf_fermi_nucleus, "scf_fermi_nucleus", 2, "rms_radius", "mai"},                                        \
        {call_scf_fermi_nucleus, "scf_fermi_nucleus", 3, "skin_thickness", "zmai"},                                   \
        {call_scf_fermi_nucleus, "scf_fermi_nucleus", 4, "half_density_radius", "n"},                                 \
        {call_scf_fermi_nucleus, "scf_fermi_nucleus", 5, "diffuseness", "n"},
#define RELIABILITY_SCF_VALID {call_scf_fermi_nucleus, "scf_fermi_nucleus"},
#define RELIABILITY_SCF_SPECIAL                                                                                       \
    {"scf_run: max_iterations = 2^62", case_scf_run_2_62},                                                           \
        {"scf_one_electron: every nucleus field refused at params, named", case_scf_nucleus_fields},                \
        {"scf_one_electron: a Fermi nucleus holds Z = 140 in Dirac-Fock", case_scf_fermi_z140},                     \
        {"scf_run: a million cycles, thresholds 5e-324, damping 0.999999 under a 1 ms time limit",                  \
         case_scf_run_time_limit},                                                                                   \
        {"scf_run_orbitals: the runaway SCF under a 1 ms time limit", case_scf_run_orbitals_time_limit},              \
        {"scf_run_orbitals: Z = 1e308 is NOT_FINITE, nothing written", case_scf_run_orbitals_z_1e308},              \
        {"scf_run: the callback stops the runaway SCF", case_scf_run_callback_stops},                               \
        {"scf_run: the callback sees the SCF to its end", case_scf_run_callback_to_the_end},                        \
        {"scf_optimise_wtbs: a million evaluations under a 1 ms time limit", case_scf_optimise_time_limit},          \
        {"scf_optimise_wtbs: the callback stops the optimisation", case_scf_optimise_callback_stops},               \
        {"scf_integrals_create: the callback stops the supermatrix", case_scf_integrals_callback_stops},            \
        {"scf_one_electron: exponents 1e300, 2e300 (point and Gaussian nucleus)", case_scf_one_electron_1e300},     \
        {"scf_one_electron: exponents 1e-300, 1e300", case_scf_one_electron_1e_300_1e300},                          \
        {"scf_one_electron: exponents 1e-200, 2e-200 (S = 0.9155)", case_scf_one_electron_1e_200},                  \
        {"scf_one_electron: exponents 1e200, 2e200", case_scf_one_electron_1e200},                                  \
        {"scf_one_electron: f functions of 1e100", case_scf_one_electron_f_1e100},                                  \
        {"scf_one_electron: l = 20 with 1e150", case_scf_one_electron_l20_1e150},                                   \
        {"scf_one_electron: T of 1.5e308 overflows", case_scf_one_electron_overflow},                               \
        {"scf_one_electron: Dirac-Fock with c = 1e300", case_scf_one_electron_c_1e300},                            \
        {"scf_one_electron: Dirac-Fock exponents 1e300, 2e300", case_scf_one_electron_dirac_1e300},                 \
        {"scf_one_electron: Z = 140, point nucleus refused, Gaussian accepted", case_scf_one_electron_z140},        \
        {"scf_run: Z = 175 beyond the critical charge of a Gaussian nucleus", case_scf_run_beyond_critical_charge},  \
        {"scf_run: Z = 1e308 overflows the energies", case_scf_run_z_1e308},                                        \
        {"scf_integrals: one s function of 1e300", case_scf_supermatrix_1e300},
