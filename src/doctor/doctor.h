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

typedef struct floe_pg floe_pg;
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

/*
 * For `floe run` and `floe plan`: one warning line on stderr when the source role
 * is not read-only — a role.* check of `floe doctor` fails (superuser, CREATEROLE,
 * a write role, ownership or a write privilege, its own or of a role it can SET
 * ROLE to) — naming the failing checks and pointing to `floe doctor`. Silent when
 * the role is read-only or the source does not answer (the command reports that).
 */
void floe_doctor_warn_role(const floe_config *config);
/* The same on a source session the caller holds (borrowed; NULL: silent), so a run connects once. */
void floe_doctor_warn_role_on(const floe_config *config, floe_pg *pg);

int floe_doctor_render_text(floe_buf *out, const floe_doctor_report *report);
int floe_doctor_render_json(floe_buf *out, const floe_doctor_report *report);

#endif
