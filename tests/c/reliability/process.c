/* Reliability cases of the process as a whole, included by tests/c/test_reliability.c (see there):
 * fork() after the library has run. Python's multiprocessing (fork start method) and Fortran
 * codes that fork helpers call the library in a child whose parent already started atomgpu's
 * worker threads, which fork() does not copy. The child's calls must work and give the parent's
 * numbers (CPU backend), or, for what cannot survive a fork (a CUDA context), fail with a status
 * whose message says so; never hang.
 *
 * Each case computes one workload per family in the case's process, forks, and repeats the
 * workloads in the child (and, for one case, in a grandchild forked from that child): calls on
 * fresh inputs and calls on handles made before the fork. The reference is the parent's own
 * result of the same call (the same function on the same inputs: a fork must not change it). */

#include <sys/types.h>

#define FORK_SECONDS 30 /* a child that takes longer has hung */

static void make_fixtures(void); /* defined below the tables of the suite */
#define FORK_WORK 6
#define FORK_VALUES 256

struct workload_result {
    int32_t status;
    int n;
    double values[FORK_VALUES];
    char message[256];
};

static const char *const workload_names[FORK_WORK] = {"rates_excitation (fresh inputs)", "cr_run_stiff (model made before fork)",
                                                      "linestrength_line_list (handle made before fork)",
                                                      "sturmian_hamiltonian (handle made before fork)", "scf_run (fresh inputs)",
                                                      "tdse_step + get_wavefunction (handle made before fork)"};

/* 32 plasma states x 48 transitions: enough pairs for the CPU path to spread them over threads. */
static void workload_rates(struct workload_result *r) {
    enum { S = 32, T = 48 };
    double te_s[S], ne_s[S], e[T], om[6 * T], gl[T], gu[T];
    static double up[S * T], down[S * T];
    for (int i = 0; i < S; i++) te_s[i] = 0.5 + 0.7 * i, ne_s[i] = 1e20 * (1.0 + i);
    for (int t = 0; t < T; t++) {
        e[t] = 2.0 + 0.37 * t, gl[t] = 1.0 + t % 3, gu[t] = 2.0 + t % 2;
        for (int k = 0; k < 6; k++) om[6 * t + k] = k == 0 ? 0.4 + 0.01 * t : 0.05 / (k + 1);
    }
    r->status = atomgpu_rates_excitation(ATOMGPU_STATS_FERMI_DIRAC, 5.0, 16, S, te_s, ne_s, T, e, om, gl, gu, up, down);
    r->n = FORK_VALUES;
    for (int i = 0; i < FORK_VALUES / 2; i++) r->values[i] = up[7 * i], r->values[FORK_VALUES / 2 + i] = down[11 * i];
}

static void workload_cr(struct workload_result *r) {
    double y[NL + 1], te_out[2], ne_out[2], p_out[2 * NL];
    const double times[2] = {1e-15, 2e-15};
    memcpy(y, fixture_y, sizeof y);
    r->status = atomgpu_cr_run_stiff(fixture_cr, y, 2, times, 1e-6, 1e-10, te_out, ne_out, p_out);
    r->n = 0;
    for (int i = 0; i < 2; i++) r->values[r->n++] = te_out[i], r->values[r->n++] = ne_out[i];
    for (int i = 0; i < 2 * NL; i++) r->values[r->n++] = p_out[i];
}

static void workload_linestrength(struct workload_result *r) {
    const int32_t uppers[1] = {1};
    atomgpu_intensity_params p = ls_params();
    int64_t n_lines = 0, up_id[8], lo_id[8];
    double a[8], nu[8], strength[8], intensity[8];
    const atomgpu_line_arrays lines = {8, up_id, lo_id, a, nu, strength, intensity};
    r->status = atomgpu_linestrength_line_list(fixture_ls, 0, 1, uppers, &p, &lines, &n_lines);
    r->n = 0;
    r->values[r->n++] = (double)n_lines;
    for (int64_t i = 0; i < n_lines && i < 8; i++) r->values[r->n++] = a[i], r->values[r->n++] = strength[i];
}

