/* SPDX-License-Identifier: MIT */
/* Power: off (ACPI or hard), on, reboot, each waited for until GET shows it. */
#include <stdio.h>
#include <string.h>

#include "netcup/internal.h"

static int observe_state(struct fcr_netcup *nc, const void *arg, bool *done, json_t *seen,
			 struct fcr_error *err)
{
	struct fcr_netcup_server s;
	int rc = fcr_netcup_get_server(nc, &s, err);
	if (rc < 0)
		return rc;
	*done = strcmp(s.state, (const char *)arg) == 0;
	if (seen)
		json_object_set_new(seen, "state",
				    s.live_info ? json_string(s.state) : json_null());
	return 0;
}

/* Polls GET /servers/{id} until its state is `want`. */
int fcr_netcup_wait_state(struct fcr_netcup *nc, const char *want, struct fcr_error *err)
{
	unsigned limit_ms = fcr_netcup_wait_limit_ms(nc);
	double deadline = cm_mono_s() + limit_ms / 1000.0;
	char last[24] = "";
	for (;;) {
		struct fcr_netcup_server s;
		int rc = fcr_netcup_get_server(nc, &s, err);
		if (rc < 0)
			return rc;
		if (!s.live_info)
			return fcr_fail_as(
			    err, FCR_E_PROTOCOL,
			    "server %ld: the API gave no serverLiveInfo, so its state is "
			    "unknown",
			    nc->cfg.server_id);
		if (strcmp(s.state, want) == 0)
			return 0;
		snprintf(last, sizeof(last), "%s", s.state);
		if (cm_mono_s() >= deadline)
			return fcr_fail_as(err, FCR_E_TIMEOUT,
					   "server %ld is still %s, not %s, after %.0f s",
					   nc->cfg.server_id, last, want, limit_ms / 1000.0);
		rc = fcr_api_sleep_ms(&nc->scp, nc->cfg.poll_interval_ms, err);
		if (rc < 0)
			return rc;
	}
}

/*
 * PATCH {"state": word}[?stateOption=option], wait for its task, then for
 * GET to show `target`.  skip_if_there: read the state first and send nothing
 * when it is `target` already.
 */
static int power_step(struct fcr_netcup *nc, const char *word, const char *option,
		      const char *target, bool skip_if_there, struct fcr_netcup_result *res,
		      struct fcr_error *err)
{
	char path[128], body[64];
	int rc;
	if (skip_if_there) {
		bool there = false;
		rc = observe_state(nc, target, &there, NULL, err);
		if (rc < 0)
			return rc;
		if (there) {
			res->already = true;
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/api/v1/servers/%ld%s%s", nc->cfg.server_id,
		 option ? "?stateOption=" : "", option ? option : "");
	snprintf(body, sizeof(body), "{\"state\":\"%s\"}", word);
	char what[64];
	snprintf(what, sizeof(what), "power %s%s%s", word, option ? " " : "", option ? option : "");
	struct fcr_netcup_write w = {
	    .call = {.method = "PATCH",
		     .path = path,
		     .content_type = "application/merge-patch+json",
		     .body = body,
		     .write = true},
	    .what = what,
	    .task_name = "ServerStateChangeTask",
	    /* RESET and POWERCYCLE end where they began: nothing to observe */
	    .observe = option && strcmp(word, "ON") == 0 ? NULL : observe_state,
	    .arg = target,
	};
	rc = fcr_netcup_write(nc, &w, res, err);
	if (rc < 0)
		return rc;
	return fcr_netcup_wait_state(nc, target, err);
}

int fcr_netcup_power_off(struct fcr_netcup *nc, bool hard, struct fcr_netcup_result *res,
			 struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	int rc = power_step(nc, "OFF", hard ? "POWEROFF" : NULL, "SHUTOFF", true, res, err);
	return fcr_netcup_result_end(res, t0, rc);
}

int fcr_netcup_power_on(struct fcr_netcup *nc, struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	int rc = power_step(nc, "ON", NULL, "RUNNING", true, res, err);
	return fcr_netcup_result_end(res, t0, rc);
}

int fcr_netcup_reboot(struct fcr_netcup *nc, enum fcr_netcup_reboot how,
		      struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	int rc;
	switch (how) {
	case FCR_NETCUP_REBOOT_GRACEFUL:
		rc = power_step(nc, "OFF", NULL, "SHUTOFF", true, res, err);
		if (rc == 0) {
			bool was_off = res->already;
			rc = power_step(nc, "ON", NULL, "RUNNING", false, res, err);
			res->already = was_off && res->n_tasks == 0;
		}
		break;
	case FCR_NETCUP_REBOOT_POWERCYCLE:
		rc = power_step(nc, "ON", "POWERCYCLE", "RUNNING", false, res, err);
		break;
	case FCR_NETCUP_REBOOT_RESET:
		rc = power_step(nc, "ON", "RESET", "RUNNING", false, res, err);
		break;
	default:
		rc = fcr_fail_as(err, FCR_E_INVAL, "unknown reboot mode %d", (int)how);
	}
	return fcr_netcup_result_end(res, t0, rc);
}
