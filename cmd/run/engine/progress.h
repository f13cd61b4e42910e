/* SPDX-License-Identifier: MIT */
/*
 * Progress on stderr: on a terminal one status line redrawn in place, with
 * event lines scrolling above it; otherwise timestamped plain lines;
 * nothing with --quiet.
 */
#ifndef FCR_PROGRESS_H
#define FCR_PROGRESS_H

#include "fcr.h"

enum progress_mode { PROGRESS_QUIET, PROGRESS_PLAIN, PROGRESS_TTY };

void progress_init(enum progress_mode mode);
enum progress_mode progress_mode(void);
/* An event: "HH:MM:SS text" (plain), or above the status line (tty). */
void progress_line(const char *fmt, ...) CM_PRINTF(1, 2);
/* The status line (tty only; redrawn at most 5 times a second unless forced). */
void progress_status(int force, const char *fmt, ...) CM_PRINTF(2, 3);
/* Removes the status line (before other output). */
void progress_clear(void);

#endif
