/* Reliability cases of the lines_cr part, included by tests/c/test_reliability.c (see there).
 *
 * - atomgpu_linestrength_write_exomol commits the .states/.trans pair together or not at all:
 *   a progress callback that stops it (at its first report, its third, its final one, or by
 *   returning INT32_MIN), a 1 ms time limit, a full disk (RLIMIT_FSIZE, with SIGXFSZ ignored, so
 *   that writes fail with EFBIG once the .states temporary is written) and a .trans that cannot
 *   be replaced each leave an existing pair byte for byte and no other file; a call that succeeds
 *   replaces the pair and leaves nothing else. atomgpu_linestrength_write_trove (TROVE's own
 *   pair) likewise for a callback that stops it, a 1 ms time limit and a full disk.
 * - atomgpu_linestrength_transition_moments (TROVE's TM): NULL, bad sizes, bad params fields
 *   (convention, action, NaN temperature) refused with outputs untouched, a valid call on the
 *   suite's J = 0 block; the line lists refuse a bad convention or action, and TM, naming the
 *   field of `params`.
 * - atomgpu_cr_run_stiff_systems names the cell of a bad state; atomgpu_cr_run_rk4 refuses
 *   n_steps outside [1, 2^53] with that range.
 * - the rotsym route (atomgpu_linestrength_set_rotational_basis, atomgpu_linestrength_add_block_rotsym):
 *   valid calls and every argument made bad; a basis that is not orthogonal, and a rotsym block
 *   beside Wang blocks, are refused naming `e` and `handle`. */

#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* A line-strength handle whose list has 2.4e5 lines: LS_NV vibrational functions, block 0
 * (J = 0: K = 0, tau = 0) and block 1 (J = 1: K = 0, tau = 1), each with LS_NV states (the unit
 * vectors) at 100 i and 100 i + 10 cm^-1, and a dipole matrix with no zero element: 4.8e5 pairs
 * judged, a .trans file of 12.7 MB beside a .states file of 44 kB (800 lines of 55 bytes). */
#define LS_NV 400

static atomgpu_linestrength *make_ls_lines(void) {
    static double d[LS_NV * 3 * LS_NV], vectors[LS_NV * LS_NV], e0[LS_NV], e1[LS_NV];
    static int64_t v[LS_NV];
    static int32_t k[LS_NV], tau0[LS_NV], tau1[LS_NV];
    for (int i = 0; i < LS_NV * 3 * LS_NV; i++) d[i] = 0.1 + 0.01 * (double)((7 * i + 3 * (i / LS_NV)) % 11);
    for (int i = 0; i < LS_NV * LS_NV; i++) vectors[i] = i % (LS_NV + 1) == 0 ? 1.0 : 0.0;
    for (int i = 0; i < LS_NV; i++) {
        v[i] = i, k[i] = 0, tau0[i] = 0, tau1[i] = 1;
        e0[i] = 100.0 * i, e1[i] = 100.0 * i + 10.0;
    }
    atomgpu_linestrength *h = NULL;
    int32_t b0 = -1, b1 = -1;
    int ok = atomgpu_linestrength_create(LS_NV, d, LS_NV, 0, &h) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(h, 0, 1.0, LS_NV, v, k, tau0, 0, NULL, NULL, NULL, &b0) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(h, 1, 3.0, LS_NV, v, k, tau1, 0, NULL, NULL, NULL, &b1) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(h, 0, LS_NV, e0, vectors, LS_NV) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(h, 1, LS_NV, e1, vectors, LS_NV) == ATOMGPU_OK;
    if (!ok) {
        printf("    fixture: line-list handle: %s\n", message());
        exit(1);
    }
    return h;
}

/* A fresh folder for one case's files; `stem` receives <folder>/list. */
static void exomol_folder(char folder[64], char stem[80]) {
    snprintf(folder, 64, "/tmp/atomgpu-exomol-XXXXXX");
    if (mkdtemp(folder) == NULL) {
        printf("    fixture: mkdtemp: %s\n", strerror(errno));
        exit(1);
    }
    snprintf(stem, 80, "%s/list", folder);
}

/* Removes `folder` and what it holds (files, and folders of files). */
static void remove_folder(const char *folder) {
    char path[256];
    DIR *dir = opendir(folder);
    struct dirent *e;
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) >= (int)sizeof path) continue;
        if (unlink(path) != 0) remove_folder(path);
    }
    if (dir != NULL) closedir(dir);
    rmdir(folder);
}

/* Runs `body` on a fresh folder and its stem, then removes the folder. */
static int in_fresh_folder(int (*body)(const char *folder, const char *stem)) {
    char folder[64], stem[80];
    exomol_folder(folder, stem);
    int bad = body(folder, stem);
    remove_folder(folder);
    return bad;
}

/* Writes `text` to `path` (a stand-in for an earlier run's file). */
static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("    fixture: cannot write %s\n", path);
        exit(1);
    }
}

/* 1 when file `path` holds exactly `text`. */
static int holds(const char *path, const char *text) {
    static char buffer[4096];
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(buffer, 1, sizeof buffer - 1, f);
    fclose(f);
    return n == strlen(text) && memcmp(buffer, text, n) == 0;
}

/* The names in `folder` other than . and .., sorted and joined by spaces, into `out`. */
static void folder_names(const char *folder, char out[512]) {
    char names[16][260];
    int n = 0;
    DIR *dir = opendir(folder);
    struct dirent *e;
    while (dir != NULL && (e = readdir(dir)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && n < 16)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    if (dir != NULL) closedir(dir);
    for (int i = 1; i < n; i++) /* insertion sort */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[260];
            memcpy(t, names[j], sizeof t), memcpy(names[j], names[j - 1], sizeof t), memcpy(names[j - 1], t, sizeof t);
        }
    out[0] = 0;
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), 512 - strlen(out), "%s%s", i ? " " : "", names[i]);
}

static const char *old_states = "an earlier run's .states\n", *old_trans = "an earlier run's .trans\n";

/* The writer the pair cases run: write_exomol, or (trove_writer set) write_trove with TROVE's
 * convention and a .states table of block 0's LS_NV states. */
static int trove_writer;

static int32_t write_pair(atomgpu_linestrength *h, const char *stem, int64_t *counts) {
    atomgpu_intensity_params p = ls_params();
    if (!trove_writer) return atomgpu_linestrength_write_exomol(h, stem, &p, NULL, counts);
    static int64_t ids[LS_NV], g_total[LS_NV];
    static double energies[LS_NV];
    static int32_t j[LS_NV];
    static char columns[LS_NV * 4];
    for (int i = 0; i < LS_NV; i++) {
        ids[i] = i + 1, g_total[i] = 1, energies[i] = 100.0 * i, j[i] = 0;
        memcpy(columns + 4 * i, "  A1", 4);
    }
    p.convention = 1;
    return atomgpu_linestrength_write_trove(h, stem, LS_NV, ids, energies, g_total, j, columns, 4, &p, NULL, counts);
}

