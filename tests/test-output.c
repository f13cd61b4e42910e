/* SPDX-License-Identifier: MIT */
/*
 * Reading fio's reports: every sample fio 3.33 produced in
 * tests/fixtures/fio-3.33 (see its README for the command lines), checked
 * against the numbers fio printed.
 */
#include <stdarg.h>

#include "check-output.h"
#include "fiocamp.h"

#define FIX "tests/fixtures/fio-3.33/"

static void test_psync_randrw(void)
{
	struct fc_output *o = load(FIX "json_psync_randrw.json", FC_OK);
	if (!o)
		return;
	CHECK_INT(o->n_runs, 1);
	CHECK_INT(o->n_diags, 0);
	const struct fc_run *r = o->final;
	CHECK(r == &o->runs[0] && r->final);
	CHECK_INT(r->format, FC_FORMAT_JSON);
	CHECK_STR(r->fio_version, "fio-3.33");
	CHECK_INT(r->version_major, 3);
	CHECK_INT(r->version_minor, 33);
	CHECK_INT(r->timestamp_s, 1796048964);
	CHECK_INT(r->timestamp_ms, 1796048964451);
	CHECK_STR(r->time_text, "Mon Nov 30 14:29:24 2026");
	CHECK(!r->client_mode);
	CHECK_INT(r->units, 0);
	CHECK_INT(r->n_global_options, 0);
	CHECK_INT(r->n_jobs, 1);
	CHECK_INT(r->n_disks, 1);
	CHECK_STR(r->disks[0].name, "vda");
	const struct fc_job *j = &r->jobs[0];
	CHECK_STR(j->name, "randrw_psync");
	CHECK_INT(j->error, 0);
	CHECK_INT(j->eta_s, 0);
	CHECK_INT(j->elapsed_s, 3);
	CHECK_INT(j->job_start_ms, -1); /* >= 3.36 only */
	CHECK_INT(j->n_options, 9);
	CHECK_STR(fc_job_option(r, j, "rwmixread"), "70");
	CHECK_STR(fc_job_option(r, j, "time_based"), NULL); /* valueless: left out before 3.39 */
	const struct fc_dir *rd = &j->dir[FC_DDIR_READ];
	CHECK(rd->present);
	CHECK_U64(rd->io_bytes, 121036800);
	CHECK_DBL(rd->bw_bytes, 60488155, 0);
	CHECK_DBL(rd->iops, 14767.616192, 0);
	CHECK_U64(rd->runtime_ms, 2001);
	CHECK_U64(rd->total_ios, 29550);
	CHECK(!rd->slat.present && isnan(rd->slat.mean_ns)); /* N 0: psync has no slat */
	CHECK_INT(rd->slat.n_percentiles, 0);
	CHECK_DBL(rd->clat.min_ns, 28072, 0);
	CHECK_DBL(rd->clat.max_ns, 1402950, 0);
	CHECK_DBL(rd->clat.mean_ns, 45481.161286, 0);
	CHECK_U64(rd->clat.n, 29550);
	CHECK_INT(rd->clat.n_percentiles, 17);
	CHECK_DBL(rd->clat.percentiles[12].percent, 99.0, 0);
	CHECK_DBL(rd->clat.percentiles[12].value_ns, 99840, 0);
	CHECK_DBL(rd->clat.percentiles[16].percent, 99.99, 0);
	CHECK_DBL(rd->clat.percentiles[16].value_ns, 1138688, 0);
	CHECK_INT(rd->clat.n_bins, 0);
	CHECK_DBL(rd->lat.mean_ns, 45596.775871, 0);
	CHECK_DBL(rd->bw_samples.min, 51712.0 * 1024, 0);
	CHECK_DBL(rd->bw_samples.max, 64808.0 * 1024, 0);
	CHECK_DBL(rd->bw_samples.mean, 58370.666667 * 1024, 1e-15);
	CHECK_DBL(rd->bw_samples.stddev, 6550.804938 * 1024, 1e-15);
	CHECK_DBL(rd->iops_samples.max, 16202, 0);
	CHECK_DBL(rd->iops_samples.stddev, 1637.701234, 0);
	CHECK_U64(rd->bw_samples.n, 3);
	CHECK_DBL(rd->bw_agg_pct, 98.814189, 0);
	CHECK_DBL(rd->iops_samples.min, 12928, 0);
	CHECK_DBL(rd->iops_samples.mean, 14592.666667, 0);
	CHECK_U64(rd->iops_samples.n, 3);
	CHECK(isnan(rd->cachehit_pct));
	CHECK_U64(j->dir[FC_DDIR_WRITE].io_bytes, 51716096);
	CHECK_DBL(j->dir[FC_DDIR_WRITE].iops, 6309.845077, 0);
	CHECK(j->dir[FC_DDIR_TRIM].present);
	CHECK_U64(j->dir[FC_DDIR_TRIM].io_bytes, 0);
	CHECK(j->dir[FC_DDIR_SYNC].present);
	CHECK(!j->dir[FC_DDIR_MIXED].present);
	CHECK_INT(j->iodepth.n, 7);
	CHECK_STR(j->iodepth.items[6].label, ">=64");
	CHECK_INT(j->latency_ns.n, 10);
	CHECK_INT(j->latency_ms.n, 12);
	fc_output_free(o);
}

