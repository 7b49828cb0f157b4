/* Reliability cases of the sturmian part, included by tests/c/test_reliability.c (see there).
 *
 * Issue 28's Sturmian cases, each against an independent expectation:
 *  - atomgpu_sturmian_solve at the ends of double precision, on H = [[a, b], [b, a]],
 *    S = [[p, q], [q, p]], whose eigenpairs are E+- = (a +- b)/(p +- q),
 *    c+- = (1, +-1)/sqrt(2 (p +- q)): H = DBL_MAX {1, .1, .1, 1} with S = {1, .2, .2, 1} (k = 1:
 *    E+ = 11/12 DBL_MAX; k = 2: E- = 1.125 DBL_MAX overflows, so ATOMGPU_ERR_NOT_FINITE and nothing
 *    written), the same S scaled to 5e-324 (NOT_FINITE), and a subnormal S against H of 2^-1000
 *    (the right pairs); vectors = NULL gives the energies alone;
 *  - atomgpu_sturmian_grid with NULL outputs gives the others unchanged;
 *  - atomgpu_sturmian_hamiltonian / _one_electron_block with energies or charges at DBL_MAX: status
 *    ATOMGPU_ERR_NOT_FINITE with neither h nor s written (4 x 4), or both NaN in place
 *    (n = 55^2 = 3025: 73 MB each, over the 64 MiB of the scratch copy);
 *  - params.m = 1 at L = 0 and m = INT32_MIN refused at `params` naming the field `m`;
 *  - atomgpu_sturmian_angular at l = 100 and 200: exact values to the last bit, signs and values
 *    down to 1e-48 included (sympy's exact 3j and 6j symbols, tests/reference/
 *    sturmian_angular_exact.py), ten of them at l = 200 within the case's 60 s (the former
 *    eq. 18 sum took about a minute each). */

/* H = [[a, b], [b, a]] and S = [[p, q], [q, p]] solved for k pairs into sentinel-filled outputs. */
static int32_t st_solve_2x2(double a, double b, double p, double q, int64_t k, double e[2], double v[4]) {
    const double h[4] = {a, b, b, a}, s[4] = {p, q, q, p};
    fill(e, 2, SENTINEL), fill(v, 4, SENTINEL);
    return atomgpu_sturmian_solve(2, h, 2, s, 2, k, e, v, 2, 2);
}

static int st_close(const char *what, double got, double want, double tolerance) {
    if (fabs(got - want) <= tolerance * fabs(want)) return 0;
    return fail("%s: %.17g, want %.17g (relative %.1e)", what, got, want, fabs(got - want) / fabs(want));
}

static int case_st_solve_dbl_max(void) {
    double e[2], v[4];
    const double a = DBL_MAX, b = DBL_MAX * 0.1;
    if (status_is(st_solve_2x2(a, b, 1.0, 0.2, 1, e, v), ATOMGPU_OK, NULL)) return 1;
    /* (a + b)/1.2 with exact halvings, so that nothing overflows on the way. */
    if (st_close("E+", e[0], ((a / 2 + b / 2) / 1.2) * 2, 1e-15)) return 1;
    if (st_close("c+", fabs(v[0]), 1 / sqrt(2.4), 1e-14) || st_close("c+", fabs(v[1]), 1 / sqrt(2.4), 1e-14)) return 1;
    if (status_is(st_solve_2x2(a, b, 1.0, 0.2, 2, e, v), ATOMGPU_ERR_NOT_FINITE, "`energies`")) return 1;
    return all_equal(e, 2, SENTINEL) && all_equal(v, 4, SENTINEL) ? 0 : fail("an output was written");
}

static int case_st_solve_denormal_s(void) {
    double e[2], v[4];
    for (int i = 0; i < 2; i++) {
        double scale = i == 0 ? 1.0 : DBL_MAX;
        if (status_is(st_solve_2x2(scale, scale * 0.1, 5e-324, 5e-324 * 0.2, 1, e, v), ATOMGPU_ERR_NOT_FINITE,
                      "`energies`"))
            return 1;
        if (!all_equal(e, 2, SENTINEL) || !all_equal(v, 4, SENTINEL)) return fail("an output was written");
    }
    return 0;
}