static const char *pair_task(void) {
    return trove_writer ? "atomgpu_linestrength_write_trove" : "atomgpu_linestrength_write_exomol";
}

/* Lays an earlier pair at `stem` (with_old) or nothing, runs write_exomol on the line-list
 * fixture, and checks: status `want` (its message holding `fragment`), counts untouched, and the
 * folder holding exactly the earlier pair, byte for byte (or nothing). */
static int exomol_fails_in(const char *folder, const char *stem, int with_old, int32_t want, const char *fragment,
                           void (*before)(void), void (*after)(void)) {
    char path[96], names[512], expected[512];
    if (with_old) {
        snprintf(path, sizeof path, "%s.states", stem), write_text(path, old_states);
        snprintf(path, sizeof path, "%s.trans", stem), write_text(path, old_trans);
    }
    atomgpu_linestrength *h = make_ls_lines();
    int64_t counts[5] = {ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL};
    if (before != NULL) before();
    int32_t s = write_pair(h, stem, counts);
    char said[2048];
    snprintf(said, sizeof said, "%s", message()); /* before `after`, whose library call clears it */
    if (after != NULL) after();
    if (s != want) return fail("status %d (%s), want %d: %s", (int)s, atomgpu_status_string(s), (int)want, said);
    if (strstr(said, fragment) == NULL) return fail("message lacks \"%s\": %s", fragment, said);
    if (counts[0] != ISENTINEL) return fail("counts written");
    folder_names(folder, names);
    snprintf(expected, sizeof expected, "%s", with_old ? "list.states list.trans" : "");
    if (strcmp(names, expected) != 0) return fail("the folder holds \"%s\", want \"%s\"", names, expected);
    if (with_old) {
        snprintf(path, sizeof path, "%s.states", stem);
        if (!holds(path, old_states)) return fail("the earlier .states was changed");
        snprintf(path, sizeof path, "%s.trans", stem);
        if (!holds(path, old_trans)) return fail("the earlier .trans was changed");
    }
    return 0;
}

static int exomol_fails(int with_old, int32_t want, const char *fragment, void (*before)(void), void (*after)(void)) {
    char folder[64], stem[80];
    exomol_folder(folder, stem);
    int bad = exomol_fails_in(folder, stem, with_old, want, fragment, before, after);
    remove_folder(folder);
    return bad;
}

/* What the callback of the write_exomol cases saw. */
struct exomol_record {
    int calls, stop_at;
    double done, total;
    char task[64];
};
static struct exomol_record exomol_progress;

/* The callback of the write_exomol cases: stops at its `stop_at`-th report (returning
 * INT32_MIN when stop_at is negative, at the first), or with stop_at 0 at the report of done =
 * total; records the task and the reports. */
static int32_t exomol_callback(void *user_data, const char *task, double done, double total) {
    struct exomol_record *r = user_data;
    r->calls++;
    r->done = done, r->total = total;
    snprintf(r->task, sizeof r->task, "%s", task);
    if (r->stop_at < 0) return INT32_MIN;
    return r->stop_at == 0 ? done == total : r->calls == r->stop_at;
}

static void set_exomol_callback(int stop_at) {
    struct exomol_record r = {0, stop_at, 0.0, 0.0, ""};
    exomol_progress = r;
    atomgpu_set_progress(exomol_callback, &exomol_progress, 0.0);
}

static int exomol_stopped_by_callback(int stop_at, int want_calls) {
    set_exomol_callback(stop_at);
    if (exomol_fails(1, ATOMGPU_ERR_CANCELLED, "progress callback", NULL, NULL)) return 1;
    if (strcmp(exomol_progress.task, pair_task()) != 0)
        return fail("task \"%s\"", exomol_progress.task);
    if (want_calls > 0 && exomol_progress.calls != want_calls)
        return fail("%d callback calls, want %d", exomol_progress.calls, want_calls);
    if (stop_at == 0 && exomol_progress.done != exomol_progress.total)
        return fail("stopped at %g of %g, not at the end", exomol_progress.done, exomol_progress.total);
    if (stop_at > 0 && !(exomol_progress.done < exomol_progress.total))
        return fail("stopped at %g of %g: the list had ended", exomol_progress.done, exomol_progress.total);
    return 0;
}

static int case_exomol_stop_at_once(void) { return exomol_stopped_by_callback(1, 1); }
static int case_exomol_stop_at_third(void) { return exomol_stopped_by_callback(3, 3); }
static int case_exomol_stop_at_end(void) { return exomol_stopped_by_callback(0, 0); }
static int case_exomol_stop_int32_min(void) {
    if (exomol_stopped_by_callback(-1, 1)) return 1;
    return strstr(message(), "-2147483648") != NULL ? 0 : fail("message lacks the callback's value: %s", message());
}

/* No earlier pair: a stopped call leaves the folder empty. */
static int case_exomol_stop_no_old_pair(void) {
    set_exomol_callback(3);
    return exomol_fails(0, ATOMGPU_ERR_CANCELLED, "progress callback", NULL, NULL);
}

static void limit_1ms(void) { atomgpu_set_time_limit(0.001); }
static void no_limit(void) { atomgpu_set_time_limit(0.0); }

/* The list takes far longer than 1 ms (4.8e5 pairs judged, 12.7 MB formatted and synced). */
static int case_exomol_time_limit(void) {
    return exomol_fails(1, ATOMGPU_ERR_CANCELLED, "time limit", limit_1ms, no_limit);
}

/* A full disk after the .states temporary: files of at most 64 KiB (the .states file is
 * 800 x 55 = 44 kB, the .trans file 12.7 MB); SIGXFSZ ignored, so writes past the limit
 * fail with EFBIG instead of killing the process. The limit is lifted again before anything is
 * printed (the suite's output may go to a larger file). */
static struct rlimit saved_fsize;
static void small_files(void) {
    struct rlimit r;
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &saved_fsize);
    r = saved_fsize;
    r.rlim_cur = 64 * 1024;
    setrlimit(RLIMIT_FSIZE, &r);
}
static void any_files(void) { setrlimit(RLIMIT_FSIZE, &saved_fsize); }

static int case_exomol_full_disk(void) {
    if (exomol_fails(1, ATOMGPU_ERR_IO, ".trans", small_files, any_files)) return 1;
    return strstr(message(), "large") != NULL ? 0 : fail("message lacks the system's reason (EFBIG): %s", message());
}

static int case_exomol_full_disk_no_old_pair(void) {
    return exomol_fails(0, ATOMGPU_ERR_IO, ".trans", small_files, any_files);
}