static void test_jsonplus(void)
{
	struct fc_output *o = load(FIX "jsonplus_libaio_randread.json", FC_OK);
	if (!o)
		return;
	const struct fc_run *r = o->final;
	CHECK_INT(r->format, FC_FORMAT_JSON_PLUS);
	const struct fc_lat *c = &r->jobs[0].dir[FC_DDIR_READ].clat;
	CHECK_U64(c->n, 111727);
	CHECK_INT(c->n_bins, 306);
	CHECK_DBL(c->bins[0].value_ns, 21632, 0);
	CHECK_U64(c->bins[0].count, 1);
	uint64_t sum = 0;
	for (size_t i = 0; i < c->n_bins; i++) {
		sum += c->bins[i].count;
		if (i)
			CHECK(c->bins[i].value_ns > c->bins[i - 1].value_ns);
	}
	CHECK_U64(sum, 111727);
	CHECK_DBL(c->percentiles[6].value_ns, 57088, 0);
	/* bins are fio's bucket midpoints */
	CHECK_DBL(fc_hist_bucket_value(596, 29, 0), 21632, 0);
	CHECK_DBL(fc_hist_bucket_value(596, 29, -1), 21504, 0);
	CHECK_DBL(fc_hist_bucket_value(596, 29, 1), 21760, 0);
	CHECK_DBL(fc_hist_bucket_value(5, 29, 0), 5, 0);
	CHECK(isnan(fc_hist_bucket_value(1856, 29, 0)));
	fc_output_free(o);
}

static void test_fsync_both(void)
{
	struct fc_output *o = load(FIX "json_fsync_unified_both.json", FC_OK);
	if (!o)
		return;
	const struct fc_job *j = &o->final->jobs[0];
	CHECK(j->dir[FC_DDIR_MIXED].present);
	CHECK_DBL(j->dir[FC_DDIR_MIXED].iops, 15358.641359, 0);
	const struct fc_dir *s = &j->dir[FC_DDIR_SYNC];
	CHECK(s->present);
	CHECK_U64(s->total_ios, 987);
	CHECK_DBL(s->lat.min_ns, 34084, 0);
	CHECK_DBL(s->lat.mean_ns, 467270.655522, 0);
	CHECK_U64(s->lat.n, 987);
	CHECK_DBL(s->lat.percentiles[6].value_ns, 244736, 0);
	CHECK(isnan(s->iops));
	fc_output_free(o);
}

static void test_numjobs(void)
{
	struct fc_output *o = load(FIX "json_numjobs2_no_group_reporting.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_jobs, 2);
		CHECK_STR(r->jobs[0].name, "nj");
		CHECK_STR(r->jobs[1].name, "nj");
		CHECK_INT(r->jobs[0].clone, 0);
		CHECK_INT(r->jobs[1].clone, 1);
		CHECK_INT(r->jobs[1].index, 1);
		CHECK_INT(r->jobs[0].job_runtime_ms, 1000);
		CHECK_U64(r->jobs[1].dir[FC_DDIR_READ].io_bytes, 111017984);
		fc_output_free(o);
	}
	o = load(FIX "json_numjobs2_group_reporting.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_jobs, 1);
		CHECK_INT(r->jobs[0].job_runtime_ms, 2000); /* summed over the group */
		CHECK_U64(r->jobs[0].dir[FC_DDIR_READ].io_bytes, 214622208);
		CHECK_U64(r->jobs[0].dir[FC_DDIR_READ].iops_samples.n, 2);
		CHECK_DBL(r->jobs[0].dir[FC_DDIR_READ].bw_samples.min, 207056.0 * 1024, 0);
		fc_output_free(o);
	}
}

