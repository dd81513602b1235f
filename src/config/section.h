/*
 * section.h — what the parsers of floe.toml's own sections (config/<section>.c) share:
 * errors with file:line:col and the section's hint, checked strings, variable names.
 */
#ifndef FLOE_CONFIG_SECTION_H
#define FLOE_CONFIG_SECTION_H

#include <stdbool.h>

typedef struct floe_arena floe_arena;
typedef struct floe_toml_value floe_toml_value;

typedef struct floe_config_reader {
	floe_arena *arena;
	const char *path;      /* floe.toml, for messages */
	const char *section;   /* "publish": keys are named `publish.<key>` */
	const char *hint;      /* the sentence every error of the section ends with */
} floe_config_reader;

/* FLOE_ERR_CONFIG "<path>:<line>:<col>: <message>" with the section's hint; returns -1. */
int floe_config_bad(const floe_config_reader *r, const floe_toml_value *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A non-empty string without NUL, copied into the arena; else an error naming `<section>.<key>`. */
int floe_config_text(const floe_config_reader *r, const char **out, const floe_toml_value *v, const char *key);

/* Whether `s` can name an environment variable (letters, digits, _; not starting with a digit). */
bool floe_config_env_name_ok(const char *s);

#endif
