/* Reliability cases of the scf part, included by tests/c/test_reliability.c (see there). */

#define RELIABILITY_SCF_ARGUMENTS
#define RELIABILITY_SCF_VALID
#define RELIABILITY_SCF_SPECIAL
