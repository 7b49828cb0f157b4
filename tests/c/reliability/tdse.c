/* Reliability cases of the tdse part, included by tests/c/test_reliability.c (see there). */

#define RELIABILITY_TDSE_ARGUMENTS
#define RELIABILITY_TDSE_VALID
#define RELIABILITY_TDSE_SPECIAL