static void test_quirks(void)
{
	struct fc_output *o = load(FIX "quirk_json_stdout_with_note_line.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_diags, 1);
		CHECK_INT(o->diags[0].kind, FC_DIAG_NOTE);
		CHECK_INT(o->diags[0].line, 1);
		CHECK(strncmp(o->diags[0].text, "note: both iodepth", 18) == 0);
		CHECK_INT(o->final->line, 2);
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_stdout_with_error_lines_process.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_diags, 2);
		CHECK_INT(o->diags[0].kind, FC_DIAG_FIO);
		CHECK_INT(o->diags[1].kind, FC_DIAG_FIO);
		CHECK(strstr(o->diags[1].text, "err=22") != NULL);
		CHECK_INT(o->final->jobs[0].error, 22);
		CHECK_INT(o->final->jobs[0].eta_s, -1); /* 2147483647 in the file */
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].io_bytes, 0);
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_output_file_with_error_lines_thread.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_diags, 3);
		CHECK_INT(o->final->jobs[0].error, 22);
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_status_interval_3docs.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_runs, 3);
		CHECK(!o->runs[0].final && !o->runs[1].final && o->runs[2].final);
		CHECK(o->final == &o->runs[2]);
		CHECK_U64(o->runs[0].jobs[0].dir[FC_DDIR_READ].io_bytes, 71168000);
		CHECK_U64(o->runs[1].jobs[0].dir[FC_DDIR_READ].runtime_ms, 1890);
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].io_bytes, 149082112);
		CHECK_INT(o->runs[1].line, 271);
		CHECK_INT(o->runs[2].line, 541);
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_invalid_control_char_in_desc.txt", FC_OK);
	if (o) {
		CHECK_STR(o->final->jobs[0].description, "line1\nline2 \"quoted\" tab\there");
		CHECK_STR(fc_job_option(o->final, &o->final->jobs[0], "description"),
			  "line1\nline2 \"quoted\" tab\there");
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_after_sigint.txt", FC_OK);
	if (o) {
		CHECK_INT(o->signal, 2);
		CHECK_INT(o->n_diags, 1);
		CHECK_INT(o->diags[0].kind, FC_DIAG_SIGNAL);
		CHECK_INT(o->diags[0].line, 2);
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].io_bytes, 91287552);
		fc_output_free(o);
	}
}

/* The same report with the second server's size and file its own: those
 * keys are no value of the run (which server fio listed last changes from
 * run to run), the keys the servers agree on stay. */
static void test_client_host_values(void)
{
	FILE *f = fopen(check_src(FIX "client_2servers_stdout_dup_global_keys.txt"), "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static char text[1 << 20];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	char *second = strstr(text, "\"filename\" : \"/srv/fio/test.dat\",\n");
	char *size = second ? strstr(second, "\"size\" : \"8M\"") : NULL;
	char *file = size ? strstr(size, "/srv/fio/test.dat") : NULL;
	CHECK(size && file);
	if (!size || !file)
		return;
	size[10] = '9'; /* "size" : "9M" */
	file[10] = 'X'; /* /srv/fio/tXst.dat */
	struct fc_output *o = NULL;
	struct fc_error e;
	CHECK_INT(fc_output_read_buffer(text, len, "buf", &o, &e), FC_OK);
	if (!o)
		return;
	const struct fc_run *r = o->final;
	CHECK_INT(r->n_global_options, 4);
	CHECK_STR(fc_job_option(r, NULL, "size"), NULL);
	CHECK_STR(fc_job_option(r, NULL, "filename"), NULL);
	CHECK_STR(fc_job_option(r, NULL, "bs"), "4k");
	fc_output_free(o);
}

static void test_client(void)
{
	struct fc_output *o = load(FIX "client_1server_2jobs_stdout.txt", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK(r->client_mode);
		CHECK_INT(r->timestamp_ms, -1);
		CHECK_INT(r->n_global_options, 8);
		CHECK_STR(fc_job_option(r, &r->jobs[0], "log_avg_msec"), "500");
		CHECK_INT(r->n_jobs, 3);
		CHECK_STR(r->jobs[0].hostname, "127.0.0.1");
		CHECK_INT(r->jobs[0].port, 18765);
		CHECK(!r->jobs[0].all_clients && !r->jobs[1].all_clients);
		CHECK(r->jobs[2].all_clients);
		CHECK_U64(r->jobs[2].dir[FC_DDIR_READ].io_bytes, 191324160);
		CHECK_INT(r->jobs[0].eta_s, -1);
		CHECK_INT(o->n_diags, 1);
		CHECK_INT(o->diags[0].kind, FC_DIAG_HOST);
		fc_output_free(o);
	}
	o = load(FIX "client_2servers_stdout_dup_global_keys.txt", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_global_options, 6); /* duplicates merged, last wins */
		CHECK_INT(r->n_jobs, 3);
		CHECK_INT(r->jobs[0].port, 18765);
		CHECK_INT(r->jobs[1].port, 18766);
		CHECK_INT(r->jobs[0].clone, 0);
		CHECK_INT(r->jobs[1].clone, 0); /* other server, not a clone */
		CHECK(r->jobs[2].all_clients);
		CHECK_U64(r->jobs[1].dir[FC_DDIR_READ].io_bytes, 47558656);
		CHECK_INT(o->n_diags, 6);
		fc_output_free(o);
	}
	test_client_host_values();
}