/* The same failures of atomgpu_linestrength_write_trove (TROVE's own pair). */
static int case_trove_stop_at_third(void) {
    trove_writer = 1;
    return exomol_stopped_by_callback(3, 3);
}
static int case_trove_stop_no_old_pair(void) {
    trove_writer = 1;
    set_exomol_callback(3);
    return exomol_fails(0, ATOMGPU_ERR_CANCELLED, "progress callback", NULL, NULL);
}
static int case_trove_time_limit(void) {
    trove_writer = 1;
    return exomol_fails(1, ATOMGPU_ERR_CANCELLED, "time limit", limit_1ms, no_limit);
}
static int case_trove_full_disk(void) {
    trove_writer = 1;
    return exomol_fails(1, ATOMGPU_ERR_IO, ".trans", small_files, any_files);
}

/* The .trans cannot be replaced (a non-empty folder has its name): the new .states, already
 * renamed into place, is taken back, so the earlier .states is there byte for byte. */
static int trans_rename_fails(const char *folder, const char *stem) {
    char path[96], inner[112], names[512];
    snprintf(path, sizeof path, "%s.states", stem), write_text(path, old_states);
    snprintf(path, sizeof path, "%s.trans", stem);
    snprintf(inner, sizeof inner, "%s/kept", path);
    if (mkdir(path, 0700) != 0) return fail("mkdir %s: %s", path, strerror(errno));
    write_text(inner, old_trans);
    atomgpu_linestrength *h = make_ls_lines();
    atomgpu_intensity_params p = ls_params();
    int32_t s = atomgpu_linestrength_write_exomol(h, stem, &p, NULL, NULL);
    if (status_is(s, ATOMGPU_ERR_IO, "list.trans")) return 1;
    if (strstr(message(), "kept as it was") == NULL) return fail("message does not say the pair was kept: %s", message());
    folder_names(folder, names);
    if (strcmp(names, "list.states list.trans") != 0) return fail("the folder holds \"%s\"", names);
    snprintf(path, sizeof path, "%s.states", stem);
    if (!holds(path, old_states)) return fail("the earlier .states was not put back");
    return holds(inner, old_trans) ? 0 : fail("the folder named .trans was changed");
}

static int case_exomol_trans_rename_fails(void) { return in_fresh_folder(trans_rename_fails); }

/* A call that succeeds over an earlier pair replaces both files and leaves nothing else; the
 * .states file has one line per state and the .trans file as many lines as counts[4] says. */
static int replaces_pair(const char *folder, const char *stem) {
    char path[96], names[512], line[256];
    snprintf(path, sizeof path, "%s.states", stem), write_text(path, old_states);
    snprintf(path, sizeof path, "%s.trans", stem), write_text(path, old_trans);
    atomgpu_linestrength *h = make_ls_lines();
    atomgpu_intensity_params p = ls_params();
    int64_t counts[5];
    if (status_is(atomgpu_linestrength_write_exomol(h, stem, &p, NULL, counts), ATOMGPU_OK, NULL)) return 1;
    folder_names(folder, names);
    if (strcmp(names, "list.states list.trans") != 0) return fail("the folder holds \"%s\"", names);
    int64_t n_lines[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s.%s", stem, i == 0 ? "states" : "trans");
        FILE *f = fopen(path, "r");
        if (f == NULL) return fail("cannot read %s", path);
        while (fgets(line, sizeof line, f) != NULL) n_lines[i]++;
        fclose(f);
    }
    if (n_lines[0] != 2 * LS_NV) return fail(".states has %lld lines, want %d", (long long)n_lines[0], 2 * LS_NV);
    if (n_lines[1] != counts[4] || counts[4] < 200000)
        return fail(".trans has %lld lines, counts[4] = %lld (want equal, >= 2e5)", (long long)n_lines[1],
                    (long long)counts[4]);
    return 0;
}

static int case_exomol_replaces_pair(void) { return in_fresh_folder(replaces_pair); }

/* run_stiff_systems: a bad state of cell 2 of 3 is named with its cell and its element of y. */
static int case_stiff_systems_bad_cell(void) {
    atomgpu_cr *model = make_cr();
    double y[3 * (NL + 1)], y0[3 * (NL + 1)], te_out[3], ne_out[3], p_out[3 * NL];
    const double times[1] = {1e-15};
    for (int c = 0; c < 3; c++) cr_state(model, y + c * (NL + 1));
    y[2 * (NL + 1) + 1] = -1.0; /* cell 2, level 1: y[9] */
    memcpy(y0, y, sizeof y);
    fill(te_out, 3, SENTINEL);
    int32_t s = atomgpu_cr_run_stiff_systems(model, 3, y, 1, times, 1e-6, 1e-10, te_out, ne_out, p_out);
    if (refused(s, 3, "y")) return 1;
    if (strstr(message(), "`y`[9]") == NULL || strstr(message(), "cell 2") == NULL)
        return fail("message does not name cell 2 and y[9]: %s", message());
    return memcmp(y, y0, sizeof y) == 0 && all_equal(te_out, 3, SENTINEL) ? 0 : fail("an output was written");
}

/* run_rk4: n_steps beyond 2^53 (2^60, 2^62, INT64_MAX) is refused with the documented range. */
static int case_rk4_steps_range(void) {
    atomgpu_cr *model = make_cr();
    double y[NL + 1], t[2], te_out[2], ne_out[2], p_out[2 * NL];
    const int64_t steps[4] = {((int64_t)1 << 53) + 1, (int64_t)1 << 60, (int64_t)1 << 62, INT64_MAX};
    cr_state(model, y);
    for (int i = 0; i < 4; i++) {
        int64_t n = ISENTINEL;
        if (refused(atomgpu_cr_run_rk4(model, y, 1e-16, steps[i], steps[i], 2, &n, t, te_out, ne_out, p_out), 4,
                    "n_steps"))
            return 1;
        if (strstr(message(), "[1, 2^53]") == NULL) return fail("message lacks the range: %s", message());
        if (strstr(message(), "address space") != NULL) return fail("message speaks of memory: %s", message());
    }
    return 0;
}

/* A rule with no unit reads "> 0, got 0", not "> 0 , got 0". */
static int case_no_unit_in_rule(void) {
    atomgpu_linestrength *h = make_ls();
    atomgpu_intensity_params p = ls_params();
    const int32_t uppers[1] = {1};
    int64_t n_lines = ISENTINEL, up_id[8], lo_id[8];
    double a[8], nu[8], strength[8], intensity[8];
    p.partition_function = 0.0;
    const atomgpu_line_arrays lines = {8, up_id, lo_id, a, nu, strength, intensity};
    if (refused(atomgpu_linestrength_line_list(h, 0, 1, uppers, &p, &lines, &n_lines), 5, "params"))
        return 1;
    if (strstr(message(), " ,") != NULL) return fail("malformed message: %s", message());
    return strstr(message(), "> 0, got 0") != NULL ? 0 : fail("message: %s", message());
}