static int case_st_solve_tiny(void) {
    double e[2], v[4];
    const double t = ldexp(1.0, -1000), u = ldexp(1.0, -1070); /* u is subnormal */
    if (status_is(st_solve_2x2(t, 0.1 * t, 4 * u, u, 2, e, v), ATOMGPU_OK, NULL)) return 1;
    if (st_close("E+", e[0], (1.0 + 0.1) / 5.0 * ldexp(1.0, 70), 1e-15)) return 1;
    if (st_close("E-", e[1], (1.0 - 0.1) / 3.0 * ldexp(1.0, 70), 1e-15)) return 1;
    return st_close("c+", fabs(v[0]), ldexp(1.0, 535) / sqrt(10.0), 1e-14);
}

static int case_st_solve_energies_only(void) {
    double e[4], e_only[4], v[16];
    fill(e, 4, SENTINEL), fill(e_only, 4, SENTINEL);
    if (status_is(atomgpu_sturmian_solve(4, st_h, 4, st_s, 4, 4, e, v, 4, 4), ATOMGPU_OK, NULL)) return 1;
    if (status_is(atomgpu_sturmian_solve(4, st_h, 4, st_s, 4, 4, e_only, NULL, 0, 0), ATOMGPU_OK, NULL)) return 1;
    for (int i = 0; i < 4; i++)
        if (st_close("energy without vectors", e_only[i], e[i], 1e-12)) return 1;
    return 0;
}

static int case_st_grid_null_outputs(void) {
    double a[ST_NQ], w[ST_NQ], p[ST_NP], a2[ST_NQ], w2[ST_NQ], p2[ST_NP];
    if (status_is(atomgpu_sturmian_grid(20.0, ST_NQ, 1, a, w, p), ATOMGPU_OK, NULL)) return 1;
    fill(a2, ST_NQ, SENTINEL), fill(w2, ST_NQ, SENTINEL), fill(p2, ST_NP, SENTINEL);
    if (status_is(atomgpu_sturmian_grid(20.0, ST_NQ, 1, a2, w2, NULL), ATOMGPU_OK, NULL)) return 1;
    if (memcmp(a, a2, sizeof a) != 0 || memcmp(w, w2, sizeof w) != 0) return fail("abscissas or weights differ");
    if (status_is(atomgpu_sturmian_grid(20.0, ST_NQ, 1, NULL, NULL, p2), ATOMGPU_OK, NULL)) return 1;
    if (memcmp(p, p2, sizeof p) != 0) return fail("points differ");
    return status_is(atomgpu_sturmian_grid(20.0, ST_NQ, 1, NULL, NULL, NULL), ATOMGPU_OK, NULL);
}

/* H and S of pair (0, 0) of `h` (n x n, ld n) by the Hamiltonian (`which` 0) or the one-electron
 * block (1), params `p`. */
static int32_t st_fill(atomgpu_sturmian *h, atomgpu_sturmian_params p, int which, int64_t n, double *hm, double *sm) {
    if (which == 0)
        return atomgpu_sturmian_hamiltonian(h, &p, 1, st_la, st_lb, ATOMGPU_ORDER_A_FASTEST, hm, n, n, sm, n, n);
    return atomgpu_sturmian_one_electron_block(h, &p, 0, 0, ATOMGPU_ORDER_A_FASTEST, hm, n, n, sm, n, n);
}

/* Energies at DBL_MAX (variant 0), and the charges too (1): H overflows while S is finite. */
static atomgpu_sturmian_params st_overflowing(int variant) {
    atomgpu_sturmian_params p = st_params();
    p.energy_a = p.energy_b = DBL_MAX;
    if (variant == 1) p.nuclear_charge = p.interaction_charge = DBL_MAX;
    return p;
}

