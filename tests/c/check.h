/*
 * check.h: the helpers the C test programs in tests/c share: the check counters, check_rel,
 * check, check_ok, the common part of an expect_bad (status, argument position, message) and
 * the CODATA constants they all use. Each program is one translation unit that includes this
 * header once, so the `static` counters are that program's own; the functions are `static
 * inline` so that a program that does not call one of them compiles without a warning.
 */
#ifndef ATOMGPU_TESTS_CHECK_H
#define ATOMGPU_TESTS_CHECK_H

#include "atomgpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* CODATA 2018, in eV and cm. */
static const double k_pi = 3.14159265358979323846;
static const double k_hc = 1.2398419843320026e-4; /* h c [eV cm] */
static const double k_mec2 = 510998.95;           /* m_e c^2 [eV] */

static int failures = 0;
static int checks = 0;

static inline void check_rel(const char *what, double got, double want, double tol) {
    double err = fabs(got - want) / fabs(want);
    checks++;
    if (!(err <= tol)) {
        failures++;
        printf("FAIL %s: got %.17g, want %.17g (relative error %.3g > %.3g)\n", what, got, want, err, tol);
    }
}

static inline void check(const char *what, int ok) {
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL %s\n", what);
    }
}

/* Returns 1 when the call succeeded; reports the library's message otherwise. */
static inline int check_ok(const char *what, int32_t status) {
    checks++;
    if (status != ATOMGPU_OK) {
        char message[512];
        atomgpu_last_error_message(message, sizeof message);
        failures++;
        printf("FAIL %s: status %d (%s): %s\n", what, (int)status, atomgpu_status_string(status), message);
        return 0;
    }
    return 1;
}

/* The part of every expect_bad: `status` is ATOMGPU_ERR_INVALID_ARGUMENT,
 * atomgpu_last_error_arg() is `position`, and the last error message names the C parameter
 * `name` in backquotes (and holds `fragment`, e.g. "[1]", unless it is NULL). Prints one FAIL
 * line per miss and returns 1 when all hold. Counts nothing: the caller adds its own checks and
 * counts the call once. The message (`capacity` bytes) and the length that
 * atomgpu_last_error_message returned are left in `message` and `*length`. */
static inline int invalid_argument_reported(const char *what, int32_t status, int32_t position, const char *name,
                                            const char *fragment, char *message, size_t capacity, int64_t *length) {
    char quoted[128];
    int ok = 1;
    *length = atomgpu_last_error_message(message, capacity);
    int32_t arg = atomgpu_last_error_arg();
    snprintf(quoted, sizeof quoted, "`%s`", name);
    if (status != ATOMGPU_ERR_INVALID_ARGUMENT) {
        printf("FAIL %s: status %d (%s), want ATOMGPU_ERR_INVALID_ARGUMENT\n", what, (int)status,
               atomgpu_status_string(status));
        ok = 0;
    }
    if (arg != position) {
        printf("FAIL %s: atomgpu_last_error_arg() = %d, want %d (%s)\n", what, (int)arg, (int)position, name);
        ok = 0;
    }
    if (*length <= 0 || strstr(message, quoted) == NULL || (fragment != NULL && strstr(message, fragment) == NULL)) {
        printf("FAIL %s: message \"%s\" does not name %s%s\n", what, message, quoted, fragment ? fragment : "");
        ok = 0;
    }
    return ok;
}

/* Counts one check: `status` is ATOMGPU_ERR_INVALID_ARGUMENT at `position` naming `name`, and
 * `untouched` (the caller's test that no output was written) holds. */
static inline void expect_invalid(const char *what, int32_t status, int32_t position, const char *name,
                                  int untouched) {
    char message[1024];
    int64_t length;
    int ok = invalid_argument_reported(what, status, position, name, NULL, message, sizeof message, &length);
    checks++;
    if (!untouched) {
        printf("FAIL %s: an output was written on error\n", what);
        ok = 0;
    }
    if (!ok) failures++;
}

#endif /* ATOMGPU_TESTS_CHECK_H */
