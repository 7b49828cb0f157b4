/* Reliability cases of the sturmian part, included by tests/c/test_reliability.c (see there). */

#define RELIABILITY_STURMIAN_ARGUMENTS
#define RELIABILITY_STURMIAN_VALID
#define RELIABILITY_STURMIAN_SPECIAL