static void check_buffer(const char *text, int expect, const char *msg_part)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	int rc = fc_output_read_buffer(text, strlen(text), "buf", &o, &e);
	CHECK_INT(rc, expect);
	if (msg_part && !strstr(e.message, msg_part)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", e.message, msg_part);
		CHECK(0);
	}
	if (rc == FC_OK || rc == FC_E_UNFINISHED)
		CHECK(o != NULL);
	else
		CHECK(o == NULL);
	fc_output_free(o);
}

static void test_bad_input(void)
{
	check_buffer("", FC_E_NOT_FIO, "empty");
	check_buffer("hello world\n", FC_E_NOT_FIO, "no JSON report");
	check_buffer("{\"a\": 1}\n", FC_E_NOT_FIO, "without \"jobs\"");
	check_buffer("{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n",
		     FC_E_UNFINISHED, "cut short");
	check_buffer("fio: terminating on signal 9\n", FC_E_UNFINISHED, "signal 9");
	check_buffer("jobname: (g=0): rw=read, bs=4k\nStarting 1 process\n", FC_E_UNFINISHED,
		     "no report");
	check_buffer("{\n  \"jobs\" : [ {} x ]\n}\n", FC_E_SYNTAX, "expected ',' or ']'");

	/* a broken report followed by a good one: the good one counts */
	const char *two = "{\n  \"jobs\" : [ x ]\n}\n{\n  \"jobs\" : []\n}\n";
	struct fc_output *o = NULL;
	struct fc_error e;
	CHECK_INT(fc_output_read_buffer(two, strlen(two), "two", &o, &e), FC_OK);
	if (o) {
		CHECK_INT(o->n_runs, 1);
		CHECK_INT(o->runs[0].line, 4);
		CHECK_INT(o->n_diags, 1);
		CHECK_INT(o->diags[0].kind, FC_DIAG_BROKEN);
		fc_output_free(o);
	}

	/* status reports, then fio killed in the middle of the final one */
	const char *killed = "{\n\"jobs\":[]\n}\n{\n\"jobs\":[";
	CHECK_INT(fc_output_read_buffer(killed, strlen(killed), "k", &o, &e), FC_E_UNFINISHED);
	if (o) {
		CHECK_INT(o->status, FC_E_UNFINISHED);
		CHECK_INT(o->n_runs, 1);
		CHECK(o->final == NULL);
		CHECK(!o->runs[0].final);
		fc_output_free(o);
	}

	/* N wherever it stands, else the sum of the bins; a repeated "bins"
	 * replaces the first one, its count too */
	const char *bins = "{\n\"jobs\":[{\"read\":{"
			   "\"clat_ns\":{\"bins\":{\"100\":1},\"bins\":{\"200\":5,\"300\":0}},"
			   "\"lat_ns\":{\"bins\":{\"100\":3},\"N\":7},"
			   "\"slat_ns\":{\"N\":2,\"bins\":{\"1\":9}}}}]\n}\n";
	CHECK_INT(fc_output_read_buffer(bins, strlen(bins), "bins", &o, &e), FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK(d->clat.n_known);
		CHECK_U64(d->clat.n, 5);
		CHECK_U64(d->clat.n_bins, 1);
		CHECK_DBL(d->clat.bins[0].value_ns, 200, 0);
		CHECK_U64(d->lat.n, 7);
		CHECK_U64(d->slat.n, 2);
		CHECK(!o->final->jobs[0].dir[FC_DDIR_TRIM].clat.n_known);
		fc_output_free(o);
	}

	/* keys that are no bucket are left out before sorting: indices of
	 * fio 2.2.12-2.19 beyond the histogram or not whole, infinite values */
	const char *idx = "{\n\"jobs\":[{\"read\":{\"clat\":{\"bins\":{"
			  "\"FIO_IO_U_PLAT_BITS\":6,\"FIO_IO_U_PLAT_VAL\":64,"
			  "\"FIO_IO_U_PLAT_NR\":1216,\"7\":1,\"inf\":1,\"2.5\":4,\"9999\":3,"
			  "\"1e400\":1,\"5\":2,\"1215\":1}},"
			  "\"lat\":{\"bins\":{\"1e400\":1,\"3\":2}}}}]\n}\n";
	CHECK_INT(fc_output_read_buffer(idx, strlen(idx), "idx", &o, &e), FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK(o->final->units & FC_UNITS_BINS_INDEX);
		CHECK_U64(d->clat.n_bins, 3);
		CHECK_U64(d->clat.n, 4);
		CHECK_DBL(d->clat.bins[0].value_ns, 5000, 0);
		CHECK_U64(d->clat.bins[0].count, 2);
		CHECK_DBL(d->clat.bins[1].value_ns, 7000, 0);
		/* the last bucket of 19 groups: 2^23 + 63.5 * 2^17 us */
		CHECK_DBL(d->clat.bins[2].value_ns, (8388608.0 + 63.5 * 131072) * 1000, 0);
		CHECK_U64(d->lat.n_bins, 1);
		CHECK_DBL(d->lat.bins[0].value_ns, 3000, 0);
		fc_output_free(o);
	}

	/* the error is the one of the report that ends the input, not of an
	 * earlier broken one */
	const char *cut = "{\n\"jobs\":[x]\n}\n{\n\"jobs\":[";
	CHECK_INT(fc_output_read_buffer(cut, strlen(cut), "cut", &o, &e), FC_E_UNFINISHED);
	CHECK_INT(e.line, 5);
	CHECK(strstr(e.message, "cut short (input ends inside an array)") != NULL);
	fc_output_free(o);
	const char *last = "{\n\"jobs\":[x]\n}\n{\"jobs\":[]}\n{\n\"jobs\":[y]\n}\n";
	CHECK_INT(fc_output_read_buffer(last, strlen(last), "last", &o, &e), FC_E_SYNTAX);
	CHECK_INT(e.line, 6);
	CHECK_INT(e.column, 9);
	CHECK(strstr(e.message, "found 'y'") != NULL);

	/* a last report nested too deep: FC_E_LIMIT, where it went too deep */
	char deep[256] = "{\"jobs\":[]}\n{\"jobs\":[],\"x\":";
	for (int i = 0; i < 70; i++)
		strcat(deep, "[");
	strcat(deep, "\n");
	CHECK_INT(fc_output_read_buffer(deep, strlen(deep), "deep", &o, &e), FC_E_LIMIT);
	CHECK(o == NULL);
	CHECK_INT(e.line, 2);
	CHECK_INT(e.column, 79); /* the 64th "[" inside the outer "{" */
	CHECK(strstr(e.message, "nesting deeper than 64 levels") != NULL);

	/* KiB counts beyond 2^64 bytes saturate instead of wrapping */
	const char *huge = "{\n\"jobs\":[{\"read\":{\"io_bytes\":18014398509481985},"
			   "\"write\":{\"io_kbytes\":18014398509481984}}]\n}\n";
	CHECK_INT(fc_output_read_buffer(huge, strlen(huge), "huge", &o, &e), FC_OK);
	if (o) {
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].io_bytes, UINT64_MAX);
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_WRITE].io_bytes, UINT64_MAX);
		fc_output_free(o);
	}

	/* BOM, CRLF, nan */
	const char *crlf = "\xef\xbb\xbf{\r\n\"jobs\":[{\"jobname\":\"x\",\"read\":{\"iops\":nan,"
			   "\"io_bytes\":5}}]\r\n}\r\n";
	CHECK_INT(fc_output_read_buffer(crlf, strlen(crlf), "crlf", &o, &e), FC_OK);
	if (o) {
		CHECK(isnan(o->final->jobs[0].dir[0].iops));
		CHECK_U64(o->final->jobs[0].dir[0].io_bytes, 5 * 1024); /* no io_kbytes: KiB */
		CHECK(o->final->units & FC_UNITS_IO_KIB);
		fc_output_free(o);
	}
}