static int case_st_overflow_small(void) {
    atomgpu_sturmian *h = make_st();
    double hm[16], sm[16];
    /* Channels of the caller's functions: they take the energies of params (a generated channel
     * keeps its own). */
    for (int e = 0; e < 2; e++)
        if (status_is(atomgpu_sturmian_add_channel(h, e, 0, 2, st_values, ST_NP, st_beta, st_generating, NULL), ATOMGPU_OK,
                      NULL))
            return 1;
    for (int which = 0; which < 2; which++) {
        for (int variant = 0; variant < 2; variant++) {
            fill(hm, 16, SENTINEL), fill(sm, 16, SENTINEL);
            if (status_is(st_fill(h, st_overflowing(variant), which, 4, hm, sm), ATOMGPU_ERR_NOT_FINITE, "`h`"))
                return 1;
            if (!all_equal(hm, 16, SENTINEL) || !all_equal(sm, 16, SENTINEL))
                return fail("%s: an output was written (s %s)", which == 0 ? "hamiltonian" : "one_electron_block",
                            all_equal(sm, 16, SENTINEL) ? "untouched" : "written");
        }
    }
    return status_is(atomgpu_sturmian_destroy(h), ATOMGPU_OK, NULL);
}

/* n = 55^2 = 3025: h and s of 73 MB each are written in place; a failure leaves both NaN. */
static int case_st_overflow_large(void) {
    enum { NF = 55 };
    const int64_t n = (int64_t)NF * NF;
    atomgpu_sturmian *h = make_st();
    double *values = malloc(sizeof(double) * ST_NP * NF), beta[NF];
    for (int f = 0; f < NF; f++) {
        beta[f] = 1.0 + 0.1 * f;
        for (int i = 0; i < ST_NP; i++) values[i + ST_NP * f] = st_points[i] * exp(-(0.2 + 0.05 * f) * st_points[i]);
    }
    for (int e = 0; e < 2; e++)
        if (status_is(atomgpu_sturmian_add_channel(h, e, 0, NF, values, ST_NP, beta, st_generating, NULL), ATOMGPU_OK,
                      NULL))
            return 1;
    free(values);
    double *hm = malloc(sizeof(double) * n * n), *sm = malloc(sizeof(double) * n * n);
    if (hm == NULL || sm == NULL) return fail("no memory for the test's matrices");
    for (int which = 0; which < 2; which++) {
        fill(hm, (size_t)(n * n), SENTINEL), fill(sm, (size_t)(n * n), SENTINEL);
        if (status_is(st_fill(h, st_overflowing(0), which, n, hm, sm), ATOMGPU_ERR_NOT_FINITE, "`h`")) return 1;
        for (int64_t i = 0; i < n * n; i++)
            if (!isnan(hm[i]) || !isnan(sm[i]))
                return fail("%s: element %lld of %s is %g, not NaN", which == 0 ? "hamiltonian" : "one_electron_block",
                            (long long)i, isnan(hm[i]) ? "s" : "h", isnan(hm[i]) ? sm[i] : hm[i]);
    }
    free(hm), free(sm);
    return status_is(atomgpu_sturmian_destroy(h), ATOMGPU_OK, NULL);
}

static int case_st_m_out_of_range(void) {
    atomgpu_sturmian *h = make_st();
    double hm[16], sm[16];
    const int32_t ms[2] = {1, INT32_MIN};
    for (int i = 0; i < 2; i++) {
        atomgpu_sturmian_params p = st_params(); /* L = 0 */
        p.m = ms[i];
        for (int which = 0; which < 2; which++) {
            fill(hm, 16, SENTINEL), fill(sm, 16, SENTINEL);
            if (refused(st_fill(h, p, which, 4, hm, sm), 2, "params")) return 1;
            if (strstr(message(), "`m`") == NULL) return fail("the message does not name the field `m`: %s", message());
            if (!all_equal(hm, 16, SENTINEL) || !all_equal(sm, 16, SENTINEL)) return fail("an output was written");
        }
    }
    return status_is(atomgpu_sturmian_destroy(h), ATOMGPU_OK, NULL);
}

