/*
 * assets.h — the console's page (src/console/assets/: index.html, console.css, console.js),
 * embedded into the binary at build time by scripts/embed-assets.sh (the Makefile's
 * $(BUILD)/gen/console_assets.c): `floe serve` needs no file beside it and no CDN.
 */
#ifndef FLOE_CONSOLE_ASSETS_H
#define FLOE_CONSOLE_ASSETS_H

#include <stddef.h>

typedef struct floe_console_asset {
	const char *name;           /* "console.js"; NULL ends the table */
	const unsigned char *data;  /* `size` bytes, then a NUL */
	size_t size;
} floe_console_asset;

extern const floe_console_asset floe_console_assets[];

/* The asset named `name`, or NULL. */
const floe_console_asset *floe_console_asset_find(const char *name);

/* Its Content-Type by extension. */
const char *floe_console_asset_type(const floe_console_asset *asset);

#endif