/* Streamed lower batches: the two J = 0 levels of the fixture's block 0 as a caller batch (IDs
 * 11 and 12, order keys 5 and 4), into block 1's stored states. */
static const int32_t ls_batch_block[2] = {0, 0};
static const int64_t ls_batch_ids[2] = {11, 12}, ls_batch_order[2] = {5, 4};

/* What a sink saw: lines (at most 8 kept), deliveries, and the delivery at which it says stop. */
struct line_record {
    atomgpu_line lines[8];
    int64_t n;
    int calls, stop_at;
};

static int32_t record_lines(void *user_data, const atomgpu_line *lines, int64_t n_lines) {
    struct line_record *r = user_data;
    r->calls++;
    if (r->calls == r->stop_at) return 1;
    for (int64_t i = 0; i < n_lines; i++) {
        if (r->n < 8) r->lines[r->n] = lines[i];
        r->n++;
    }
    return 0;
}

/* The lines of a record are finite, from the batch's IDs, in order keys 4 (ID 12) then 5 (ID 11). */
static int record_finite(const struct line_record *r) {
    for (int64_t i = 0; i < r->n && i < 8; i++) {
        const atomgpu_line *l = &r->lines[i];
        if (!(isfinite(l->wavenumber) && isfinite(l->linestrength) && isfinite(l->einstein_a) &&
              isfinite(l->intensity)))
            return 0;
        if (l->lower_id != ls_batch_ids[l->lower_level] || l->lower_block != 0 || l->upper_block != 1) return 0;
        if (i > 0 && l->lower_id > r->lines[i - 1].lower_id) return 0;
    }
    return 1;
}

static int32_t call_ls_lines_of_lower_batch(void) {
    atomgpu_intensity_params p = ls_params();
    if (BRK(K_NAN, 9)) p.temperature = NAN;
    if (BRK(K_INF, 9)) p.partition_function = INFINITY;
    atomgpu_line_filters f = {0, 5, 0, 0, 0, {0}};
    if (BRK(K_NEG, 10)) f.j_min = -1;
    int64_t counts[5] = {ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL};
    struct line_record r = {.n = 0};
    int32_t s = atomgpu_linestrength_lines_of_lower_batch(
        P(fixture_ls, 1), N(2, 2), P(ls_batch_block, 3), A(ls_vectors, 4, 4), N(2, 5), A(ls_e0, 2, 6),
        P(ls_batch_ids, 7), P(ls_batch_order, 8), BRK(K_NULL, 9) ? NULL : &p, &f,
        BRK(K_NULL, 11) ? NULL : record_lines, &r, counts);
    untouched = counts[0] == ISENTINEL && r.calls == 0;
    finite = counts[0] == counts[1] + counts[2] + counts[3] + counts[4] && counts[4] == r.n && r.n > 0 &&
             record_finite(&r);
    return s;
}

static int32_t call_ls_lines_of_lower_batch_buffered(void) {
    atomgpu_intensity_params p = ls_params();
    if (BRK(K_NAN, 9)) p.temperature = NAN;
    if (BRK(K_INF, 9)) p.partition_function = INFINITY;
    atomgpu_line_filters f = {0, 5, 0, 0, 0, {0}};
    if (BRK(K_NEG, 10)) f.j_min = -1;
    int64_t counts[5] = {ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL}, pending = ISENTINEL;
    int32_t s = atomgpu_linestrength_lines_of_lower_batch_buffered(
        P(fixture_ls, 1), N(2, 2), P(ls_batch_block, 3), A(ls_vectors, 4, 4), N(2, 5), A(ls_e0, 2, 6),
        P(ls_batch_ids, 7), P(ls_batch_order, 8), BRK(K_NULL, 9) ? NULL : &p, &f, counts);
    /* (no call after a failed one: it would replace the error under test) */
    if (s != ATOMGPU_OK) {
        untouched = counts[0] == ISENTINEL;
        return s;
    }
    untouched = 0;
    finite = atomgpu_linestrength_lines_pending(fixture_ls, &pending) == ATOMGPU_OK && pending == counts[4] &&
             pending > 0 && counts[0] == counts[1] + counts[2] + counts[3] + counts[4];
    return s;
}

/* The fixture with the streamed lines of its batch pending. */
static void ls_fill_pending(void) {
    atomgpu_intensity_params p = ls_params();
    if (atomgpu_linestrength_lines_of_lower_batch_buffered(fixture_ls, 2, ls_batch_block, ls_vectors, 2, ls_e0,
                                                           ls_batch_ids, ls_batch_order, &p, NULL, NULL) != ATOMGPU_OK) {
        printf("    fixture: pending lines: %s\n", message());
        exit(1);
    }
}

static int32_t call_ls_lines_pending(void) {
    int64_t probe = 0;
    if (atomgpu_linestrength_lines_pending(fixture_ls, &probe) == ATOMGPU_OK) ls_fill_pending();
    int64_t n = ISENTINEL;
    int32_t s = atomgpu_linestrength_lines_pending(P(fixture_ls, 1), P(&n, 2));
    untouched = n == ISENTINEL, finite = n > 0;
    return s;
}

static int32_t call_ls_take_lines(void) {
    int64_t probe = 0;
    if (atomgpu_linestrength_lines_pending(fixture_ls, &probe) == ATOMGPU_OK) ls_fill_pending();
    atomgpu_line lines[8];
    memset(lines, 0xff, sizeof lines);
    int64_t taken = ISENTINEL, left = ISENTINEL;
    int32_t s = atomgpu_linestrength_take_lines(P(fixture_ls, 1), P(lines, 2), N(2, 3), P(&taken, 4));
    untouched = taken == ISENTINEL && lines[0].upper_id == -1;
    /* 3 lines pending (100 -> 110 from ID 12, order 4; 0 -> 10, 110 from ID 11, order 5): 2 taken, 1 left */
    finite = taken == 2 && atomgpu_linestrength_lines_pending(fixture_ls, &left) == ATOMGPU_OK && left == 1 &&
             isfinite(lines[1].intensity) && lines[0].lower_id == 12 && lines[1].lower_id == 11;
    return s;
}

