/* Reliability cases of the tdse part, included by tests/c/test_reliability.c (see there): the
 * potential read-back's arguments, runaway runs (2^40 steps under a time limit and under a
 * stopping callback, for step and relax, on one member and on two), wavefunctions whose norm
 * overflows, the observables' NOT_FINITE, and the slab-mismatch message. The fixtures
 * (make_tdse, fixture_tdse, td_grid, td_psi, td_ion) are the suite's. */

static int32_t call_td_potential_slice(void) {
    double v[16];
    fill(v, 16, SENTINEL);
    int32_t s = atomgpu_tdse_potential_slice(P(fixture_tdse, 1), BRK(K_NEG, 2) ? -1 : ATOMGPU_TDSE_SLICE_SECOND,
                                             BRK(K_NEG, 3) ? -1 : 1, X(0.5, 4), P(v, 5), N(16, 6));
    untouched = all_equal(v, 16, SENTINEL), finite = all_finite(v, 16);
    return s;
}

/* A handle on the fixture's grid with the ion at rest (any run length is inside its trajectory)
 * and the fixture's wavefunction; `n_devices` members. NULL (with a message) on failure. */
static atomgpu_tdse *td_resting(int32_t n_devices) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.n_devices = n_devices;
    const double t0[1] = {0.0}, r0[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < TD_N; i++) td_psi[2 * i] = 1.0 + 0.01 * i, td_psi[2 * i + 1] = 0.5 - 0.02 * i;
    atomgpu_tdse *h = NULL;
    if (atomgpu_tdse_create(&g, &p, &h) != ATOMGPU_OK ||
        atomgpu_tdse_set_potential(h, &td_ion, NULL, NULL, 1, t0, r0) != ATOMGPU_OK ||
        atomgpu_tdse_set_wavefunction(h, td_psi, TD_N, 0.0) != ATOMGPU_OK) {
        fail("TDSE handle at rest: %s", message());
        return NULL;
    }
    return h;
}

static double td_seconds_since(const struct timespec *start) {
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    return (double)(end.tv_sec - start->tv_sec) + 1e-9 * (double)(end.tv_nsec - start->tv_nsec);
}

/* step(2^40) (n_devices members) under a 1 ms time limit: CANCELLED within seconds, the handle
 * at a completed step (time = steps tau, the count in the message), and it steps on. */
static int td_step_time_limit(int32_t n_devices) {
    atomgpu_tdse *h = td_resting(n_devices);
    if (h == NULL) return 1;
    /* One step first: on a GPU the first run compiles the kernels, which no limit interrupts. */
    if (status_is(atomgpu_tdse_step(h, 1), ATOMGPU_OK, NULL)) return 1;
    if (status_is(atomgpu_set_time_limit(0.001), ATOMGPU_OK, NULL)) return 1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int32_t s = atomgpu_tdse_step(h, (int64_t)1 << 40);
    double seconds = td_seconds_since(&start);
    /* (Each case is a child process: a limit left set on an early return ends with it.) */
    if (status_is(s, ATOMGPU_ERR_CANCELLED, "time limit") || status_is(s, ATOMGPU_ERR_CANCELLED, "of the 1099511627776 steps"))
        return 1;
    atomgpu_set_time_limit(0.0);
    if (seconds > 10.0) return fail("stopped only after %.1f s", seconds);
    double t = SENTINEL, rho0 = 0.0, norm = 0.0;
    int64_t steps = ISENTINEL, rings = 0;
    if (status_is(atomgpu_tdse_state(h, &t, &steps, &rho0, &rings), ATOMGPU_OK, NULL)) return 1;
    if (!(steps >= 1 && fabs(t - 0.005 * (double)steps) < 1e-9 * (double)steps))
        return fail("state after the stop: t = %g after %lld steps", t, (long long)steps);
    if (status_is(atomgpu_tdse_step(h, 2), ATOMGPU_OK, NULL)) return 1;
    if (status_is(atomgpu_tdse_norm(h, &norm), ATOMGPU_OK, NULL)) return 1;
    return isfinite(norm) && norm > 0.0 ? 0 : fail("norm %g after continuing", norm);
}

static int case_td_step_time_limit(void) { return td_step_time_limit(1); }

/* Two members (CPU threads, or two GPUs): the calling thread's limit stops both. */
static int case_td_step_time_limit_team(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.n_devices = 2;
    atomgpu_tdse *probe = NULL;
    int32_t s = atomgpu_tdse_create(&g, &p, &probe);
    if (s == ATOMGPU_ERR_INVALID_ARGUMENT && strstr(message(), "this process sees") != NULL) {
        printf("    (one GPU: two members need two; the CPU run of this case covers the team)\n");
        return 0;
    }
    if (status_is(s, ATOMGPU_OK, NULL)) return 1;
    atomgpu_tdse_destroy(probe);
    return td_step_time_limit(2);
}