static void workload_sturmian(struct workload_result *r) {
    atomgpu_sturmian_params p = st_params();
    double h[16], s_out[16];
    r->status = atomgpu_sturmian_hamiltonian(fixture_st, &p, 1, st_la, st_lb, ATOMGPU_ORDER_A_FASTEST, h, 4, 4, s_out, 4, 4);
    r->n = 32;
    memcpy(r->values, h, sizeof h);
    memcpy(r->values + 16, s_out, sizeof s_out);
}

static void workload_scf(struct workload_result *r) {
    atomgpu_scf_params p = scf_params();
    double e[4], eps[1];
    int64_t iterations = 0;
    r->status = atomgpu_scf_run(&p, 2, scf_angular, scf_counts, scf_exponents, scf_closed, scf_open, e, 1, eps, &iterations);
    r->n = 5;
    memcpy(r->values, e, sizeof e);
    r->values[4] = eps[0];
}

static void workload_tdse(struct workload_result *r) {
    double out[2 * TD_N];
    r->status = atomgpu_tdse_set_wavefunction(fixture_tdse, td_psi, TD_N, 0.0); /* each run from the same state */
    if (r->status == ATOMGPU_OK) r->status = atomgpu_tdse_step(fixture_tdse, 3);
    if (r->status == ATOMGPU_OK) r->status = atomgpu_tdse_get_wavefunction(fixture_tdse, out, TD_N);
    r->n = 2 * TD_N;
    memcpy(r->values, out, sizeof out);
}

static void (*const workloads[FORK_WORK])(struct workload_result *) = {workload_rates, workload_cr, workload_linestrength,
                                                                       workload_sturmian, workload_scf, workload_tdse};

/* Runs every workload (fixtures made afresh: the handle-based ones are made before a fork). */
static void run_workloads(struct workload_result results[FORK_WORK]) {
    for (int w = 0; w < FORK_WORK; w++) {
        memset(&results[w], 0, sizeof results[w]);
        workloads[w](&results[w]);
        if (results[w].status != ATOMGPU_OK) snprintf(results[w].message, sizeof results[w].message, "%s", message());
    }
}

/* True when the parent ran on a GPU: CUDA does not survive fork, so there the child may refuse
 * with a message naming the fork instead of repeating the numbers. */
static int parent_on_cuda(void) {
    int32_t backend = 0;
    return atomgpu_device_info(&backend, NULL, 0, NULL, NULL, NULL, NULL) == ATOMGPU_OK && backend == ATOMGPU_BACKEND_CUDA;
}

/* In a forked process: every workload again, judged against the parent's `reference`. Returns the
 * number of workloads that went wrong. Prints which one runs, so that a hang is attributed. */
static int check_workloads_in_child(const struct workload_result reference[FORK_WORK], int cuda, const char *who) {
    int bad = 0;
    for (int w = 0; w < FORK_WORK; w++) {
        struct workload_result r;
        memset(&r, 0, sizeof r);
        printf("    %s: %s ...\n", who, workload_names[w]);
        fflush(stdout);
        workloads[w](&r);
        if (r.status != ATOMGPU_OK) {
            if (cuda && (r.status == ATOMGPU_ERR_NO_DEVICE || r.status == ATOMGPU_ERR_CUDA) && strstr(message(), "fork") != NULL)
            {
                printf("    %s: %s refused, as it may be on a GPU: %s\n", who, workload_names[w], message());
                continue;
            }
            bad += fail("%s: %s: status %d (%s): %s", who, workload_names[w], (int)r.status, atomgpu_status_string(r.status),
                        message());
            continue;
        }
        if (r.n != reference[w].n) {
            bad += fail("%s: %s: %d values, the parent had %d", who, workload_names[w], r.n, reference[w].n);
            continue;
        }
        for (int i = 0; i < r.n; i++) {
            double want = reference[w].values[i], got = r.values[i];
            /* Same backend: the same bits. A CUDA parent's child runs on the CPU: the documented
             * GPU-CPU agreement (1e-12 relative) with room for the tiny values. */
            int same = cuda ? fabs(got - want) <= 1e-10 * fabs(want) + 1e-300 : memcmp(&got, &want, sizeof got) == 0;
            if (!same) {
                bad += fail("%s: %s: value %d is %.17g, the parent's %.17g", who, workload_names[w], i, got, want);
                break;
            }
        }
    }
    return bad;
}