static int32_t call_ls_add_block_species_i32(void) {
    /* The E block of call_ls_add_block_species, numbered from 1 (as Fortran's default integers). */
    static const int32_t v[3] = {1, 2, 1};
    static const int32_t k[3] = {0, 0, 1}, tau[3] = {1, 1, 0};
    static const int32_t row_start[7] = {1, 2, 3, 4, 5, 6, 7};
    static const int32_t col[6] = {1, 2, 1, 2, 1, 2};
    static const double value[6] = {1.0, 1.0, 0.5, -0.5, 0.25, 0.75};
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block_species_i32(
        P(fixture_ls, 1), 1, BRK(K_NEG, 3) ? -1 : 2, X(1.0, 4), N(3, 5), P(v, 6), P(k, 7), P(tau, 8),
        BRK(K_ZERO, 9) ? 0 : BRK(K_NEG, 9) ? -1 : 2, BRK(K_NEG, 10) ? -1 : 2, P(row_start, 11), P(col, 12),
        P(value, 13), BRK(K_NEG, 14) ? -1 : 1, P(&block, 15));
    untouched = block == ISENTINEL, finite = block == 2;
    return s;
}

static int32_t call_ls_add_block_species_i64(void) {
    /* The E block of call_ls_add_block_species, with 64-bit arrays numbered from 1. */
    static const int64_t v[3] = {1, 2, 1};
    static const int32_t k[3] = {0, 0, 1}, tau[3] = {1, 1, 0};
    static const int64_t row_start[7] = {1, 2, 3, 4, 5, 6, 7};
    static const int64_t col[6] = {1, 2, 1, 2, 1, 2};
    static const double value[6] = {1.0, 1.0, 0.5, -0.5, 0.25, 0.75};
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block_species_i64(
        P(fixture_ls, 1), 1, BRK(K_NEG, 3) ? -1 : 2, X(1.0, 4), N(3, 5), P(v, 6), P(k, 7), P(tau, 8),
        BRK(K_ZERO, 9) ? 0 : BRK(K_NEG, 9) ? -1 : 2, BRK(K_NEG, 10) ? -1 : 2, P(row_start, 11), P(col, 12),
        P(value, 13), BRK(K_NEG, 14) ? -1 : 1, P(&block, 15));
    untouched = block == ISENTINEL, finite = block == 2;
    return s;
}

/* The sink stops the 400-level batch of make_ls_lines at its 3rd delivery: CANCELLED, and the
 * lines it took are the first lines of the whole call's list. */
static int case_stream_sink_stops(void) {
    static double vectors[LS_NV * LS_NV], energies[LS_NV];
    static int32_t blocks[LS_NV];
    static int64_t ids[LS_NV], order[LS_NV];
    for (int i = 0; i < LS_NV * LS_NV; i++) vectors[i] = i % (LS_NV + 1) == 0 ? 1.0 : 0.0;
    for (int i = 0; i < LS_NV; i++) blocks[i] = 0, energies[i] = 100.0 * i, ids[i] = 1 + i, order[i] = i;
    atomgpu_linestrength *h = make_ls_lines();
    atomgpu_intensity_params p = ls_params();
    p.batch = 64;
    struct line_record whole = {.n = 0}, part = {.n = 0, .stop_at = 3};
    int64_t counts[5];
    if (status_is(atomgpu_linestrength_lines_of_lower_batch(h, LS_NV, blocks, vectors, LS_NV, energies, ids, order,
                                                            &p, NULL, record_lines, &whole, counts),
                  ATOMGPU_OK, NULL))
        return 1;
    if (whole.n != counts[4] || whole.n < 1000) return fail("the whole call gave %lld lines", (long long)whole.n);
    counts[0] = ISENTINEL;
    if (status_is(atomgpu_linestrength_lines_of_lower_batch(h, LS_NV, blocks, vectors, LS_NV, energies, ids, order,
                                                            &p, NULL, record_lines, &part, counts),
                  ATOMGPU_ERR_CANCELLED, "sink"))
        return 1;
    if (part.calls != 3) return fail("the sink was called %d times after it said stop", part.calls - 3);
    if (counts[0] != ISENTINEL) return fail("counts written by a cancelled call");
    if (part.n < 1 || part.n >= whole.n) return fail("%lld lines delivered", (long long)part.n);
    if (memcmp(part.lines, whole.lines, sizeof part.lines) != 0) return fail("the delivered lines are no prefix");
    return 0;
}

/* TM moments of the suite's J = 0 block 0 with itself: params position 5 broken as zero (an
 * unknown convention), negative (an unknown action) or NaN (temperature); the output arrays
 * (atomgpu_moment_arrays, position 6) broken one field per row. */
static int32_t call_ls_transition_moments(void) {
    const int32_t uppers[1] = {0};
    atomgpu_intensity_params p = ls_params();
    p.action = ATOMGPU_ACTION_TM;
    p.convention = ATOMGPU_CONVENTION_TROVE;
    if (BRK(K_ZERO, 5)) p.convention = 7;
    if (BRK(K_NEG, 5)) p.action = -1;
    if (BRK(K_NAN, 5)) p.temperature = NAN;
    int64_t n = ISENTINEL, up_id[4], lo_id[4], counts[5];
    double nu[4], tm[4], a[4], intensity[4], components[27 * 4];
    for (int i = 0; i < 4; i++) up_id[i] = lo_id[i] = ISENTINEL;
    for (int i = 0; i < 5; i++) counts[i] = ISENTINEL;
    fill(nu, 4, SENTINEL), fill(tm, 4, SENTINEL), fill(a, 4, SENTINEL), fill(intensity, 4, SENTINEL);
    fill(components, 27 * 4, SENTINEL);
    atomgpu_moment_arrays moments = {NF(4, 6, "capacity"),    PF(up_id, 6, "upper_id"),    PF(lo_id, 6, "lower_id"),
                                     PF(nu, 6, "wavenumber"), PF(tm, 6, "moment"),         PF(a, 6, "einstein_a"),
                                     PF(intensity, 6, "intensity"), PF(components, 6, "components")};
    int32_t s = atomgpu_linestrength_transition_moments(P(fixture_ls, 1), 0, (int32_t)N(1, 3), P(uppers, 4),
                                                        BRK(K_NULL, 5) ? NULL : &p, &moments,
                                                        P(&n, 7), counts);
    untouched = n == ISENTINEL && up_id[0] == ISENTINEL && all_equal(components, 27 * 4, SENTINEL) &&
                all_equal(tm, 4, SENTINEL) && counts[0] == ISENTINEL;
    /* Two J = 0 states: pairs (0,0), (0,1), (1,1) have nu >= 0, (1,0) not. */
    finite = n == 3 && counts[0] == 4 && counts[2] == 1 && all_finite(tm, 3) && all_finite(a, 3) &&
             all_finite(intensity, 3) && all_finite(components, 27 * 3);
    return s;
}

