/* Reliability cases of the lines_cr part, included by tests/c/test_reliability.c (see there). */

#define RELIABILITY_LINES_CR_ARGUMENTS
#define RELIABILITY_LINES_CR_VALID
#define RELIABILITY_LINES_CR_SPECIAL