/* Waits for child `pid`; nonzero (with a message) unless it exited with status 0. */
static int child_verdict(pid_t pid, const char *who) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return fail("%s: waitpid failed", who);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return fail("%s hung (more than %d s; the last line above names the call)", who, FORK_SECONDS);
    if (WIFSIGNALED(status)) return fail("%s died of signal %d (%s)", who, WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail("%s failed (exit status %d)", who, WEXITSTATUS(status));
    return 0;
}

/* Runs `body(arg)` in a forked child that has FORK_SECONDS to finish; the child's verdict. */
static int in_forked_child(int (*body)(const void *), const void *arg, const char *who) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return fail("fork failed");
    if (pid == 0) {
        alarm(FORK_SECONDS);
        int bad = body(arg);
        fflush(stdout);
        _exit(bad ? 1 : 0);
    }
    return child_verdict(pid, who);
}

struct repeat {
    const struct workload_result *reference;
    int cuda, twice;
    const char *who;
};

/* In a child: the workloads again, and with `twice` in a grandchild too. */
static int repeat_workloads(const void *arg) {
    const struct repeat *r = arg;
    struct repeat once = {r->reference, r->cuda, 0, "grandchild"};
    int bad = check_workloads_in_child(r->reference, r->cuda, r->who);
    if (r->twice && bad == 0) bad = in_forked_child(repeat_workloads, &once, "the grandchild");
    return bad;
}

/* The parent runs every workload (its threads start), forks, and the child repeats them; with
 * `twice`, the child forks again and its child repeats them too. */
static int fork_case(int twice) {
    make_fixtures();
    struct workload_result reference[FORK_WORK];
    run_workloads(reference);
    for (int w = 0; w < FORK_WORK; w++)
        if (reference[w].status != ATOMGPU_OK)
            return fail("before the fork: %s: status %d: %s", workload_names[w], (int)reference[w].status, reference[w].message);
    struct repeat r = {reference, parent_on_cuda(), twice, "child"};
    return in_forked_child(repeat_workloads, &r, "the child");
}

static int case_fork_child(void) { return fork_case(0); }
static int case_fork_grandchild(void) { return fork_case(1); }

/* The child's progress settings go with its calls: a time limit stops a runaway RK4 run, and the
 * progress callback (set in the child) sees it. */
static int runaway_run_in_child(const void *arg) {
    int cuda = *(const int *)arg, bad = 0;
    struct progress_record reports = {0, 0, 0.0, 0.0, ""};
    double y[NL + 1], t[3], te_out[3], ne_out[3], p_out[3 * NL];
    int64_t n_samples = 0;
    memcpy(y, fixture_y, sizeof y);
    bad += atomgpu_set_progress(record_progress, &reports, 0.0) != ATOMGPU_OK;
    bad += atomgpu_set_time_limit(0.05) != ATOMGPU_OK;
    int32_t s = atomgpu_cr_run_rk4(fixture_cr, y, 1e-18, (int64_t)1 << 50, (int64_t)1 << 49, 3, &n_samples, t, te_out,
                                   ne_out, p_out);
    if (cuda && s == ATOMGPU_ERR_NO_DEVICE && strstr(message(), "fork") != NULL) return 0; /* GPU required: refused */
    if (s != ATOMGPU_ERR_CANCELLED) bad += fail("child: rk4 under a 0.05 s limit: status %d: %s", (int)s, message());
    if (reports.calls == 0) bad += fail("child: the progress callback was never called");
    if (memcmp(y, fixture_y, sizeof y) != 0) bad += fail("child: the cancelled run changed y");
    return bad;
}

static int case_fork_time_limit(void) {
    make_fixtures();
    struct workload_result warm;
    workload_rates(&warm); /* the parent's threads start */
    if (warm.status != ATOMGPU_OK) return fail("before the fork: %s", message());
    int cuda = parent_on_cuda();
    return in_forked_child(runaway_run_in_child, &cuda, "the child");
}

/* Several engines in a child: the threads a call starts for them (one per engine) use rayon too.
 * A TDSE team of two CPU members (x planes split in two, halos exchanged between the threads) and
 * two-engine line-strength and Sturmian handles, made and run before the fork and run again in
 * the child. Skipped where the parent runs on GPUs (a team there needs two, and the child cannot
 * use them). */