/* Line lists refuse an unknown convention or action, and TM, naming the field of `params`. */
static int case_line_list_convention_and_action(void) {
    atomgpu_linestrength *h = make_ls();
    const int32_t uppers[1] = {1};
    int64_t n_lines = ISENTINEL;
    struct {
        int32_t convention, action;
        const char *field;
    } bad[3] = {{2, 0, "`convention`"}, {0, 3, "`action`"}, {0, ATOMGPU_ACTION_TM, "`action`"}};
    for (int i = 0; i < 3; i++) {
        atomgpu_intensity_params p = ls_params();
        p.convention = bad[i].convention, p.action = bad[i].action;
        if (refused(atomgpu_linestrength_line_list_filtered(h, 0, 1, uppers, &p, NULL, NULL, &n_lines, NULL), 5, "params"))
            return 1;
        if (strstr(message(), bad[i].field) == NULL) return fail("message: %s", message());
        if (n_lines != ISENTINEL) return fail("n_lines written on a refused call");
    }
    atomgpu_intensity_params p = ls_params();
    p.convention = ATOMGPU_CONVENTION_TROVE, p.action = ATOMGPU_ACTION_EMISSION;
    return atomgpu_linestrength_line_list_filtered(h, 0, 1, uppers, &p, NULL, NULL, &n_lines, NULL) == ATOMGPU_OK
               ? 0
               : fail("TROVE emission: %s", message());
}

/* The rotsym route: J = 1's basis E (column-major), column 0 level 0, columns 1 and 2 the two
 * components of level 1 (Wang functions 1 and 2 rotated by atan(4/3)). */
static const double rs_e[9] = {1.0, 0.0, 0.0, 0.0, 0.6, 0.8, 0.0, -0.8, 0.6};
static const int32_t rs_level[3] = {0, 1, 1}, rs_deg[3] = {0, 0, 1};

static int32_t call_ls_set_rotational_basis(void) {
    int32_t s = atomgpu_linestrength_set_rotational_basis(P(fixture_ls, 1), BRK(K_NEG, 2) ? -1 : 1, A(rs_e, 9, 3),
                                                          P(rs_level, 4), P(rs_deg, 5));
    untouched = 1, finite = 1;
    return s;
}

/* The handle a rotsym block goes to: a fresh one (with J = 1's basis) while fixture_ls is live, or
 * the bad fixture_ls a handle case made (destroyed, of the other family, made up). */
static atomgpu_linestrength *rotsym_handle(void) {
    int64_t a, b, c;
    if (atomgpu_linestrength_block_size(fixture_ls, 0, &a, &b, &c) != ATOMGPU_OK) return fixture_ls;
    atomgpu_linestrength *h = fresh_ls();
    if (atomgpu_linestrength_set_group(h, "C3v(M)") != ATOMGPU_OK ||
        atomgpu_linestrength_set_rotational_basis(h, 1, rs_e, rs_level, rs_deg) != ATOMGPU_OK) {
        printf("    fixture: rotsym handle: %s\n", message());
        exit(1);
    }
    return h;
}

static int32_t call_ls_add_block_rotsym(void) {
    /* An E block of J = 1 with three primitive functions (v, level, deg) = (0, 0, 0), (1, 0, 0),
     * (0, 1, 1) and n_sym = 2: a stacked unfolding of 2 x 3 rows, one entry per row. */
    static const int64_t v[3] = {0, 1, 0};
    static const int32_t level[3] = {0, 0, 1}, deg[3] = {0, 0, 1};
    static const int64_t row_start[7] = {0, 1, 2, 3, 4, 5, 6};
    static const int64_t col[6] = {0, 1, 0, 1, 0, 1};
    static const double value[6] = {1.0, 1.0, 0.5, -0.5, 0.25, 0.75};
    atomgpu_linestrength *h = rotsym_handle();
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block_rotsym(
        P(h, 1), BRK(K_NEG, 2) ? -1 : 1, BRK(K_NEG, 3) ? -1 : 2, X(1.0, 4), N(3, 5), P(v, 6), P(level, 7), P(deg, 8),
        BRK(K_ZERO, 9) ? 0 : BRK(K_NEG, 9) ? -1 : 2, BRK(K_NEG, 10) ? -1 : 2, P(row_start, 11), P(col, 12),
        P(value, 13), P(&block, 14));
    untouched = block == ISENTINEL, finite = 1;
    return s; /* h is not destroyed: that would clear the error under test (the case's process ends) */
}

/* A basis 1e-9 from orthogonal is refused naming `e` and the rule. */
static int case_rotsym_basis_not_orthogonal(void) {
    double skew[9];
    memcpy(skew, rs_e, sizeof skew);
    skew[4] += 1e-9;
    atomgpu_linestrength *h = make_ls();
    if (refused(atomgpu_linestrength_set_rotational_basis(h, 1, skew, rs_level, rs_deg), 3, "e")) return 1;
    return strstr(message(), "orthogonal") != NULL ? 0 : fail("message: %s", message());
}

/* A rotsym block beside Wang blocks (make_ls's handle has two) is refused naming `handle`, and no
 * block is written. */
static int case_rotsym_beside_wang_blocks(void) {
    static const int64_t v[1] = {0};
    static const int32_t level[1] = {0}, deg[1] = {0};
    int32_t block = ISENTINEL;
    atomgpu_linestrength *h = make_ls();
    if (atomgpu_linestrength_set_rotational_basis(h, 1, rs_e, rs_level, rs_deg) != ATOMGPU_OK)
        return fail("basis: %s", message());
    int32_t s = atomgpu_linestrength_add_block_rotsym(h, 1, 0, 1.0, 1, v, level, deg, 1, 0, NULL, NULL,
                                                      NULL, &block);
    if (refused(s, 1, "handle")) return 1;
    if (block != ISENTINEL) return fail("block written on error");
    return strstr(message(), "Wang blocks") != NULL ? 0 : fail("message: %s", message());
}

static int32_t call_ls_add_block_rotsym_i64(void) {
    /* The block of call_ls_add_block_rotsym with every index numbered from 1. */
    static const int64_t v[3] = {1, 2, 1};
    static const int32_t level[3] = {1, 1, 2}, deg[3] = {1, 1, 2};
    static const int64_t row_start[7] = {1, 2, 3, 4, 5, 6, 7};
    static const int64_t col[6] = {1, 2, 1, 2, 1, 2};
    static const double value[6] = {1.0, 1.0, 0.5, -0.5, 0.25, 0.75};
    atomgpu_linestrength *h = rotsym_handle();
    int32_t block = ISENTINEL;
    int32_t s = atomgpu_linestrength_add_block_rotsym_i64(
        P(h, 1), BRK(K_NEG, 2) ? -1 : 1, BRK(K_NEG, 3) ? -1 : 2, X(1.0, 4), N(3, 5), P(v, 6), P(level, 7),
        P(deg, 8), BRK(K_ZERO, 9) ? 0 : BRK(K_NEG, 9) ? -1 : 2, BRK(K_NEG, 10) ? -1 : 2, P(row_start, 11),
        P(col, 12), P(value, 13), BRK(K_NEG, 14) ? -1 : 1, P(&block, 15));
    untouched = block == ISENTINEL, finite = block == 0;
    return s; /* h is not destroyed: that would clear the error under test (the case's process ends) */
}

