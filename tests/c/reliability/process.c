/* Reliability cases of the process part, included by tests/c/test_reliability.c (see there). */

#define RELIABILITY_PROCESS_ARGUMENTS
#define RELIABILITY_PROCESS_VALID
#define RELIABILITY_PROCESS_SPECIAL
