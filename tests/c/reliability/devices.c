/* Reliability cases of the device sets (issue 30: the _create_on_device_list entry points,
 * atomgpu_resolve_devices, atomgpu_handle_devices, atomgpu_device_count), included by
 * tests/c/test_reliability.c (see there). A valid device list on every machine: two CPU engines
 * (any two distinct ordinals) on the CPU backend, GPU {the handle's own} on a CUDA one. */

/* A valid list and its length for this machine's backend. */
static int32_t dv_list(int32_t ids[2]) {
    int32_t backend = ATOMGPU_BACKEND_CUDA, n = 0;
    atomgpu_device_info(&backend, NULL, 0, NULL, NULL, NULL, NULL);
    if (backend == ATOMGPU_BACKEND_CPU) {
        ids[0] = 5, ids[1] = 2;
        return 2;
    }
    atomgpu_resolve_devices(1, 1, &n, ids);
    return 1;
}

static int32_t call_dv_ls_create_on_device_list(void) {
    atomgpu_linestrength *h = (atomgpu_linestrength *)&untouched, *before = h;
    int32_t ids[2], n = dv_list(ids);
    int32_t s = atomgpu_linestrength_create_on_device_list(
        N(2, 1), A(dipole, 12, 2), N(2, 3), BRK(K_NEG, 4) ? -1 : 0, BRK(K_ZERO, 5) ? 0 : BRK(K_NEG, 5) ? -1 : n,
        P(ids, 6), BRK(K_NULL, 7) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_linestrength_destroy(h);
    return s;
}

static int32_t call_dv_st_create_on_device_list(void) {
    atomgpu_sturmian *h = (atomgpu_sturmian *)&untouched, *before = h;
    int32_t ids[2], n = dv_list(ids);
    int32_t s = atomgpu_sturmian_create_on_device_list(
        X(20.0, 1), N(ST_NQ, 2), N(1, 3), A(st_abscissas, ST_NQ, 4), A(st_weights, ST_NQ, 5), BRK(K_NEG, 6) ? -1 : 0,
        BRK(K_ZERO, 7) ? 0 : BRK(K_NEG, 7) ? -1 : n, P(ids, 8), BRK(K_NULL, 9) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_sturmian_destroy(h);
    return s;
}

static int32_t call_dv_td_create_on_device_list(void) {
    atomgpu_tdse *h = (atomgpu_tdse *)&untouched, *before = h;
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    int32_t ids[2], n = dv_list(ids);
    int32_t s = atomgpu_tdse_create_on_device_list(P(&g, 1), P(&p, 2), BRK(K_ZERO, 3) ? 0 : BRK(K_NEG, 3) ? -1 : n,
                                                   P(ids, 4), BRK(K_NULL, 5) ? NULL : &h);
    untouched = h == before, finite = 1;
    if (s == ATOMGPU_OK) atomgpu_tdse_destroy(h);
    return s;
}

static int32_t call_dv_resolve_devices(void) {
    int32_t n = ISENTINEL, ids[2] = {ISENTINEL, ISENTINEL};
    int32_t s = atomgpu_resolve_devices(BRK(K_ZERO, 1) ? 0 : BRK(K_NEG, 1) ? -1 : 1,
                                        BRK(K_ZERO, 2) ? 0 : BRK(K_NEG, 2) ? -1 : 2, P(&n, 3), ids);
    untouched = n == ISENTINEL && ids[0] == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_dv_handle_devices(void) {
    int32_t n = ISENTINEL, ids[2] = {ISENTINEL, ISENTINEL};
    int32_t s = atomgpu_handle_devices(P((const void *)fixture_ls, 1), BRK(K_ZERO, 2) ? 0 : BRK(K_NEG, 2) ? -1 : 2,
                                       P(&n, 3), ids);
    untouched = n == ISENTINEL && ids[0] == ISENTINEL, finite = 1;
    return s;
}

static int32_t call_dv_device_count(void) {
    int32_t n = ISENTINEL;
    int32_t s = atomgpu_device_count(P(&n, 1));
    untouched = n == ISENTINEL, finite = 1;
    return s;
}

/* A list that repeats a device, or names one beyond those visible (CUDA) or below 0, is refused
 * at `device_ids` (argument 6), and no handle is made. */
static int case_dv_bad_lists(void) {
    int32_t twice[2] = {0, 0}, negative[2] = {0, -3}, beyond[1] = {1000};
    int32_t backend = ATOMGPU_BACKEND_CUDA;
    atomgpu_device_info(&backend, NULL, 0, NULL, NULL, NULL, NULL);
    struct {
        const int32_t *ids;
        int32_t n;
        const char *words;
    } bad[] = {{twice, 2, "twice"}, {negative, 2, ">= 0"}, {beyond, 1, "this process sees"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (i == 2 && backend == ATOMGPU_BACKEND_CPU) continue; /* the CPU backend has no GPU count */
        atomgpu_linestrength *h = NULL;
        int32_t s = atomgpu_linestrength_create_on_device_list(2, dipole, 2, 0, bad[i].n, bad[i].ids, &h);
        if (refused(s, 6, "device_ids") || h != NULL || !strstr(message(), bad[i].words))
            return fail("list %zu: status %d, handle %p, message %s", i, s, (void *)h, message());
    }
    return 0;
}

/* Every family's handle says which devices it uses: the set atomgpu_resolve_devices gives for
 * one device (a CR model, bound to none, reports the backend in force); a count query gives the
 * number alone; too small a capacity is refused at `capacity`. */
static int case_dv_handles_report_their_devices(void) {
    int32_t want = ISENTINEL, n = 0;
    if (status_is(atomgpu_resolve_devices(1, 1, &n, &want), ATOMGPU_OK, NULL)) return 1;
    const void *handles[] = {fixture_ls, fixture_st, fixture_cr, fixture_scf, fixture_tdse};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        int32_t got = ISENTINEL, count = 0;
        if (handles[i] == NULL) continue;
        if (status_is(atomgpu_handle_devices(handles[i], 1, &count, &got), ATOMGPU_OK, NULL)) return 1;
        if (count != 1 || got != want) return fail("handle %zu: %d device(s), first %d, want %d", i, count, got, want);
        count = 0;
        if (status_is(atomgpu_handle_devices(handles[i], 0, &count, NULL), ATOMGPU_OK, NULL) || count != 1)
            return fail("handle %zu: the count query gave %d", i, count);
    }
    int32_t two[2] = {ISENTINEL, ISENTINEL}, count = ISENTINEL;
    atomgpu_linestrength *h = NULL;
    if (status_is(atomgpu_linestrength_create_on_devices(2, dipole, 2, 0, 1, &h), ATOMGPU_OK, NULL)) return 1;
    int32_t s = atomgpu_handle_devices(h, 0, &count, two);
    int bad = refused(s, 2, "capacity") || count != ISENTINEL || two[0] != ISENTINEL;
    atomgpu_linestrength_destroy(h);
    return bad ? fail("capacity 0 with an array: status %d, outputs written", s) : 0;
}

#define RELIABILITY_DEVICES_ARGUMENTS                                                                   \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 1, "n_vib", "zmh"},        \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 2, "dipole", "nai"},       \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 3, "ld_dipole", "zm"},     \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 5, "n_devices", "zm"},     \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 6, "device_ids", "n"},     \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list", 7, "handle", "n"},         \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 1, "rmax", "ai"},              \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 2, "nq", "zmh"},               \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 3, "ns", "zmh"},               \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 4, "abscissas", "nai"},        \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 5, "weights", "nai"},          \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 6, "is_complex", "m"},         \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 7, "n_devices", "zm"},         \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 8, "device_ids", "n"},         \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list", 9, "handle", "n"},             \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list", 1, "grid", "n"},                   \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list", 2, "params", "n"},                 \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list", 3, "n_devices", "zm"},             \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list", 4, "device_ids", "n"},             \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list", 5, "handle", "n"},                 \
    {call_dv_resolve_devices, "resolve_devices", 1, "n_devices", "zm"},                                 \
    {call_dv_resolve_devices, "resolve_devices", 2, "capacity", "zm"},                                  \
    {call_dv_resolve_devices, "resolve_devices", 3, "n_resolved", "n"},                                 \
    {call_dv_handle_devices, "handle_devices", 1, "handle", "n"},                                       \
    {call_dv_handle_devices, "handle_devices", 2, "capacity", "zm"},                                    \
    {call_dv_handle_devices, "handle_devices", 3, "n_devices", "n"},                                    \
    {call_dv_device_count, "device_count", 1, "n_visible", "n"},

#define RELIABILITY_DEVICES_VALID                                                                       \
    {call_dv_ls_create_on_device_list, "linestrength_create_on_device_list"},                           \
    {call_dv_st_create_on_device_list, "sturmian_create_on_device_list"},                               \
    {call_dv_td_create_on_device_list, "tdse_create_on_device_list"},                                   \
    {call_dv_resolve_devices, "resolve_devices"},                                                       \
    {call_dv_handle_devices, "handle_devices"},                                                         \
    {call_dv_device_count, "device_count"},

#define RELIABILITY_DEVICES_SPECIAL                                                                     \
    {"device lists: repeated, negative and invisible devices refused", case_dv_bad_lists},             \
    {"every family's handle reports its devices", case_dv_handles_report_their_devices},