/* Indices numbered from 1 are refused in the caller's numbering: element 2 of `v` (value 0) of a
 * 32-bit and of a 64-bit array, a `col` of 3 beyond n_sym = 2, a rotsym `level` of 0, and a
 * `row_start` whose first offset is 0 (0-based offsets passed as 1-based); no block is added. */
static int case_numbered_indices_named_as_written(void) {
    static const int32_t k[2] = {0, 0}, tau[2] = {1, 1}, one[2] = {1, 1};
    static const int32_t v32[2] = {1, 0};
    static const int64_t v64[2] = {1, 0}, v_ok[2] = {1, 2};
    static const int64_t row_start[3] = {1, 2, 3}, row_start0[3] = {0, 1, 2}, col[2] = {1, 3};
    static const double value[2] = {1.0, 1.0};
    static const int32_t level[2] = {1, 0};
    int32_t block = ISENTINEL;
    atomgpu_linestrength *ls = make_ls();
    int32_t s = atomgpu_linestrength_add_block_species_i32(ls, 1, 0, 1.0, 2, v32, k, tau, 1, 0, NULL, NULL,
                                                           NULL, 1, &block);
    if (refused(s, 6, "v")) return 1;
    if (strstr(message(), "element 2 is 0") == NULL || strstr(message(), "numbered 1..2") == NULL)
        return fail("32-bit v: %s", message());
    s = atomgpu_linestrength_add_block_species_i64(ls, 1, 0, 1.0, 2, v64, k, tau, 1, 0, NULL, NULL, NULL, 1,
                                                   &block);
    if (refused(s, 6, "v")) return 1;
    if (strstr(message(), "element 2 is 0") == NULL) return fail("64-bit v: %s", message());
    s = atomgpu_linestrength_add_block_species_i64(ls, 1, 0, 1.0, 2, v_ok, k, tau, 1, 2, row_start, col,
                                                   value, 1, &block);
    if (refused(s, 12, "col")) return 1;
    if (strstr(message(), "element 2 is 3") == NULL || strstr(message(), "numbered 1..2") == NULL)
        return fail("col: %s", message());
    s = atomgpu_linestrength_add_block_species_i64(ls, 1, 0, 1.0, 2, v_ok, k, tau, 1, 2, row_start0, col,
                                                   value, 1, &block);
    if (refused(s, 11, "row_start")) return 1;
    if (strstr(message(), "element 1 is 0") == NULL) return fail("row_start: %s", message());
    atomgpu_linestrength *h = fresh_ls();
    if (atomgpu_linestrength_set_group(h, "C3v(M)") != ATOMGPU_OK ||
        atomgpu_linestrength_set_rotational_basis(h, 1, rs_e, rs_level, rs_deg) != ATOMGPU_OK)
        return fail("rotsym handle: %s", message());
    s = atomgpu_linestrength_add_block_rotsym_i64(h, 1, 0, 1.0, 2, v_ok, level, one, 1, 0, NULL, NULL, NULL, 1,
                                                  &block);
    if (refused(s, 7, "level")) return 1;
    if (strstr(message(), "element 2 is 0") == NULL) return fail("level: %s", message());
    return block == ISENTINEL ? 0 : fail("block written on error");
}

/* Caller labels of block 1's two stored states (IDs 7 and 9, order keys 2 and 1). */
static const int64_t ls_label_ids[2] = {7, 9}, ls_label_order[2] = {2, 1};

static int32_t call_ls_set_state_labels(void) {
    int32_t s = atomgpu_linestrength_set_state_labels(P(fixture_ls, 1), BRK(K_NEG, 2) ? -1 : 1, N(2, 3),
                                                      P(ls_label_ids, 4), P(ls_label_order, 5));
    untouched = 1, finite = 1;
    return s;
}

/* TROVE's files of the fixture with a two-line .states table (columns 8 bytes wide). */
static int32_t call_ls_write_trove(void) {
    char stem[64];
    snprintf(stem, sizeof stem, "/tmp/atomgpu-reliability-trove-%d", (int)getpid());
    static const int64_t ids[2] = {1, 2}, g_total[2] = {1, 3};
    static const int32_t j[2] = {0, 1};
    static const char columns[16] = "  A1    A1 x  ::";
    double energies[2] = {0.0, 10.0};
    if (BRK(K_NAN, 5)) energies[1] = NAN;
    if (BRK(K_INF, 5)) energies[1] = INFINITY;
    atomgpu_intensity_params p = ls_params();
    p.convention = 1;
    if (BRK(K_NAN, 10)) p.temperature = NAN;
    atomgpu_line_filters f = {0, 5, 0, 0, 0, {0}};
    if (BRK(K_NEG, 11)) f.j_max = -1;
    int64_t counts[5] = {ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL, ISENTINEL};
    int32_t s = atomgpu_linestrength_write_trove(
        P(fixture_ls, 1), BRK(K_NULL, 2) ? NULL : stem, BRK(K_NEG, 3) ? -1 : BRK(K_HUGE, 3) ? HUGE_SIZE : 2,
        P(ids, 4), P(energies, 5), P(g_total, 6), P(j, 7), P(columns, 8), BRK(K_NEG, 9) ? -1 : 8,
        BRK(K_NULL, 10) ? NULL : &p, &f, counts);
    untouched = counts[0] == ISENTINEL;
    finite = counts[0] == counts[1] + counts[2] + counts[3] + counts[4];
    char path[96];
    snprintf(path, sizeof path, "%s.states", stem), remove(path);
    snprintf(path, sizeof path, "%s.trans", stem), remove(path);
    return s;
}

