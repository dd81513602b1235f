/*
 * dagster_int.h — the fixed Python of the generated Dagster project (dagster_files.c),
 * shared with dagster.c.
 */
#ifndef FLOE_GEN_DAGSTER_INT_H
#define FLOE_GEN_DAGSTER_INT_H

extern const char floe_dagster_assets_head[];  /* opening comment and imports */
extern const char floe_dagster_assets_body[];  /* the factories, after the project's constants */

#endif
