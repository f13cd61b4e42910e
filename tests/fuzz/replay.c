/* SPDX-License-Identifier: MIT */
/*
 * Runs a fuzz target over files and directory trees, without libFuzzer: the
 * build checks the targets with any compiler, and the test suite replays the
 * fixtures (and any input a fuzzer found) under the sanitizers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* exactly len bytes, so a read past the end is caught */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	replayed++;
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && rc == 0) {
			char *sub;
			if (asprintf(&sub, "%s/%s", path, names[i]->d_name) < 0) {
				rc = -1;
			} else {
				rc = replay(sub);
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (replay(argv[i]) < 0)
			return 1;
	printf("%d inputs replayed\n", replayed);
	return 0;
}