/* step(2^40) with a callback that stops it at its 3rd report: CANCELLED after step 3, the
 * handle at step 3 — the same wavefunction, bit for bit, as a handle stepped 3 times. */
static int case_td_step_callback(void) {
    atomgpu_tdse *h = td_resting(1), *ref = td_resting(1);
    if (h == NULL || ref == NULL) return 1;
    struct progress_record r = {0, 3, 0.0, 0.0, ""};
    if (status_is(atomgpu_set_progress(record_progress, &r, 0.0), ATOMGPU_OK, NULL)) return 1;
    int32_t s = atomgpu_tdse_step(h, (int64_t)1 << 40);
    if (status_is(s, ATOMGPU_ERR_CANCELLED, "progress callback") || status_is(s, s, "after 3 of the")) return 1;
    atomgpu_set_progress(NULL, NULL, 0.0);
    if (strcmp(r.task, "atomgpu_tdse_step") != 0) return fail("task \"%s\"", r.task);
    if (r.calls != 3 || r.done != 3.0 || r.total != 1099511627776.0) return fail("reports: %d, last %g of %g", r.calls, r.done, r.total);
    double t = 0.0, rho0 = 0.0, a[2 * TD_N], b[2 * TD_N];
    int64_t steps = 0, rings = 0;
    if (status_is(atomgpu_tdse_state(h, &t, &steps, &rho0, &rings), ATOMGPU_OK, NULL)) return 1;
    if (steps != 3) return fail("%lld steps kept, want 3", (long long)steps);
    if (status_is(atomgpu_tdse_step(ref, 3), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_get_wavefunction(h, a, TD_N), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_get_wavefunction(ref, b, TD_N), ATOMGPU_OK, NULL))
        return 1;
    return memcmp(a, b, sizeof a) == 0 ? 0 : fail("the stopped handle is not at step 3");
}

/* relax(2^40) under a 1 ms time limit, and stopped by the callback at once: CANCELLED, energy,
 * steps and converged untouched, the handle normalised. */
static int td_relax_stopped(int by_callback) {
    atomgpu_tdse *h = td_resting(1);
    if (h == NULL) return 1;
    struct progress_record r = {0, 1, 0.0, 0.0, ""};
    if (by_callback)
        atomgpu_set_progress(record_progress, &r, 0.0);
    else
        atomgpu_set_time_limit(0.001);
    double e = SENTINEL, norm = 0.0;
    int64_t steps = ISENTINEL;
    int32_t converged = ISENTINEL;
    int32_t s = atomgpu_tdse_relax(h, (int64_t)1 << 40, 1e-300, &e, &steps, &converged);
    if (status_is(s, ATOMGPU_ERR_CANCELLED, by_callback ? "progress callback" : "time limit")) return 1;
    atomgpu_set_progress(NULL, NULL, 0.0);
    atomgpu_set_time_limit(0.0);
    if (by_callback && strcmp(r.task, "atomgpu_tdse_relax") != 0) return fail("task \"%s\"", r.task);
    if (e != SENTINEL || steps != ISENTINEL || converged != ISENTINEL) return fail("an output was written");
    if (status_is(atomgpu_tdse_norm(h, &norm), ATOMGPU_OK, NULL)) return 1;
    return fabs(norm - 1.0) < 1e-12 ? 0 : fail("norm %.15g after the stop, want 1", norm);
}

static int case_td_relax_time_limit(void) { return td_relax_stopped(0); }
static int case_td_relax_callback(void) { return td_relax_stopped(1); }

static int case_td_step_2_40_plus_1(void) {
    atomgpu_tdse *h = td_resting(1);
    if (h == NULL) return 1;
    double e = SENTINEL;
    int64_t steps = ISENTINEL;
    int32_t converged = ISENTINEL;
    return refused(atomgpu_tdse_step(h, ((int64_t)1 << 40) + 1), 2, "n_steps") ||
           refused(atomgpu_tdse_relax(h, ((int64_t)1 << 40) + 1, 1e-3, &e, &steps, &converged), 2, "max_steps");
}

