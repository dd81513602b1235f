/*
 * version.h — floe's version, one place for the CLI's --version and for what floe writes
 * into files it creates (Parquet's created_by).
 */
#ifndef FLOE_BASE_VERSION_H
#define FLOE_BASE_VERSION_H

#define FLOE_VERSION "0.1.0"

#endif
