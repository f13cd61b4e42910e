/* SPDX-License-Identifier: MIT */
/*
 * Progress on stderr: on a terminal one status line redrawn in place, with
 * event lines scrolling above it; otherwise timestamped plain lines;
 * nothing with --quiet.
 */
#ifndef FCR_PROGRESS_H
#define FCR_PROGRESS_H

#include "fcr.h"

enum fcr_progress_mode { FCR_PROGRESS_QUIET, FCR_PROGRESS_PLAIN, FCR_PROGRESS_TTY };

void fcr_progress_init(enum fcr_progress_mode mode);
enum fcr_progress_mode fcr_progress_mode(void);
/* An event: "HH:MM:SS text" (plain), or above the status line (tty). */
void fcr_progress_line(const char *fmt, ...) CM_PRINTF(1, 2);
/* The status line (tty only; redrawn at most 5 times a second unless forced). */
void fcr_progress_status(int force, const char *fmt, ...) CM_PRINTF(2, 3);
/* Removes the status line (before other output). */
void fcr_progress_clear(void);

#endif
