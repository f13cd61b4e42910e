/* SPDX-License-Identifier: MIT */
/* Event lines and the status line (status.h). */
#include "util/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* What the status line says. */
static struct {
	bool begun;
	double started_mono;
	/* the campaign's shape */
	double runtime_s, pause_s;
	size_t n_states;
	/* for the ETA */
	double fio_extra_s;
	unsigned fio_extra_n;
	unsigned tests_left;
	unsigned pauses_left;
	uint64_t wait_left_ms;
	double wait_end_mono; /* the wait under way (fcr_status_wait) ends then; 0: none */
	/* where we are */
	size_t si;
	const char *state;	/* borrowed */
	unsigned rep, repeat;	/* repetition rep of repeat; 0: the state has none */
	unsigned round, rounds; /* of the state's own rounds */
	unsigned steady_window; /* until steady: its window, S.rounds the most */
	const char *test;
	double test_started;
	char rate[64];
} S;

static enum fcr_progress_mode mode;
static char status_text[512];
static int status_shown;
static double last_draw;
static void (*sink)(const char *fields);
static double last_sent;

void fcr_progress_init(enum fcr_progress_mode m)
{
	mode = m;
}

enum fcr_progress_mode fcr_progress_mode(void)
{
	return mode;
}

unsigned fcr_status_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

/* Terminal columns of UTF-8 text: its bytes but continuation bytes. */
static size_t text_cols(const char *s, size_t n)
{
	size_t cols = 0;
	for (size_t i = 0; i < n && s[i]; i++)
		cols += ((unsigned char)s[i] & 0xc0) != 0x80;
	return cols;
}

/* The bytes of s that fill at most `cols` columns, cut between characters. */
static size_t cut_to_cols(const char *s, size_t cols)
{
	size_t i = 0, c = 0;
	while (s[i]) {
		size_t k = 1;
		while (((unsigned char)s[i + k] & 0xc0) == 0x80)
			k++;
		if (c + 1 > cols)
			break;
		i += k;
		c++;
	}
	return i;
}

