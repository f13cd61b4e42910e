/* SPDX-License-Identifier: MIT */
/*
 * What the user sees while a campaign runs, on stderr: event lines (on a
 * terminal they scroll above one status line redrawn in place; otherwise
 * they carry a time stamp; nothing with --quiet), and the status line with
 * where the campaign is, the elapsed time, the ETA and fio's current rate.
 * One of each per process.
 */
#ifndef FCR_UTIL_STATUS_H
#define FCR_UTIL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fcr.h"

enum fcr_progress_mode { FCR_PROGRESS_QUIET, FCR_PROGRESS_PLAIN, FCR_PROGRESS_TTY };

void fcr_progress_init(enum fcr_progress_mode mode);
enum fcr_progress_mode fcr_progress_mode(void);
/* An event: "HH:MM:SS text" (plain), or above the status line (tty). */
void fcr_progress_line(const char *fmt, ...) CM_PRINTF(1, 2);
/* A failure's reason: like fcr_progress_line(), and shown with --quiet too
 * (without the time stamp there). */
void fcr_progress_problem(const char *fmt, ...) CM_PRINTF(1, 2);
/* Removes the status line (before other output); the next event line or
 * redraw brings it back. */
void fcr_progress_clear(void);
/* Removes it for good: what follows (the last lines, the table) starts on a
 * clean line. */
void fcr_progress_end(void);

/* ---- the status line ---------------------------------------------------------- */

/* First guess of fio's own time beyond its runtime (start-up, layout,
 * report); replaced by what the runs measure. */
#define FCR_FIO_OVERHEAD_GUESS_S 0.3

/* The campaign the line speaks of; the elapsed time counts from here. */
void fcr_status_begin(size_t n_states, uint64_t runtime_ms, uint64_t pause_ms);
double fcr_status_elapsed_s(void);
/* What is left to do, for the ETA. */
void fcr_status_add_work(unsigned tests, unsigned pauses, uint64_t wait_ms);
/* Where the campaign is: state si named `state` (borrowed; NULL: past the
 * last), its repetition rep of repeat (shown when repeat > 1), its round of
 * its own rounds (round 0: its actions); steady_window: its window when its
 * rounds are until-steady, rounds being the most (0: fixed rounds). */
struct fcr_status_where {
	size_t si;
	const char *state;
	unsigned rep, repeat;
	unsigned round, rounds;
	unsigned steady_window;
};
void fcr_status_at(const struct fcr_status_where *w);
/* Redraws the line with `what` (the test or action at hand); at most 5
 * times a second unless forced.  Only on a terminal. */
void fcr_status_show(const char *what, bool force);
/* A fio run of test `test` starts; its rate shows until it ends. */
void fcr_status_fio_start(const char *test);
/* fio's current rate ("r=170k IOPS"), from its status lines. */
void fcr_status_fio_rate(const char *text);
/* The run ended; extra_s is its time beyond the runtime (NaN: not counted). */
void fcr_status_fio_end(double extra_s);
/* One planned test, pause or wait is behind us (a pause or wait when it
 * begins: fcr_status_wait() counts down what is left of it). */
void fcr_status_test_done(void);
void fcr_status_pause_done(void);
void fcr_status_waited(uint64_t ms);
/* Waits ms with the line ticking ("settle (12s left)"); 1 when *stop became
 * nonzero, else 0. */
int fcr_status_wait(uint64_t ms, const char *what, volatile int *stop);
/*
 * Round r of a state's rounds as "3/8"; of rounds = until-steady `rounds`
 * with window steady_window (0: fixed rounds), the rounds the state can
 * still end with: "3/5-8" up to the window, "6/6-8" after it, "8/8" at the
 * last.
 */
void fcr_format_round_of(char *buf, size_t len, unsigned r, unsigned rounds,
			 unsigned steady_window);
/*
 * Where the status line goes instead of the terminal (a fleet's host: its
 * supervisor draws one line for all, fleet/link.h): `send` gets the line's
 * fields between tabs, "ETA_S\tSTATE\tROUND\tWHAT\tRATE" (STATE with
 * "rep K/N" when it repeats, ROUND "r2/4" or "before", RATE possibly
 * empty), at most twice a second unless forced, in every progress mode.
 * NULL: the terminal again.
 */
void fcr_status_sink(void (*send)(const char *fields));

/* ---- the fleet's line (fleet/supervisor.c) -------------------------------------- */

/* The terminal's width in columns (80 when it is none). */
unsigned fcr_status_width(void);
/* The status line is `text` as given (cut to the terminal's width); at
 * most 5 redraws a second unless forced.  Only on a terminal. */
void fcr_status_show_text(const char *text, bool force);
/* A line as given (no time stamp), above the status line on a terminal;
 * on `f` (stdout or stderr). */
void fcr_progress_text(FILE *f, const char *text);

/* "1:02:03" or "2:03". */
void fcr_format_clock(char *buf, size_t len, double s);

#endif