#define HM "tests/fixtures/handmade/"

static void test_fio2(void)
{
	struct fc_output *o = load(HM "fio-2.2.10-randrw.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->version_major, 2);
		CHECK_INT(r->version_minor, 2);
		CHECK_INT(r->version_patch, 10);
		CHECK_INT(r->units, FC_UNITS_LAT_US | FC_UNITS_IO_KIB);
		CHECK_INT(r->timestamp_ms, -1);
		const struct fc_job *j = &r->jobs[0];
		CHECK_INT(j->n_options, 0);
		const struct fc_dir *d = &j->dir[FC_DDIR_READ];
		CHECK_U64(d->io_bytes, 118200ull * 1024);
		CHECK_DBL(d->bw_bytes, 59070.0 * 1024, 0);
		CHECK_DBL(d->iops, 14767.62, 0);
		CHECK_DBL(d->clat.min_ns, 28000, 0);
		CHECK_DBL(d->clat.max_ns, 1402000, 0);
		CHECK_DBL(d->clat.mean_ns, 45480, 1e-12);
		CHECK(!d->clat.n_known);
		CHECK_INT(d->clat.n_percentiles, 17); /* the "0.00" padding is gone */
		CHECK_DBL(d->clat.percentiles[0].percent, 1.0, 0);
		CHECK_DBL(d->clat.percentiles[12].value_ns, 99000, 0);
		CHECK_DBL(d->lat.mean_ns, 45600, 1e-12);
		CHECK_DBL(d->bw_samples.min, 51712.0 * 1024, 0);
		CHECK(!d->iops_samples.present);
		CHECK_INT(j->latency_us.n, 10);
		CHECK_INT(r->n_disks, 1);
		CHECK_INT(r->disks[0].read_sectors, -1);
		fc_output_free(o);
	}

	struct fc_output *a = load(HM "fio-2.12-jsonplus-randread.json", FC_OK);
	struct fc_output *b = load(HM "fio-2.21-jsonplus-randread.json", FC_OK);
	if (a && b) {
		const struct fc_run *ra = a->final, *rb = b->final;
		CHECK_INT(ra->format, FC_FORMAT_JSON_PLUS);
		CHECK_INT(ra->units, FC_UNITS_LAT_US | FC_UNITS_IO_KIB | FC_UNITS_BINS_INDEX);
		CHECK_INT(rb->units, FC_UNITS_LAT_US);
		CHECK_INT(ra->timestamp_ms, 1796048992119);
		CHECK(ra->jobs[0].n_options > 5);
		const struct fc_lat *la = &ra->jobs[0].dir[FC_DDIR_READ].clat;
		const struct fc_lat *lb = &rb->jobs[0].dir[FC_DDIR_READ].clat;
		/* no N in 2.x: the bins give it */
		CHECK(la->n_known && lb->n_known);
		CHECK_U64(la->n, 111727);
		CHECK_U64(lb->n, 111727);
		CHECK_U64(ra->jobs[0].dir[FC_DDIR_READ].io_bytes,
			  rb->jobs[0].dir[FC_DDIR_READ].io_bytes / 1024 * 1024);
		/* index keys and value keys name the same buckets */
		CHECK_INT(la->n_bins, lb->n_bins);
		for (size_t i = 0; i < la->n_bins && i < lb->n_bins; i++) {
			CHECK_DBL(la->bins[i].value_ns, lb->bins[i].value_ns, 0);
			CHECK_U64(la->bins[i].count, lb->bins[i].count);
		}
		/* the first 3.33 bin, 21632 ns, is 21 us: an exact 2.x bucket */
		CHECK_DBL(la->bins[0].value_ns, 21000, 0);
	}
	fc_output_free(a);
	fc_output_free(b);
}

