/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what fiocamp-run reads from a Proxmox VE node must never
 * crash it: UPIDs, API tokens, certificate fingerprints, task exit statuses,
 * sizes and vzdump's task log.  The input is read as lines; each line goes
 * through every single-value parser, and all of them together, as a task
 * log, through the log readers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "http/http.h"
#include "proxmox/pve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *lines = json_array();
	const char *p = (const char *)data, *end = p + size;
	char *first = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = malloc(n + 1);
		if (!line)
			break;
		memcpy(line, p, n);
		line[n] = '\0';
		struct fcr_pve_upid u;
		(void)fcr_pve_upid_parse(line, &u);
		size_t id_len;
		(void)fcr_pve_token_valid(line, &id_len);
		unsigned char fp[FCR_FINGERPRINT_BYTES];
		(void)fcr_fingerprint_parse(line, fp);
		unsigned warnings;
		(void)fcr_pve_exit_ok(line, &warnings);
		(void)fcr_pve_parse_size(line);
		/* the log API's lines are JSON strings: only valid UTF-8 gets there */
		json_t *s = json_string(line);
		if (s)
			json_array_append_new(lines, s);
		if (!first)
			first = line;
		else
			free(line);
		p += n + (nl ? 1 : 0);
	}
	struct fcr_pve_vzdump_log log;
	fcr_pve_vzdump_log_parse(lines, &log);
	(void)fcr_pve_lock_refusal(first ? first : "", lines);
	free(first);
	json_decref(lines);
	return 0;
}
