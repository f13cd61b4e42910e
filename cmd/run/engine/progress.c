/* SPDX-License-Identifier: MIT */
#include "engine/progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static enum fcr_progress_mode mode;
static char status_text[512];
static int status_shown;
static double last_draw;

void fcr_progress_init(enum fcr_progress_mode m)
{
	mode = m;
}

enum fcr_progress_mode fcr_progress_mode(void)
{
	return mode;
}

static unsigned term_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

static void draw(void)
{
	unsigned w = term_width() - 1;
	fprintf(stderr, "\r\033[K%.*s", (int)w, status_text);
	fflush(stderr);
	status_shown = 1;
	last_draw = cm_mono_s();
}

void fcr_progress_clear(void)
{
	if (mode == FCR_PROGRESS_TTY && status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		status_shown = 0;
	}
}

void fcr_progress_line(const char *fmt, ...)
{
	if (mode == FCR_PROGRESS_QUIET)
		return;
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (mode == FCR_PROGRESS_TTY) {
		fcr_progress_clear();
		fprintf(stderr, "%s\n", text);
		if (status_text[0])
			draw();
		return;
	}
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char stamp[16];
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	fprintf(stderr, "%s %s\n", stamp, text);
	fflush(stderr);
}

void fcr_progress_status(int force, const char *fmt, ...)
{
	if (mode != FCR_PROGRESS_TTY)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(status_text, sizeof(status_text), fmt, ap);
	va_end(ap);
	if (force || cm_mono_s() - last_draw >= 0.2)
		draw();
}
