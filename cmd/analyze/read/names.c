/* SPDX-License-Identifier: MIT */
/*
 * What file names say: the words of a name (dates and trailing rounds
 * taken out) for the default inference, the campaign layout, bench-fio's
 * tree, --pattern, fio's log names, and which files may be fio output.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/read.h"

const char *an_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool an_name_sep(char c)
{
	return c == '-' || c == '_' || c == '.' || c == ' ';
}

bool an_split_label(const char *label, size_t len, struct an_ident *id)
{
	size_t i = len;
	while (i > 0 && isdigit((unsigned char)label[i - 1]))
		i--;
	int round = 0;
	size_t digits = len - i;
	if (digits > 0 && digits <= AN_ROUND_MAX_DIGITS) {
		round = atoi(label + i);
		if (i > 0 && (label[i - 1] == '-' || label[i - 1] == '_'))
			i--;
	} else {
		i = len;
	}
	if (i == 0)
		return false;
	id->state = cm_strndup(label, i);
	id->round = round;
	return true;
}

bool an_path_last(const char *key_path, size_t want, const char **start)
{
	const char *end = key_path + strlen(key_path);
	const char *p = end;
	size_t seen = 0;
	while (p > key_path) {
		p--;
		if (*p == '/') {
			seen++;
			if (seen == want) {
				*start = p + 1;
				return true;
			}
		}
	}
	if (seen + 1 == want) {
		*start = key_path;
		return true;
	}
	return false;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/* Words that say the number after them is a round. */
static const char *const round_words[] = {"run",       "round", "r",	"rep", "repeat",  "iter",
					  "iteration", "loop",	"pass", "try", "attempt", "trial"};

static bool is_round_word(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(round_words) / sizeof(round_words[0]); i++) {
		if (strlen(round_words[i]) == n && strncasecmp(round_words[i], s, n) == 0)
			return true;
	}
	return false;
}

/* "3", "r3", "run3", "Round03" -> 3; 0 if not that shape. */
static int round_token(const char *s, size_t n, bool bare_ok)
{
	size_t w = 0;
	while (w < n && isalpha((unsigned char)s[w]))
		w++;
	if (w == 0 && !bare_ok)
		return 0;
	if (w > 0 && !is_round_word(s, w))
		return 0;
	size_t d = n - w;
	if (d == 0 || d > AN_ROUND_MAX_DIGITS || !all_digits(s + w, d))
		return 0;
	int r = atoi(s + w);
	return r > 0 ? r : 0;
}

int an_infer_layout(const char *key_path, struct an_ident *id)
{
	memset(id, 0, sizeof(*id));
	const char *three;
	if (!an_path_last(key_path, 3, &three))
		return -1;
	const char *s1 = strchr(three, '/');
	const char *s2 = strchr(s1 + 1, '/');
	int round = round_token(s1 + 1, (size_t)(s2 - s1 - 1), false);
	if (round <= 0 || s1 == three || !s2[1])
		return -1;
	id->state = cm_strndup(three, (size_t)(s1 - three));
	id->round = round;
	id->test = cm_strdup(s2 + 1);
	return 0;
}

/* ---- dates and rounds in file names ---------------------------------------------- */

static int num2(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

static bool word_end(char c)
{
	return c == '\0' || an_name_sep(c);
}

/* [T_- .]HH[:-.]?MM([:-.]?SS)?(.fraction)?Z? after a date; its length or 0. */
static size_t time_at(const char *s)
{
	if (!(s[0] == 'T' || s[0] == 't' || an_name_sep(s[0])))
		return 0;
	size_t i = 1;
	if (!all_digits(s + i, 2) || num2(s + i) > 23)
		return 0;
	i += 2;
	if (s[i] == ':' || s[i] == '-' || s[i] == '.')
		i++;
	if (!all_digits(s + i, 2) || num2(s + i) > 59)
		return 0;
	i += 2;
	size_t j = i;
	if (s[j] == ':' || s[j] == '-' || s[j] == '.')
		j++;
	if (all_digits(s + j, 2) && num2(s + j) <= 60) {
		i = j + 2;
		if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
			i++;
			while (isdigit((unsigned char)s[i]))
				i++;
		}
	}
	if (s[i] == 'Z' || s[i] == 'z')
		i++;
	return word_end(s[i]) ? i : 0;
}

/* A date (YYYY-MM-DD with - _ or ., or YYYYMMDD), with a time after it,
 * at the start of a word: its length, or 0. */