static void test_fio3_shapes(void)
{
	struct fc_output *o = load(HM "fio-3.20-clat-prio-randrw.json", FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK_INT(d->n_prios, 2);
		if (d->n_prios == 2) {
			CHECK(d->prios[0].high && !d->prios[1].high);
			CHECK_INT(d->prios[0].prioclass, -1);
			CHECK(!d->prios[0].total_lat);
			CHECK_U64(d->prios[0].lat.n, 7387);
			CHECK_U64(d->prios[1].lat.n, 22162);
			CHECK_DBL(d->prios[1].lat.percentiles[12].value_ns, 99840, 0);
		}
		CHECK_INT(o->final->jobs[0].dir[FC_DDIR_WRITE].n_prios, 0);
		fc_output_free(o);
	}
	o = load(HM "fio-3.36-prios-randrw.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->jobs[0].job_start_ms, 1796048964451 - 2003);
		const struct fc_dir *d = &r->jobs[0].dir[FC_DDIR_READ];
		CHECK_INT(d->n_prios, 2);
		if (d->n_prios == 2) {
			CHECK_INT(d->prios[0].prioclass, 1);
			CHECK_INT(d->prios[0].prio, 0);
			CHECK_INT(d->prios[0].priohint, 0);
			CHECK_INT(d->prios[1].prioclass, 2);
			CHECK_INT(d->prios[1].prio, 4);
			CHECK(!d->prios[1].high);
		}
		CHECK_INT(r->disks[0].read_sectors, 26805 * 8);
		fc_output_free(o);
	}
	o = load(HM "fio-3.39-client-2servers.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK(r->client_mode);
		CHECK_INT(r->n_global_options, 3); /* merged; hostname and port dropped */
		CHECK_STR(fc_job_option(r, &r->jobs[0], "time_based"), "");
		CHECK_STR(fc_job_option(r, NULL, "hostname"), NULL);
		CHECK_INT(r->n_jobs, 3);
		CHECK_INT(r->jobs[1].port, 18766);
		CHECK(r->jobs[2].all_clients);
		CHECK_INT(r->jobs[2].dir[FC_DDIR_READ].clat.n_percentiles, 17);
		fc_output_free(o);
	}
	o = load(HM "fio-3.42-zbd-steadystate.json", FC_OK);
	if (o) {
		CHECK_INT(o->final->version_minor, 42);
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].total_ios, 29550);
		CHECK_INT(o->final->jobs[0].job_start_ms, 1796048964451 - 2003);
		fc_output_free(o);
	}
}