/* A wavefunction whose norm overflows is refused naming it, and the handle keeps its own. */
static int td_huge_psi(int one_point, int reference) {
    atomgpu_tdse *h = td_resting(1);
    if (h == NULL) return 1;
    double huge[2 * TD_N], norm0 = 0.0, norm1 = 0.0;
    for (int i = 0; i < 2 * TD_N; i++) huge[i] = one_point ? td_psi[i] : 1e300;
    if (one_point) huge[10] = DBL_MAX;
    if (status_is(atomgpu_tdse_norm(h, &norm0), ATOMGPU_OK, NULL)) return 1;
    int32_t s = reference ? atomgpu_tdse_set_reference(h, huge, TD_N) : atomgpu_tdse_set_wavefunction(h, huge, TD_N, 0.0);
    if (refused(s, 2, reference ? "phi" : "psi") || status_is(s, s, "overflows")) return 1;
    if (status_is(atomgpu_tdse_norm(h, &norm1), ATOMGPU_OK, NULL)) return 1;
    return norm1 == norm0 ? 0 : fail("the handle's norm changed from %g to %g", norm0, norm1);
}

static int case_td_psi_1e300(void) { return td_huge_psi(0, 0); }
static int case_td_psi_dbl_max(void) { return td_huge_psi(1, 0); }
static int case_td_phi_1e300(void) { return td_huge_psi(0, 1); }

/* A complex-float handle refuses a psi with one value of 1e39 (finite in double, Inf in single)
 * naming `psi`, and keeps its wavefunction. */
static int case_td_float_psi_1e39(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.storage = ATOMGPU_TDSE_COMPLEX_FLOAT;
    atomgpu_tdse *h = NULL;
    if (status_is(atomgpu_tdse_create(&g, &p, &h), ATOMGPU_OK, NULL)) return 1;
    for (int i = 0; i < TD_N; i++) td_psi[2 * i] = 1.0 + 0.01 * i, td_psi[2 * i + 1] = 0.5 - 0.02 * i;
    if (status_is(atomgpu_tdse_set_wavefunction(h, td_psi, TD_N, 0.0), ATOMGPU_OK, NULL)) return 1;
    double big[2 * TD_N], back[2 * TD_N];
    memcpy(big, td_psi, sizeof big);
    big[2 * 5 + 1] = 1e39;
    if (refused(atomgpu_tdse_set_wavefunction(h, big, TD_N, 0.0), 2, "psi")) return 1;
    if (strstr(message(), "complex-float") == NULL) return fail("message: %s", message());
    if (status_is(atomgpu_tdse_get_wavefunction(h, back, TD_N), ATOMGPU_OK, NULL)) return 1;
    for (int i = 0; i < 2 * TD_N; i++)
        if (back[i] != (double)(float)td_psi[i]) return fail("the wavefunction changed at %d", i);
    return status_is(atomgpu_tdse_destroy(h), ATOMGPU_OK, NULL);
}

/* One point of psi at 1e154: its norm is finite, but psi* H psi >= |psi|^2/dx^2 overflows the
 * energy: NOT_FINITE naming `energy`, the output untouched; the norm, population, overlap and
 * density stay finite with status 0. */
static int case_td_energy_not_finite(void) {
    atomgpu_tdse *h = td_resting(1);
    if (h == NULL) return 1;
    double spike[2 * TD_N];
    fill(spike, 2 * TD_N, 0.0);
    spike[2 * 9] = 1e154;
    if (status_is(atomgpu_tdse_set_wavefunction(h, spike, TD_N, 0.0), ATOMGPU_OK, NULL)) return 1;
    double e = SENTINEL, norm = 0.0, pop = 0.0, density[16];
    if (status_is(atomgpu_tdse_energy(h, &e), ATOMGPU_ERR_NOT_FINITE, "`energy`")) return 1;
    if (e != SENTINEL) return fail("energy written: %g", e);
    if (status_is(atomgpu_tdse_norm(h, &norm), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_population(h, 1.0, &pop), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_density_slice(h, ATOMGPU_TDSE_SLICE_SECOND, 1, density, 16), ATOMGPU_OK, NULL))
        return 1;
    return isfinite(norm) && isfinite(pop) && all_finite(density, 16) ? 0 : fail("a finite observable is not");
}

/* A bare Coulomb ion (soft_core 0) exactly on a grid point of a Cartesian grid: U = -Inf there,
 * NOT_FINITE naming `potential` and the element, the output untouched; the energy of a
 * wavefunction there is NOT_FINITE too. */