static size_t date_at(const char *s)
{
	size_t i;
	int y, m, d;
	if (all_digits(s, 4) && (s[4] == '-' || s[4] == '_' || s[4] == '.') &&
	    all_digits(s + 5, 2) && s[7] == s[4] && all_digits(s + 8, 2)) {
		y = atoi(s);
		m = num2(s + 5);
		d = num2(s + 8);
		i = 10;
	} else if (all_digits(s, 8)) {
		y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + num2(s + 2);
		m = num2(s + 4);
		d = num2(s + 6);
		i = 8;
	} else {
		return 0;
	}
	if (y < 1970 || y > 2099 || m < 1 || m > 12 || d < 1 || d > 31)
		return 0;
	i += time_at(s + i);
	return word_end(s[i]) ? i : 0;
}

/* A number standing alone: 1 to 6 digits, not 0. */
static int bare_round(const char *s, size_t n)
{
	if (n == 0 || n > AN_ROUND_MAX_DIGITS || !all_digits(s, n))
		return 0;
	int r = atoi(s);
	return r > 0 ? r : 0;
}

/* The words of a name that are not dates, as indices into n->words. */
static size_t free_words(const struct an_name *n, size_t *idx)
{
	size_t k = 0;
	for (size_t i = 0; i < n->n_words; i++) {
		if (n->words[i].role != AN_W_DATE)
			idx[k++] = i;
	}
	return k;
}

/*
 * The round of a name, its words marked: a round word with its number
 * anywhere (rep2, run-1, the last one found), else a number standing
 * alone as the last word (not after an option's name: qd-8) or the first.
 * Digits inside a word (qd32, 4k, v2) are never one.
 */
static void find_round(struct an_name *n)
{
	size_t *idx = cm_calloc(n->n_words ? n->n_words : 1, sizeof(*idx));
	size_t k = free_words(n, idx);
	for (size_t j = k; j-- > 0;) {
		struct an_word *w = &n->words[idx[j]];
		const char *s = n->base + w->off;
		bool edge = j == 0 || j + 1 == k;
		int r = round_token(s, w->len, false);
		if (r > 0 && (edge || w->len > 1 + strspn(s + 1, "0123456789"))) {
			w->role = AN_W_ROUND_GLUED;
			n->round = r;
			break;
		}
		if (j + 1 < k && is_round_word(s, w->len)) {
			struct an_word *d = &n->words[idx[j + 1]];
			r = bare_round(n->base + d->off, d->len);
			if (r > 0) {
				w->role = AN_W_ROUND_WORD;
				d->role = AN_W_ROUND;
				n->round = r;
				break;
			}
		}
	}
	if (!n->round && k > 0) {
		struct an_word *w = &n->words[idx[k - 1]];
		int r = bare_round(n->base + w->off, w->len);
		if (r > 0 && k > 1) {
			const struct an_word *p = &n->words[idx[k - 2]];
			if (an_wl_option_word(n->base + p->off, p->len))
				r = 0;
		}
		if (r > 0) {
			w->role = AN_W_ROUND;
			n->round = r;
		}
	}
	if (!n->round && k > 1) {
		struct an_word *w = &n->words[idx[0]];
		const struct an_word *next = &n->words[idx[1]];
		int r = bare_round(n->base + w->off, w->len);
		if (r > 0 && !all_digits(n->base + next->off, next->len)) {
			w->role = AN_W_ROUND;
			n->round = r;
		}
	}
	free(idx);
}