/* (L, l'a, l'b, la, lb, l, A): exact values by tests/reference/sturmian_angular_exact.py. */
static const struct {
    int32_t lt, lpa, lpb, la, lb, l;
    double value;
} st_angular_exact[] = {
    {200, 100, 100, 100, 100, 100, 1.701223628438918078520694e-24},
    {0, 200, 200, 200, 200, 400, 1.798673854084365357615848},
    {0, 200, 200, 200, 200, 2, 0.09947369528495855796297704},
    {100, 200, 200, 200, 200, 200, 0.004618977486216221161858214},
    {200, 200, 200, 200, 200, 2, -0.01243537184008777808598906},
    {200, 200, 200, 200, 200, 398, 4.893117954506037926964831e-42},
    {150, 100, 100, 100, 100, 196, 4.714773596123245929527737e-48},
    {200, 100, 100, 100, 100, 140, 1.223807746792649857861490e-48},
    {143, 141, 64, 112, 35, 93, -0.0000005017391657339480735421561},
    {195, 91, 172, 177, 194, 188, -0.008942324293065980944091549},
    {191, 172, 192, 39, 157, 193, -0.0000009511948716026111748514994},
    {194, 53, 198, 8, 197, 51, -0.001945085689100055042425581},
};

static int case_st_angular_large_l(void) {
    for (size_t i = 0; i < sizeof st_angular_exact / sizeof st_angular_exact[0]; i++) {
        double a = SENTINEL;
        int32_t lt = st_angular_exact[i].lt, m = i % 2 == 0 ? 0 : -lt;
        if (status_is(atomgpu_sturmian_angular(lt, m, st_angular_exact[i].lpa, st_angular_exact[i].lpb,
                                               st_angular_exact[i].la, st_angular_exact[i].lb, st_angular_exact[i].l, &a),
                      ATOMGPU_OK, NULL))
            return 1;
        if (a != st_angular_exact[i].value)
            return fail("A(L %d M %d; %d %d | %d | %d %d) = %.17g, exact %.17g", (int)lt, (int)m,
                        (int)st_angular_exact[i].lpa, (int)st_angular_exact[i].lpb, (int)st_angular_exact[i].l,
                        (int)st_angular_exact[i].la, (int)st_angular_exact[i].lb, a, st_angular_exact[i].value);
    }
    return 0;
}

#define RELIABILITY_STURMIAN_ARGUMENTS
#define RELIABILITY_STURMIAN_VALID
#define RELIABILITY_STURMIAN_SPECIAL                                                                        \
    {"sturmian_solve: H = DBL_MAX {1, .1, .1, 1}, S = {1, .2, .2, 1}", case_st_solve_dbl_max},             \
    {"sturmian_solve: S = 5e-324 {1, .2, .2, 1}", case_st_solve_denormal_s},                                \
    {"sturmian_solve: H of 2^-1000, subnormal S", case_st_solve_tiny},                                      \
    {"sturmian_solve: vectors = NULL gives the energies alone", case_st_solve_energies_only},              \
    {"sturmian_grid: NULL outputs", case_st_grid_null_outputs},                                             \
    {"sturmian_hamiltonian, _one_electron_block: energies, charges at DBL_MAX", case_st_overflow_small},    \
    {"sturmian_hamiltonian, _one_electron_block: DBL_MAX, n = 3025 in place", case_st_overflow_large},     \
    {"sturmian_hamiltonian, _one_electron_block: m = 1 at L = 0, m = INT32_MIN", case_st_m_out_of_range}, \
    {"sturmian_angular: exact values at l = 100 and 200", case_st_angular_large_l},
