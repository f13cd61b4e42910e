/* SPDX-License-Identifier: MIT */
/*
 * Benchmark driver: parse every file named on stdin (one per line) with
 * libfiocamp (mode "fiocamp") or with jansson's loader (mode "jansson", for
 * reference) and print files, bytes, seconds and MB/s.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fiocamp.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "fiocamp") && strcmp(argv[1], "jansson"))) {
		fprintf(stderr, "usage: bench-json fiocamp|jansson < file-list\n");
		return 2;
	}
	bool ours = strcmp(argv[1], "fiocamp") == 0;
	char **files = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	unsigned long long bytes = 0;
	while ((len = getline(&line, &lcap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			files = realloc(files, cap * sizeof(*files));
			if (!files)
				return 1;
		}
		files[n++] = strdup(line);
		struct stat st;
		if (stat(line, &st) == 0)
			bytes += (unsigned long long)st.st_size;
	}
	free(line);
	double sink = 0;
	size_t jobs = 0;
	double t0 = now();
	for (size_t i = 0; i < n; i++) {
		if (ours) {
			struct fc_output *o;
			struct fc_error e;
			if (fc_output_read_file(files[i], &o, &e) != 0) {
				char msg[1024];
				fc_error_format(&e, msg, sizeof(msg));
				fprintf(stderr, "%s\n", msg);
				return 1;
			}
			for (size_t j = 0; j < o->final->n_jobs; j++, jobs++)
				sink += o->final->jobs[j].dir[FC_DDIR_READ].iops;
			fc_output_free(o);
		} else {
			json_error_t e;
			json_t *root = json_load_file(files[i], 0, &e);
			if (!root) {
				fprintf(stderr, "%s:%d: %s\n", files[i], e.line, e.text);
				return 1;
			}
			json_t *js = json_object_get(root, "jobs");
			for (size_t j = 0; j < json_array_size(js); j++, jobs++)
				sink += json_number_value(json_object_get(
				    json_object_get(json_array_get(js, j), "read"), "iops"));
			json_decref(root);
		}
	}
	double t = now() - t0;
	printf("%s: %zu files, %zu jobs, %.1f MB in %.3f s = %.0f MB/s (checksum %.0f)\n", argv[1],
	       n, jobs, (double)bytes / 1e6, t, (double)bytes / 1e6 / t, sink);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return 0;
}