static void test_more_333(void)
{
	struct fc_output *o = load(FIX "jsonplus_slat_clat_lat_percentiles.json", FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK_U64(d->slat.n, 13319);
		CHECK_DBL(d->slat.percentiles[6].value_ns, 5152, 0);
		CHECK_INT(d->slat.n_bins, 332);
		CHECK_DBL(d->lat.percentiles[6].value_ns, 136192, 0);
		CHECK_INT(d->lat.n_bins, 377);
		uint64_t sum = 0;
		for (size_t i = 0; i < d->lat.n_bins; i++)
			sum += d->lat.bins[i].count;
		CHECK_U64(sum, d->lat.n);
		fc_output_free(o);
	}
	o = load(FIX "json_cmdprio_prios.json", FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK_INT(d->n_prios, 2);
		if (d->n_prios == 2) {
			CHECK_INT(d->prios[0].prioclass, 0);
			CHECK_U64(d->prios[0].lat.n, 8051);
			CHECK_INT(d->prios[1].prioclass, 1);
			CHECK_U64(d->prios[1].lat.n, 3560);
			CHECK_INT(d->prios[1].priohint, -1);
		}
		CHECK_U64(d->total_ios, 11611);
		fc_output_free(o);
	}
	o = load(FIX "json_per_io_iops_log.json", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		const struct fc_dir *d = &r->jobs[0].dir[FC_DDIR_READ];
		CHECK_DBL(d->iops, 199.801193, 0);
		CHECK_DBL(d->iops_samples.mean, 1, 0); /* one sample per I/O */
		CHECK_U64(d->iops_samples.n, 201);
		CHECK(fc_job_option(r, &r->jobs[0], "write_iops_log") != NULL);
		CHECK_STR(fc_job_option(r, &r->jobs[0], "log_avg_msec"), NULL);
		fc_output_free(o);
	}
	o = load(FIX "json_idle_prof.json", FC_OK);
	if (o) {
		CHECK_INT(o->final->jobs[0].job_runtime_ms, 1000);
		CHECK_U64(o->final->jobs[0].dir[FC_DDIR_READ].total_ios, 2171);
		fc_output_free(o);
	}
	o = load(FIX "quirk_json_banner_line_two_groups.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_diags, 1);
		CHECK_INT(o->diags[0].kind, FC_DIAG_TEXT);
		CHECK(strncmp(o->diags[0].text, "two: (g=0): rw=randread", 23) == 0);
		CHECK_INT(o->final->n_jobs, 2);
		CHECK_INT(o->final->jobs[1].groupid, 1);
		CHECK_STR(o->final->jobs[1].name, "second");
		CHECK_U64(o->final->jobs[1].dir[FC_DDIR_READ].io_bytes, 914423808);
		fc_output_free(o);
	}
}

/* A growing string for generated inputs. */
struct text {
	char *p;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap = t->cap * 2 + (size_t)n + 64;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
}

static struct fc_output *read_text(const struct text *t, int expect)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	int rc = fc_output_read_buffer(t->p, t->len, "gen", &o, &e);
	if (rc != expect) {
		char msg[1024];
		fc_error_format(&e, msg, sizeof(msg));
		fprintf(stderr, "generated input: rc %d, expected %d: %s\n", rc, expect, msg);
	}
	CHECK_INT(rc, expect);
	return o;
}

/*
 * Shapes that cost a scan per element before: many clones, many options
 * and buckets with duplicates, terse lines with many disks.  Each takes
 * a moment now; quadratic, they took minutes.
 */
