/*
 * doctor.h — `floe doctor`: every service floe depends on, checked, each with a
 * status, the facts seen, and what to do. The front end only renders the report.
 */
#ifndef FLOE_DOCTOR_DOCTOR_H
#define FLOE_DOCTOR_DOCTOR_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum floe_check_status {
	FLOE_CHECK_OK = 0,
	FLOE_CHECK_WARN,
	FLOE_CHECK_FAIL,
	FLOE_CHECK_SKIP /* could not be checked because an earlier check failed */
} floe_check_status;

typedef struct floe_doctor_check {
	const char *id;      /* stable, for --json consumers: "source.reachable" */
	const char *title;   /* one line for people */
	floe_check_status status;
	const char *facts;   /* what was seen */
	const char *todo;    /* what to do; NULL when ok */
} floe_doctor_check;

typedef struct floe_doctor_report floe_doctor_report;

/* Run every check. Fails (-1) only on internal errors; failed checks are data. */
int floe_doctor_run(floe_doctor_report **out, const floe_config *config);
void floe_doctor_free(floe_doctor_report *report);

size_t floe_doctor_count(const floe_doctor_report *report);
const floe_doctor_check *floe_doctor_at(const floe_doctor_report *report, size_t i);
bool floe_doctor_failed(const floe_doctor_report *report);

const char *floe_check_status_name(floe_check_status status);

int floe_doctor_render_text(floe_buf *out, const floe_doctor_report *report);
int floe_doctor_render_json(floe_buf *out, const floe_doctor_report *report);

#endif