static atomgpu_tdse *make_tdse_team(void) {
    atomgpu_tdse_grid g = td_grid();
    atomgpu_tdse_params p;
    atomgpu_tdse_default_params(&p);
    p.n_devices = 2;
    atomgpu_tdse *h = NULL;
    if (atomgpu_tdse_create(&g, &p, &h) != ATOMGPU_OK ||
        atomgpu_tdse_set_potential(h, &td_ion, &td_surface, td_table, 2, td_times, td_path) != ATOMGPU_OK) {
        printf("    fixture: two-member TDSE handle: %s\n", message());
        exit(1);
    }
    return h;
}

static void workload_engines(atomgpu_tdse *team, atomgpu_linestrength *lines, atomgpu_sturmian *st,
                             struct workload_result *r) {
    double psi[2 * TD_N];
    r->n = 0;
    r->status = atomgpu_tdse_set_wavefunction(team, td_psi, TD_N, 0.0);
    if (r->status == ATOMGPU_OK) r->status = atomgpu_tdse_step(team, 3);
    if (r->status == ATOMGPU_OK) r->status = atomgpu_tdse_get_wavefunction(team, psi, TD_N);
    if (r->status != ATOMGPU_OK) return;
    memcpy(r->values, psi, sizeof psi);
    r->n = 2 * TD_N;
    const int32_t uppers[1] = {1};
    atomgpu_intensity_params p = ls_params();
    int64_t n_lines = 0, up_id[8], lo_id[8];
    double a[8], nu[8], strength[8], intensity[8];
    const atomgpu_line_arrays arrays = {8, up_id, lo_id, a, nu, strength, intensity};
    r->status = atomgpu_linestrength_line_list(lines, 0, 1, uppers, &p, &arrays, &n_lines);
    if (r->status != ATOMGPU_OK) return;
    for (int64_t i = 0; i < n_lines && i < 8; i++) r->values[r->n++] = strength[i];
    atomgpu_sturmian_params sp = st_params();
    double h[16], s_out[16];
    r->status = atomgpu_sturmian_hamiltonian(st, &sp, 1, st_la, st_lb, ATOMGPU_ORDER_A_FASTEST, h, 4, 4, s_out, 4, 4);
    for (int i = 0; r->status == ATOMGPU_OK && i < 16; i++) r->values[r->n++] = h[i];
}

struct engines {
    atomgpu_tdse *team;
    atomgpu_linestrength *lines;
    atomgpu_sturmian *st;
    struct workload_result reference;
};

static int engines_again(const void *arg) {
    const struct engines *e = arg;
    struct workload_result r;
    workload_engines(e->team, e->lines, e->st, &r);
    if (r.status != ATOMGPU_OK) return fail("child: status %d: %s", (int)r.status, message());
    if (r.n != e->reference.n || memcmp(r.values, e->reference.values, (size_t)r.n * sizeof r.values[0]) != 0)
        return fail("child: the two-engine results differ from the parent's");
    return 0;
}

static int case_fork_engines(void) {
    make_fixtures();
    if (parent_on_cuda()) return 0;
    atomgpu_tdse *team = make_tdse_team();
    atomgpu_linestrength *lines = NULL;
    atomgpu_sturmian *st = NULL;
    int32_t b0 = -1, b1 = -1;
    int ok = atomgpu_linestrength_create_on_devices(2, dipole, 2, 0, 2, &lines) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(lines, 0, 1.0, 2, ls_v, ls_k, ls_tau0, 0, NULL, NULL, NULL, &b0) == ATOMGPU_OK &&
             atomgpu_linestrength_add_block(lines, 1, 3.0, 2, ls_v, ls_k, ls_tau1, 0, NULL, NULL, NULL, &b1) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(lines, 0, 2, ls_e0, ls_vectors, 2) == ATOMGPU_OK &&
             atomgpu_linestrength_set_states(lines, 1, 2, ls_e1, ls_vectors, 2) == ATOMGPU_OK;
    atomgpu_gsf_params g = st_gsf();
    ok = ok && atomgpu_sturmian_create_on_devices(20.0, ST_NQ, 1, NULL, NULL, 0, 2, &st) == ATOMGPU_OK &&
         atomgpu_sturmian_add_gsf(st, ATOMGPU_ELECTRON_A, 0, 2, &g, NULL) == ATOMGPU_OK &&
         atomgpu_sturmian_add_gsf(st, ATOMGPU_ELECTRON_B, 0, 2, &g, NULL) == ATOMGPU_OK;
    if (!ok) return fail("two-engine fixtures: %s", message());
    struct engines e = {team, lines, st, {0}};
    workload_engines(team, lines, st, &e.reference);
    if (e.reference.status != ATOMGPU_OK) return fail("before the fork: %s", message());
    return in_forked_child(engines_again, &e, "the child");
}