#define RELIABILITY_LINES_CR_ARGUMENTS \
    {call_ls_set_state_labels, "linestrength_set_state_labels", 1, "handle", "n"}, \
    {call_ls_set_state_labels, "linestrength_set_state_labels", 2, "block", "m"}, \
    {call_ls_set_state_labels, "linestrength_set_state_labels", 3, "n_states", "zmh"}, \
    {call_ls_set_state_labels, "linestrength_set_state_labels", 4, "ids", "n"}, \
    {call_ls_set_state_labels, "linestrength_set_state_labels", 5, "order", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 1, "handle", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 2, "stem", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 3, "n_states", "mh"}, \
    {call_ls_write_trove, "linestrength_write_trove", 4, "ids", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 5, "energies", "nai"}, \
    {call_ls_write_trove, "linestrength_write_trove", 6, "g_total", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 7, "j", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 8, "columns", "n"}, \
    {call_ls_write_trove, "linestrength_write_trove", 9, "column_width", "m"}, \
    {call_ls_write_trove, "linestrength_write_trove", 10, "params", "na"}, \
    {call_ls_write_trove, "linestrength_write_trove", 11, "filters", "m"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 1, "handle", "n"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 2, "n", "zmh"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 3, "block", "n"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 4, "vectors", "nai"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 5, "ld_vectors", "zmh"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 6, "energies", "nai"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 7, "ids", "n"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 8, "order", "n"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 9, "params", "nai"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 10, "filters", "m"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch", 11, "sink", "n"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 1, "handle", "n"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 2, "n", "zmh"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 3, "block", "n"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 4, "vectors", "nai"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 5, "ld_vectors", "zmh"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 6, "energies", "nai"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 7, "ids", "n"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 8, "order", "n"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 9, "params", "nai"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered", 10, "filters", "m"}, \
    {call_ls_lines_pending, "linestrength_lines_pending", 1, "handle", "n"}, \
    {call_ls_lines_pending, "linestrength_lines_pending", 2, "n_lines", "n"}, \
    {call_ls_take_lines, "linestrength_take_lines", 1, "handle", "n"}, \
    {call_ls_take_lines, "linestrength_take_lines", 2, "lines", "n"}, \
    {call_ls_take_lines, "linestrength_take_lines", 3, "capacity", "zmh"}, \
    {call_ls_take_lines, "linestrength_take_lines", 4, "taken", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 1, "handle", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 3, "gamma", "m"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 4, "gns", "ai"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 5, "n_primitive", "zmh"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 6, "v", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 7, "k", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 8, "tau", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 9, "ndeg", "zm"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 10, "n_sym", "m"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 11, "row_start", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 12, "col", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 13, "value", "n"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 14, "index_base", "m"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32", 15, "block", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 1, "handle", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 3, "gamma", "m"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 4, "gns", "ai"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 5, "n_primitive", "zmh"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 6, "v", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 7, "k", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 8, "tau", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 9, "ndeg", "zm"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 10, "n_sym", "m"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 11, "row_start", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 12, "col", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 13, "value", "n"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 14, "index_base", "m"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64", 15, "block", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 1, "handle", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 2, "j", "m"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 3, "gamma", "m"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 4, "gns", "ai"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 5, "n_primitive", "zmh"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 6, "v", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 7, "level", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 8, "deg", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 9, "ndeg", "zm"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 10, "n_sym", "m"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 11, "row_start", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 12, "col", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 13, "value", "n"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 14, "index_base", "m"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64", 15, "block", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 1, "handle", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 3, "n_upper_blocks", "m"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 4, "upper_blocks", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 5, "params", "nzma"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "capacity", "zm"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "upper_id", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "lower_id", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "wavenumber", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "moment", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "einstein_a", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "intensity", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 6, "components", "n"}, \
    {call_ls_transition_moments, "linestrength_transition_moments", 7, "n_moments", "n"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis", 1, "handle", "n"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis", 2, "j", "m"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis", 3, "e", "nai"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis", 4, "level_of_column", "n"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis", 5, "deg_of_column", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 1, "handle", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 2, "j", "m"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 3, "gamma", "m"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 4, "gns", "ai"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 5, "n_primitive", "zmh"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 6, "v", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 7, "level", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 8, "deg", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 9, "ndeg", "zm"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 10, "n_sym", "m"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 11, "row_start", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 12, "col", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 13, "value", "n"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym", 14, "block", "n"},
#define RELIABILITY_LINES_CR_VALID \
    {call_ls_set_state_labels, "linestrength_set_state_labels"}, \
    {call_ls_write_trove, "linestrength_write_trove"}, \
    {call_ls_lines_of_lower_batch, "linestrength_lines_of_lower_batch"}, \
    {call_ls_lines_of_lower_batch_buffered, "linestrength_lines_of_lower_batch_buffered"}, \
    {call_ls_lines_pending, "linestrength_lines_pending"}, {call_ls_take_lines, "linestrength_take_lines"}, \
    {call_ls_add_block_species_i32, "linestrength_add_block_species_i32"}, \
    {call_ls_add_block_species_i64, "linestrength_add_block_species_i64"}, \
    {call_ls_add_block_rotsym_i64, "linestrength_add_block_rotsym_i64"}, \
    {call_ls_transition_moments, "linestrength_transition_moments"}, \
    {call_ls_set_rotational_basis, "linestrength_set_rotational_basis"}, \
    {call_ls_add_block_rotsym, "linestrength_add_block_rotsym"},
#define RELIABILITY_LINES_CR_SPECIAL                                                                              \
    {"write_exomol: the callback stops it at once, an earlier pair kept", case_exomol_stop_at_once},              \
        {"write_exomol: the callback stops it at the 3rd report, an earlier pair kept", case_exomol_stop_at_third}, \
        {"write_exomol: the callback stops it at the end, an earlier pair kept", case_exomol_stop_at_end},        \
        {"write_exomol: the callback returns INT32_MIN, an earlier pair kept", case_exomol_stop_int32_min},       \
        {"write_exomol: the callback stops it, no file left", case_exomol_stop_no_old_pair},                      \
        {"write_exomol: a 1 ms time limit, an earlier pair kept", case_exomol_time_limit},                         \
        {"write_exomol: a full disk after .states, an earlier pair kept", case_exomol_full_disk},                  \
        {"write_exomol: a full disk after .states, no file left", case_exomol_full_disk_no_old_pair},              \
        {"write_exomol: .trans cannot be replaced, the earlier .states put back", case_exomol_trans_rename_fails}, \
        {"write_exomol: a pair replaced, nothing else left", case_exomol_replaces_pair},                           \
        {"write_trove: the callback stops it at the 3rd report, an earlier pair kept", case_trove_stop_at_third},  \
        {"write_trove: the callback stops it, no file left", case_trove_stop_no_old_pair},                        \
        {"write_trove: a 1 ms time limit, an earlier pair kept", case_trove_time_limit},                           \
        {"write_trove: a full disk after .states, an earlier pair kept", case_trove_full_disk},                    \
        {"run_stiff_systems: a bad cell is named", case_stiff_systems_bad_cell},                                   \
        {"run_rk4: n_steps above 2^53 refused with the range", case_rk4_steps_range},                              \
        {"line list: partition function 0, the rule's message", case_no_unit_in_rule},                             \
        {"lines_of_lower_batch: the sink stops it, CANCELLED and a prefix delivered", case_stream_sink_stops},     \
        {"line list: a bad convention or action, and TM, refused naming the field", case_line_list_convention_and_action}, \
        {"set_rotational_basis: a basis not orthogonal is refused naming `e`", case_rotsym_basis_not_orthogonal},  \
        {"add_block_rotsym: beside Wang blocks, refused naming `handle`", case_rotsym_beside_wang_blocks},                     \
        {"add_block numbered from 1: a bad index named as the caller wrote it", case_numbered_indices_named_as_written},