static int case_td_potential_not_finite(void) {
    atomgpu_tdse_grid g = {ATOMGPU_TDSE_CARTESIAN, 4, 4, 4, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0, 4};
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    atomgpu_tdse *h = NULL;
    const atomgpu_tdse_ion bare = {1.0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0};
    const double t0[1] = {0.0}, r0[3] = {0.5, 1.0, 0.5};
    if (status_is(atomgpu_tdse_create(&g, &p, &h), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_set_potential(h, &bare, NULL, NULL, 1, t0, r0), ATOMGPU_OK, NULL))
        return 1;
    double plane[16], psi[2 * 64], e = SENTINEL;
    fill(plane, 16, SENTINEL);
    int32_t s = atomgpu_tdse_potential_slice(h, ATOMGPU_TDSE_SLICE_X, 1, 0.0, plane, 16);
    if (status_is(s, ATOMGPU_ERR_NOT_FINITE, "`potential`[9]")) return 1;
    if (!all_equal(plane, 16, SENTINEL)) return fail("the slice was written");
    fill(psi, 2 * 64, 0.1);
    if (status_is(atomgpu_tdse_set_wavefunction(h, psi, 64, 0.0), ATOMGPU_OK, NULL)) return 1;
    if (status_is(atomgpu_tdse_energy(h, &e), ATOMGPU_ERR_NOT_FINITE, "`energy`")) return 1;
    return e == SENTINEL ? 0 : fail("energy written");
}

/* The potential read back at the surface plane of a Chulkov Cu(111) surface given in eV, as that
 * paper's Table 1 prints it: (A10 + A1)/27.211386245988 hartree on every point of the plane. */
static int case_td_chulkov_ev(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    atomgpu_tdse *h = NULL;
    const atomgpu_tdse_surface cu111 = {ATOMGPU_TDSE_SURFACE_CHULKOV, -0.1, 0, 0, 0, 3.94, -11.895, 5.14, 4.3279, 2.9416};
    if (status_is(atomgpu_tdse_create(&g, &p, &h), ATOMGPU_OK, NULL) ||
        status_is(atomgpu_tdse_set_potential(h, NULL, &cu111, NULL, 0, NULL, NULL), ATOMGPU_OK, NULL))
        return 1;
    double plane[8];
    if (status_is(atomgpu_tdse_potential_slice(h, ATOMGPU_TDSE_SLICE_X, 1, 0.0, plane, 8), ATOMGPU_OK, NULL)) return 1;
    const double expected = (-11.895 + 5.14) / 27.211386245988;
    for (int i = 0; i < 8; i++)
        if (fabs(plane[i] - expected) > 1e-14) return fail("U[%d] = %.15g, want %.15g hartree", i, plane[i], expected);
    return 0;
}

#define RELIABILITY_TDSE_ARGUMENTS                                                                  \
    {call_td_potential_slice, "tdse_potential_slice", 1, "handle", "n"},                            \
    {call_td_potential_slice, "tdse_potential_slice", 2, "axis", "m"},                              \
    {call_td_potential_slice, "tdse_potential_slice", 3, "index", "m"},                             \
    {call_td_potential_slice, "tdse_potential_slice", 4, "time", "ai"},                             \
    {call_td_potential_slice, "tdse_potential_slice", 5, "potential", "n"},                         \
    {call_td_potential_slice, "tdse_potential_slice", 6, "n_values", "zmh"},

#define RELIABILITY_TDSE_VALID {call_td_potential_slice, "tdse_potential_slice"},

#define RELIABILITY_TDSE_SPECIAL                                                                    \
    {"tdse_step: 2^40 steps under a 1 ms time limit", case_td_step_time_limit},                     \
    {"tdse_step: 2^40 steps on two members under a 1 ms time limit", case_td_step_time_limit_team}, \
    {"tdse_step: the callback stops 2^40 steps at step 3", case_td_step_callback},                  \
    {"tdse_relax: 2^40 steps under a 1 ms time limit", case_td_relax_time_limit},                   \
    {"tdse_relax: the callback stops it", case_td_relax_callback},                                  \
    {"tdse_step, tdse_relax: 2^40 + 1 steps refused", case_td_step_2_40_plus_1},                    \
    {"tdse_set_wavefunction: values of 1e300 refused", case_td_psi_1e300},                          \
    {"tdse_set_wavefunction: one DBL_MAX point refused", case_td_psi_dbl_max},                      \
    {"tdse_set_reference: values of 1e300 refused", case_td_phi_1e300},                             \
    {"tdse_set_wavefunction: 1e39 refused by a complex-float handle", case_td_float_psi_1e39},       \
    {"tdse_energy: a psi of 1e154 is NOT_FINITE", case_td_energy_not_finite},                       \
    {"tdse_potential_slice: a bare ion on a grid point is NOT_FINITE", case_td_potential_not_finite}, \
    {"tdse_potential_slice: Chulkov Cu(111) in eV", case_td_chulkov_ev},
