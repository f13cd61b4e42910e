/* SPDX-License-Identifier: MIT */
/*
 * A few assertion macros for the test programs.  A failed check prints
 * file:line and what differed, and the program goes on; check_exit()
 * returns the exit status meson reads.
 */
#ifndef FC_CHECK_H
#define FC_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond)) {                                                                     \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
		check_count++;                                                                     \
		if (check_a_ != check_b_) {                                                        \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__,  \
				#a, check_a_, check_b_);                                           \
		}                                                                                  \
	} while (0)

#define CHECK_U64(a, b)                                                                            \
	do {                                                                                       \
		unsigned long long check_a_ = (unsigned long long)(a);                             \
		unsigned long long check_b_ = (unsigned long long)(b);                             \
		check_count++;                                                                     \
		if (check_a_ != check_b_) {                                                        \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__,  \
				#a, check_a_, check_b_);                                           \
		}                                                                                  \
	} while (0)

/* Relative tolerance; NaN equals NaN. */
#define CHECK_DBL(a, b, rel)                                                                       \
	do {                                                                                       \
		double check_a_ = (double)(a), check_b_ = (double)(b);                             \
		check_count++;                                                                     \
		int check_ok_ = (isnan(check_a_) && isnan(check_b_)) ||                            \
				fabs(check_a_ - check_b_) <= (rel)*fmax(fabs(check_b_), 1e-300);   \
		if (!check_ok_) {                                                                  \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__,          \
				__LINE__, #a, check_a_, check_b_);                                 \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *check_a_ = (a), *check_b_ = (b);                                       \
		check_count++;                                                                     \
		if (!check_a_ || !check_b_ ? check_a_ != check_b_                                  \
					   : strcmp(check_a_, check_b_) != 0) {                    \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,        \
				__LINE__, #a, check_a_ ? check_a_ : "(null)",                      \
				check_b_ ? check_b_ : "(null)");                                   \
		}                                                                                  \
	} while (0)

static inline int check_exit(void)
{
	fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Path of a file below the source tree (FC_SRCDIR, set by meson). */
static inline const char *check_src(const char *rel)
{
	static char buf[8][4096];
	static int slot;
	const char *root = getenv("FC_SRCDIR");
	char *b = buf[slot++ % 8];
	snprintf(b, sizeof(buf[0]), "%s/%s", root ? root : ".", rel);
	return b;
}

#endif