static void test_many(void)
{
	struct text t = {0};
	add(&t, "{\n\"jobs\" : [");
	for (int i = 0; i < 8000; i++)
		add(&t, "%s{\"jobname\":\"j\",\"groupid\":%d}", i ? "," : "", i % 2);
	add(&t, "]\n}\n");
	struct fc_output *o = read_text(&t, FC_OK);
	if (o) {
		CHECK_U64(o->final->n_jobs, 8000);
		CHECK_INT(o->final->jobs[3].clone, 1);
		CHECK_INT(o->final->jobs[7998].clone, 3999);
		CHECK_INT(o->final->jobs[7999].clone, 3999);
		fc_output_free(o);
	}

	/* the first place of a key, the value of its last occurrence */
	t.len = 0;
	add(&t, "{\n\"jobs\" : [{\"job options\" : {");
	for (int i = 0; i < 20000; i++)
		add(&t, "\"k%d\":\"v\",", i);
	for (int i = 19999; i >= 0; i--)
		add(&t, "\"k%d\":\"w%d\",", i, i);
	add(&t, "\"k0\":\"last\"}, \"iodepth_level\" : {");
	for (int i = 0; i < 20000; i++)
		add(&t, "\"%d\":%d,", i % 7, i);
	add(&t, "\">=64\":1.5}}]\n}\n");
	o = read_text(&t, FC_OK);
	if (o) {
		const struct fc_job *j = &o->final->jobs[0];
		CHECK_U64(j->n_options, 20000);
		CHECK_STR(j->options[0].key, "k0");
		CHECK_STR(j->options[0].value, "last");
		CHECK_STR(j->options[19999].key, "k19999");
		CHECK_STR(j->options[19999].value, "w19999");
		CHECK_U64(j->iodepth.n, 8);
		CHECK_STR(j->iodepth.items[0].label, "0");
		CHECK_DBL(j->iodepth.items[0].percent, 19999 - 19999 % 7, 0);
		CHECK_STR(j->iodepth.items[7].label, ">=64");
		fc_output_free(o);
	}

	/* many broken reports: each error counts lines from its report's
	 * start, not from the start of the input (200,000 such reports took
	 * six minutes) */
	t.len = 0;
	for (int i = 0; i < 100000; i++)
		add(&t, "{\nx\n");
	struct fc_error e;
	CHECK_INT(fc_output_read_buffer(t.p, t.len, "broken", &o, &e), FC_E_SYNTAX);
	CHECK_INT(e.line, 200000);
	CHECK_INT(e.column, 1);
	CHECK(strstr(e.message, "expected a member name in quotes, found 'x'") != NULL);

	/* two terse lines with the same 5000 disks: one record each */
	t.len = 0;
	for (int line = 0; line < 2; line++) {
		add(&t, "3;fio-3.33;j;0;0");
		for (int b = 0; b < 2; b++) {
			add(&t, ";0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000;0.000000");
			for (int p = 0; p < 20; p++)
				add(&t, ";0%%=0");
			add(&t, ";0;0;0.000000;0.000000;0;0;0.000000%%;0.000000;0.000000");
		}
		add(&t, ";0.0%%;0.0%%;1;0;2");
		for (int f = 0; f < 7 + 10 + 12; f++)
			add(&t, ";0.00%%");
		for (int d = 0; d < 5000; d++)
			add(&t, ";sd%d;%d;1;2;3;4;5;6;50.00%%", d, d);
		add(&t, "\n");
	}
	o = read_text(&t, FC_OK);
	if (o) {
		CHECK_U64(o->final->n_jobs, 2);
		CHECK_U64(o->final->n_disks, 5000);
		CHECK_STR(o->final->disks[4999].name, "sd4999");
		CHECK_U64(o->final->disks[4999].read_ios, 4999);
		fc_output_free(o);
	}
	free(t.p);
}

/* Inputs that would take far more memory than their size: FC_E_LIMIT,
 * naming where the input was when the limit was reached. */
static void test_memory_limit(void)
{
	struct text t = {0};
	struct fc_output *o = NULL;
	struct fc_error e;
	char msg[1024];
	/* 300 KB of "{}," jobs would be 250 MB */
	add(&t, "{\n\"jobs\" : [\n{}");
	for (int i = 1; i < 100000; i++)
		add(&t, ",{}");
	add(&t, "]\n}\n");
	CHECK_INT(fc_output_read_buffer(t.p, t.len, "jobs", &o, &e), FC_E_LIMIT);
	CHECK(o == NULL);
	fc_error_format(&e, msg, sizeof(msg));
	CHECK(strncmp(msg, "jobs:3:", 7) == 0);
	CHECK(strstr(msg, "more than the 68 MiB allowed") != NULL);

	/* 6 MB of empty reports: 128 bytes each, twice over */
	t.len = 0;
	for (int i = 0; i < 500000; i++)
		add(&t, "{\"jobs\":[]}\n");
	CHECK_INT(fc_output_read_buffer(t.p, t.len, "runs", &o, &e), FC_E_LIMIT);
	CHECK(o == NULL);
	CHECK(e.line > 1);
	CHECK(strstr(e.message, "MiB allowed") != NULL);

	/* an ordinary input is far from it */
	o = load(FIX "jsonplus_libaio_randread.json", FC_OK);
	fc_output_free(o);
	free(t.p);
}

int main(void)
{
	test_psync_randrw();
	test_jsonplus();
	test_fsync_both();
	test_numjobs();
	test_quirks();
	test_client();
	test_bad_input();
	test_fio2();
	test_fio3_shapes();
	test_more_333();
	test_many();
	test_memory_limit();
	return check_exit();
}