/* ------------------------------------------------------------------------------------------ */
/* Every long call of every family (README: the table of long calls) honours the calling thread's
 * progress callback and time limit: the valid call of the suite (`call_*`, brk = 0), made with a
 * callback that stops it at its first report, or with a time limit of 1 ns, is
 * ATOMGPU_ERR_CANCELLED with its outputs untouched. */
static const struct {
    const char *task; /* the task the callback must be told */
    call_fn call;
} long_calls[] = {
    {"atomgpu_cr_run_rk4", call_cr_run_rk4},
    {"atomgpu_cr_run_stiff", call_cr_run_stiff},
    {"atomgpu_cr_run_stiff", call_cr_run_stiff_systems},
    {"atomgpu_linestrength_line_list", call_ls_line_list},
    {"atomgpu_linestrength_line_list", call_ls_line_list_filtered},
    {"atomgpu_linestrength_write_exomol", call_ls_write_exomol},
    {"atomgpu_sturmian_hamiltonian", call_st_hamiltonian},
    {"atomgpu_scf_integrals_create", call_scf_create},
    {"atomgpu_scf_run", call_scf_run},
    {"atomgpu_scf_optimise_wtbs", call_scf_optimise},
    {"atomgpu_tdse_step", call_td_step},
    {"atomgpu_tdse_relax", call_td_relax},
};
#define N_LONG_CALLS (sizeof long_calls / sizeof long_calls[0])

static int long_call_stops(int stopped_by_callback) {
    int bad = 0;
    for (size_t i = 0; i < N_LONG_CALLS; i++) {
        make_fixtures();
        struct progress_record r = {0, 1, 0.0, 0.0, ""};
        if (stopped_by_callback) atomgpu_set_progress(record_progress, &r, 0.0);
        else atomgpu_set_time_limit(1e-9);
        brk = 0;
        int32_t s = long_calls[i].call();
        atomgpu_set_progress(NULL, NULL, 0.0);
        atomgpu_set_time_limit(0.0);
        if (s != ATOMGPU_ERR_CANCELLED)
            bad += fail("%s: status %d (%s), want ATOMGPU_ERR_CANCELLED: %s", long_calls[i].task, (int)s,
                        atomgpu_status_string(s), message());
        else if (!untouched)
            bad += fail("%s: an output was written by the stopped call", long_calls[i].task);
        else if (stopped_by_callback && strcmp(r.task, long_calls[i].task) != 0)
            bad += fail("%s: the callback was told task \"%s\"", long_calls[i].task, r.task);
    }
    return bad;
}

static int case_long_calls_callback(void) { return long_call_stops(1); }
static int case_long_calls_time_limit(void) { return long_call_stops(0); }

#define RELIABILITY_PROCESS_ARGUMENTS
#define RELIABILITY_PROCESS_VALID
#define RELIABILITY_PROCESS_SPECIAL                                                                                   \
    {"fork: a child repeats every family's calls after the parent ran them", case_fork_child},                        \
        {"fork: a grandchild (fork of a forked child) repeats them too", case_fork_grandchild},                       \
        {"fork: the child's time limit and progress callback apply to its calls", case_fork_time_limit},      \
        {"fork: several engines in a child (a two-member TDSE team, two line-strength and Sturmian engines)",  \
         case_fork_engines},                                                                                   \
        {"every long call: a callback that stops it at its first report, outputs untouched",                   \
         case_long_calls_callback},                                                                            \
        {"every long call: a time limit of 1 ns stops it, outputs untouched", case_long_calls_time_limit},