static void draw(void)
{
	size_t w = fcr_status_width() - 1;
	fprintf(stderr, "\r\033[K%.*s", (int)cut_to_cols(status_text, w), status_text);
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

void fcr_progress_end(void)
{
	fcr_progress_clear();
	status_text[0] = '\0';
	S.begun = false;
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

void fcr_progress_problem(const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (mode == FCR_PROGRESS_QUIET) {
		/* -q hides progress, never why something failed */
		fprintf(stderr, "fiocamp-run: %s\n", text);
		return;
	}
	fcr_progress_line("%s", text);
}

void fcr_status_begin(size_t n_states, uint64_t runtime_ms, uint64_t pause_ms)
{
	memset(&S, 0, sizeof(S));
	S.begun = true;
	S.started_mono = cm_mono_s();
	S.n_states = n_states;
	S.runtime_s = (double)runtime_ms / 1000.0;
	S.pause_s = (double)pause_ms / 1000.0;
}

double fcr_status_elapsed_s(void)
{
	return cm_mono_s() - S.started_mono;
}

void fcr_status_add_work(unsigned tests, unsigned pauses, uint64_t wait_ms)
{
	S.tests_left += tests;
	S.pauses_left += pauses;
	S.wait_left_ms += wait_ms;
}

void fcr_status_at(const struct fcr_status_where *w)
{
	S.si = w->si;
	S.state = w->state;
	S.rep = w->repeat > 1 ? w->rep : 0;
	S.repeat = w->repeat;
	S.round = w->round;
	S.rounds = w->rounds;
	S.steady_window = w->steady_window;
}

void fcr_format_round_of(char *buf, size_t len, unsigned r, unsigned rounds, unsigned steady_window)
{
	unsigned fewest = steady_window > r ? steady_window : r;
	if (steady_window && fewest < rounds)
		snprintf(buf, len, "%u/%u-%u", r, fewest, rounds);
	else
		snprintf(buf, len, "%u/%u", r, rounds);
}

void fcr_format_clock(char *buf, size_t len, double s)
{
	if (s < 0)
		s = 0;
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, (t / 60) % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

static double fio_extra(void)
{
	return S.fio_extra_n ? S.fio_extra_s / S.fio_extra_n : FCR_FIO_OVERHEAD_GUESS_S;
}

static double eta_s(void)
{
	double left = S.tests_left * (S.runtime_s + fio_extra()) + S.pauses_left * S.pause_s +
		      (double)S.wait_left_ms / 1000.0;
	if (S.test)
		left -= cm_mono_s() - S.test_started;
	/* a pause or settle under way is no longer in the counts above */
	if (S.wait_end_mono > cm_mono_s())
		left += S.wait_end_mono - cm_mono_s();
	return left < 0 ? 0 : left;
}

/*
 * `name` cut to `cols` columns ("snapshot-aft…"); at least one character and
 * the ellipsis.
 */
static void shorten(char *buf, size_t len, const char *name, size_t cols)
{
	if (text_cols(name, strlen(name)) <= cols) {
		snprintf(buf, len, "%s", name);
		return;
	}
	size_t keep = cut_to_cols(name, cols > 1 ? cols - 1 : 1);
	snprintf(buf, len, "%.*s…", (int)keep, name);
}

/* The line but the state's name, in form 0 (all labels), 1 (none) or 2
 * (nor the elapsed time): `head` goes before the name, `tail` after it. */
static void line_parts(int form, const char *what, char *head, size_t head_len, char *tail,
		       size_t tail_len)
{
	char el[32], eta[32], elapsed[48] = "";
	fcr_format_clock(el, sizeof(el), fcr_status_elapsed_s());
	fcr_format_clock(eta, sizeof(eta), eta_s());
	if (form < 2)
		snprintf(elapsed, sizeof(elapsed), "%s%s | ", el, form == 0 ? " elapsed" : "");
	char rep[48] = "", round[96];
	if (S.rep)
		snprintf(rep, sizeof(rep), form == 0 ? "repetition %u/%u, " : "rep%u/%u ", S.rep,
			 S.repeat);
	if (S.round) {
		char of[48];
		fcr_format_round_of(of, sizeof(of), S.round, S.rounds, S.steady_window);
		snprintf(round, sizeof(round), form == 0 ? "%sround %s" : "%sr%s", rep, of);
	} else
		snprintf(round, sizeof(round), "%sbefore", rep);
	snprintf(head, head_len, "%s%zu/%zu ", form == 0 ? "state " : "", S.si + 1, S.n_states);
	snprintf(tail, tail_len, "%s%s | %s | %sETA %s%s%s", form == 0 ? " | " : " ", round, what,
		 elapsed, eta, S.rate[0] && S.round ? " | " : "", S.round ? S.rate : "");
}

/*
 * Composes the line to fit `width` columns: on a narrow terminal the
 * state's name is shortened first (to 8 columns), then the labels go
 * ("state", "round", "elapsed") and the name shrinks further, then a long
 * action's text; the test, the ETA and fio's rate stay.  What is still too
 * wide is cut at the end.
 */
static void compose(char *out, size_t len, const char *what, size_t width)
{
	if (!S.state) {
		char el[32], eta[32];
		fcr_format_clock(el, sizeof(el), fcr_status_elapsed_s());
		fcr_format_clock(eta, sizeof(eta), eta_s());
		snprintf(out, len, "%s | %s elapsed | ETA %s%s%s", what, el, eta,
			 S.rate[0] ? " | " : "", S.rate);
		return;
	}
	size_t name_cols = text_cols(S.state, strlen(S.state));
	char head[64], tail[400], name[160], short_what[160];
	for (int form = 0; form < 3; form++) {
		line_parts(form, what, head, sizeof(head), tail, sizeof(tail));
		size_t fixed = text_cols(head, strlen(head)) + text_cols(tail, strlen(tail));
		size_t least = form == 2 ? 2 : name_cols < 8 ? name_cols : 8;
		size_t what_cols = text_cols(what, strlen(what));
		if (form == 2 && fixed + least > width && what_cols > 8) {
			/* a long action's text gives way too, before the ETA would */
			size_t over = fixed + least - width;
			shorten(short_what, sizeof(short_what), what,
				what_cols > over + 8 ? what_cols - over : 8);
			line_parts(form, short_what, head, sizeof(head), tail, sizeof(tail));
			fixed = text_cols(head, strlen(head)) + text_cols(tail, strlen(tail));
		}
		size_t room = width > fixed ? width - fixed : 0;
		if (room >= least || form == 2) {
			shorten(name, sizeof(name), S.state, room > name_cols ? name_cols : room);
			break;
		}
	}
	snprintf(out, len, "%s%s%s", head, name, tail);
}

/* Appends `text` to b with its tabs and newlines as blanks. */
static void put_field(struct cm_buf *b, const char *text, bool last)
{
	for (const char *p = text; *p; p++)
		cm_buf_putn(b, *p == '\t' || *p == '\n' || *p == '\r' ? " " : p, 1);
	if (!last)
		cm_buf_putn(b, "\t", 1);
}

/* The line's fields for the sink (status.h). */
static void send_fields(const char *what)
{
	char eta[32], label[300] = "", round[64] = "before";
	snprintf(eta, sizeof(eta), "%.0f", eta_s());
	if (S.state && S.rep)
		snprintf(label, sizeof(label), "%s rep %u/%u", S.state, S.rep, S.repeat);
	else if (S.state)
		snprintf(label, sizeof(label), "%s", S.state);
	if (S.state && S.round) {
		char of[48];
		fcr_format_round_of(of, sizeof(of), S.round, S.rounds, S.steady_window);
		snprintf(round, sizeof(round), "r%s", of);
	}
	struct cm_buf b = {0};
	put_field(&b, eta, false);
	put_field(&b, label, false);
	put_field(&b, round, false);
	put_field(&b, what, false);
	put_field(&b, S.round ? S.rate : "", true);
	sink(b.s);
	free(b.s);
	last_sent = cm_mono_s();
}

void fcr_status_sink(void (*send)(const char *fields))
{
	sink = send;
}

void fcr_status_show_text(const char *text, bool force)
{
	if (mode != FCR_PROGRESS_TTY)
		return;
	snprintf(status_text, sizeof(status_text), "%s", text);
	if (force || cm_mono_s() - last_draw >= 0.2)
		draw();
}

void fcr_progress_text(FILE *f, const char *text)
{
	/* stdout and stderr share the terminal */
	fcr_progress_clear();
	fprintf(f, "%s\n", text);
	fflush(f);
	if (mode == FCR_PROGRESS_TTY && status_text[0])
		draw();
}

void fcr_status_show(const char *what, bool force)
{
	if (sink && S.begun) {
		if (force || cm_mono_s() - last_sent >= 0.5)
			send_fields(what);
		return;
	}
	if (mode != FCR_PROGRESS_TTY || !S.begun)
		return;
	compose(status_text, sizeof(status_text), what, fcr_status_width() - 1);
	if (force || cm_mono_s() - last_draw >= 0.2)
		draw();
}

void fcr_status_fio_start(const char *test)
{
	S.test = test;
	S.test_started = cm_mono_s();
	S.rate[0] = '\0';
}

void fcr_status_fio_rate(const char *text)
{
	snprintf(S.rate, sizeof(S.rate), "%s", text);
	fcr_status_show(S.test ? S.test : "fio", false);
}

void fcr_status_fio_end(double extra_s)
{
	const char *test = S.test;
	S.test = NULL;
	S.rate[0] = '\0';
	/* the rate ends with the run: the supervisor must not keep showing it */
	if (sink && S.begun && test)
		send_fields(test);
	if (isfinite(extra_s)) {
		S.fio_extra_s += extra_s;
		S.fio_extra_n++;
	}
}

void fcr_status_test_done(void)
{
	if (S.tests_left)
		S.tests_left--;
}

void fcr_status_pause_done(void)
{
	if (S.pauses_left)
		S.pauses_left--;
}

void fcr_status_waited(uint64_t ms)
{
	S.wait_left_ms = S.wait_left_ms > ms ? S.wait_left_ms - ms : 0;
}

int fcr_status_wait(uint64_t ms, const char *what, volatile int *stop)
{
	double end = cm_mono_s() + (double)ms / 1000.0;
	S.wait_end_mono = end;
	for (;;) {
		double left = end - cm_mono_s();
		if (left <= 0)
			break;
		char label[96];
		snprintf(label, sizeof(label), "%s (%.0fs left)", what, ceil(left));
		fcr_status_show(label, false);
		uint64_t chunk = left > 0.5 ? 500 : (uint64_t)(left * 1000.0) + 1;
		if (cm_sleep_ms(chunk, stop)) {
			S.wait_end_mono = 0;
			return 1;
		}
	}
	S.wait_end_mono = 0;
	return 0;
}