void an_name_parse(const char *base, struct an_name *out)
{
	memset(out, 0, sizeof(*out));
	out->base = cm_strdup(base);
	size_t cap = 0;
	const char *s = out->base;
	for (size_t i = 0; s[i];) {
		if (an_name_sep(s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (s[j] && !an_name_sep(s[j]))
			j++;
		struct an_word *w = CM_PUSH(out->words, out->n_words, cap);
		w->off = i;
		w->len = j - i;
		w->role = AN_W_STEM;
		i = j;
	}
	/* Dates out, wherever they stand as words. */
	for (size_t k = 0; k < out->n_words; k++) {
		struct an_word *w = &out->words[k];
		if (w->role != AN_W_STEM)
			continue;
		size_t n = date_at(s + w->off);
		if (!n)
			continue;
		if (!out->date)
			out->date = cm_strndup(s + w->off, n);
		size_t end = w->off + n;
		for (size_t m = k; m < out->n_words && out->words[m].off < end; m++)
			out->words[m].role = AN_W_DATE;
	}
	find_round(out);
	out->stem = an_name_join(out, AN_W_STEM);
}

char *an_name_join(const struct an_name *n, enum an_word_role role)
{
	struct cm_buf b = {NULL, 0, 0};
	cm_buf_puts(&b, "");
	const struct an_word *prev = NULL;
	for (size_t i = 0; i < n->n_words; i++) {
		const struct an_word *w = &n->words[i];
		if (w->role != role)
			continue;
		if (prev) {
			/* the separator after the previous word of the role */
			cm_buf_putc(&b, n->base[prev->off + prev->len]);
		}
		cm_buf_printf(&b, "%.*s", (int)w->len, n->base + w->off);
		prev = w;
	}
	char *out = cm_strdup(b.s);
	cm_buf_release(&b);
	return out;
}

void an_name_free(struct an_name *n)
{
	free(n->stem);
	free(n->date);
	free(n->base);
	free(n->words);
	memset(n, 0, sizeof(*n));
}

bool an_name_affix(const char *stem, const char *word, const char **rest, size_t *rest_len)
{
	size_t sl = strlen(stem), wl = strlen(word);
	if (wl == 0 || wl > sl)
		return false;
	if (sl == wl) {
		if (strcasecmp(stem, word) != 0)
			return false;
		*rest = stem + sl;
		*rest_len = 0;
		return true;
	}
	if (an_name_sep(stem[sl - wl - 1]) && strcasecmp(stem + sl - wl, word) == 0) {
		*rest = stem;
		*rest_len = sl - wl - 1;
		return true;
	}
	if (an_name_sep(stem[wl]) && strncasecmp(stem, word, wl) == 0) {
		*rest = stem + wl + 1;
		*rest_len = sl - wl - 1;
		return true;
	}
	return false;
}

/* ---- bench-fio -------------------------------------------------------------- */

/* "randread-16-4": mode, iodepth, numjobs; false otherwise. */
static bool bench_file(const char *s, size_t n, size_t *mode_len)
{
	const char *d1 = memchr(s, '-', n);
	if (!d1 || !an_rw_known(s, (size_t)(d1 - s)))
		return false;
	const char *r = d1 + 1;
	size_t rn = n - (size_t)(r - s);
	const char *d2 = memchr(r, '-', rn);
	if (!d2)
		return false;
	size_t a = (size_t)(d2 - r), b = rn - a - 1;
	if (a > AN_ROUND_MAX_DIGITS || b > AN_ROUND_MAX_DIGITS || !all_digits(r, a) ||
	    !all_digits(d2 + 1, b))
		return false;
	*mode_len = (size_t)(d1 - s);
	return true;
}

/* "4k", "64K", "1m", "4096", "4KiB": a block size directory. */
static bool bench_bs(const char *s, size_t n)
{
	if (n == 0 || n > 16 || !isdigit((unsigned char)s[0]))
		return false;
	char buf[17];
	memcpy(buf, s, n);
	buf[n] = '\0';
	uint64_t bytes;
	return an_parse_size(buf, false, &bytes) && bytes > 0;
}

bool an_bench_fio_path(const char *rel_key, char **device)
{
	const char *parts[4] = {NULL};
	size_t lens[4] = {0};
	/* the last up to four components, last first */
	const char *end = rel_key + strlen(rel_key);
	size_t k = 0;
	while (k < 4 && end > rel_key) {
		const char *p = end;
		while (p > rel_key && p[-1] != '/')
			p--;
		parts[k] = p;
		lens[k] = (size_t)(end - p);
		k++;
		end = p > rel_key ? p - 1 : p;
		if (p == rel_key)
			break;
	}
	size_t mode_len;
	if (k < 2 || !bench_file(parts[0], lens[0], &mode_len) || !bench_bs(parts[1], lens[1]))
		return false;
	const char *dev_end = parts[1];
	/* a mixed workload's directory, randrw75 */
	if (k >= 3 && lens[2] > mode_len && strncmp(parts[2], parts[0], mode_len) == 0 &&
	    all_digits(parts[2] + mode_len, lens[2] - mode_len))
		dev_end = parts[2];
	size_t dl = (size_t)(dev_end - rel_key);
	if (dl > 0 && rel_key[dl - 1] == '/')
		dl--;
	*device = cm_strndup(rel_key, dl);
	return true;
}

char *an_bench_fio_log_key(const char *key)
{
	const char *base = an_base_name(key);
	const char *io = strstr(base, "-iodepth-");
	if (!io)
		return NULL;
	const char *qd = io + 9;
	size_t qn = strspn(qd, "0123456789");
	if (qn == 0 || strncmp(qd + qn, "-numjobs-", 9) != 0)
		return NULL;
	const char *nj = qd + qn + 9;
	size_t nn = strspn(nj, "0123456789");
	if (nn == 0 || nj[nn] != '\0')
		return NULL;
	return cm_asprintf("%.*s-%.*s-%.*s", (int)(io - key), key, (int)qn, qd, (int)nn, nj);
}

/* ---- file names ----------------------------------------------------------- */

bool an_log_name_parse(const char *path, struct an_log_name *out)
{
	struct fc_log_name ln;
	memset(out, 0, sizeof(*out));
	if (fc_log_name_parse(path, &ln) < 0)
		return false;
	/* the prefix starts the last path component */
	const char *base = ln.prefix;
	size_t dir_len = (size_t)(base - path);
	out->type = ln.type;
	out->index = ln.index;
	if (ln.host && ln.host_len)
		out->host = cm_strndup(ln.host, ln.host_len);
	out->key_raw = cm_strndup(path, dir_len + ln.prefix_len);
	/* the published example's logs are named log-<run>_<type>.N.log */
	const char *prefix = base;
	size_t plen = ln.prefix_len;
	if (plen > 4 && (strncmp(prefix, "log-", 4) == 0 || strncmp(prefix, "log_", 4) == 0)) {
		prefix += 4;
		plen -= 4;
	}
	out->key = cm_malloc(dir_len + plen + 1);
	memcpy(out->key, path, dir_len);
	memcpy(out->key + dir_len, prefix, plen);
	out->key[dir_len + plen] = '\0';
	return true;
}

/* Files that are never fio output, by extension, and what they are. */
static const struct {
	const char *ext;
	const char *what;
} skip_exts[] = {
    {".fio", "a fio job file"},
    {".ini", "a configuration file"},
    {".cfg", "a configuration file"},
    {".conf", "a configuration file"},
    {".env", "an environment file"},
    {".stderr", "fio's standard error"},
    {".jsonl", "a JSON lines file (a journal)"},
    {".tsv", "a CSV file"},
    {".sh", "a script"},
    {".py", "a script"},
    {".pl", "a script"},
    {".md", "a document"},
    {".rst", "a document"},
    {".pdf", "a document"},
    {".html", "a document"},
    {".htm", "a document"},
    {".png", "a picture"},
    {".jpg", "a picture"},
    {".jpeg", "a picture"},
    {".gif", "a picture"},
    {".svg", "a picture"},
    {".gz", "a compressed file"},
    {".xz", "a compressed file"},
    {".bz2", "a compressed file"},
    {".zst", "a compressed file"},
    {".zip", "an archive"},
    {".tar", "an archive"},
    {".tgz", "an archive"},
    {".7z", "an archive"},
};

enum an_file_kind an_file_kind(const char *path, const char **why)
{
	const char *base = an_base_name(path);
	*why = NULL;
	if (base[0] == '.' || base[0] == '\0') {
		*why = "a hidden file";
		return AN_FILE_SKIP;
	}
	struct an_log_name ln;
	if (an_log_name_parse(path, &ln)) {
		an_log_name_free(&ln);
		return AN_FILE_LOG;
	}
	if (strcmp(base, CM_CAMPAIGN_MANIFEST) == 0) {
		*why = "a campaign's manifest";
		return AN_FILE_SKIP;
	}
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return AN_FILE_MAYBE;
	if (strcasecmp(dot, ".json") == 0 || strcasecmp(dot, ".terse") == 0)
		return AN_FILE_OUTPUT;
	/* bonnie++ writes CSV; so do spreadsheets, and so do we */
	if (strcasecmp(dot, ".csv") == 0)
		return AN_FILE_CSV;
	for (size_t i = 0; i < sizeof(skip_exts) / sizeof(skip_exts[0]); i++) {
		if (strcasecmp(dot, skip_exts[i].ext) == 0) {
			*why = skip_exts[i].what;
			return AN_FILE_SKIP;
		}
	}
	return AN_FILE_MAYBE;
}

char *an_output_key(const char *path)
{
	const char *base = an_base_name(path);
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return cm_strdup(path);
	return cm_strndup(path, (size_t)(dot - path));
}
