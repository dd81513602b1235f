/*
 * assets.c — finding an embedded page file (assets.h).
 */
#include "console/assets.h"

#include <string.h>

const floe_console_asset *floe_console_asset_find(const char *name)
{
	for (const floe_console_asset *a = floe_console_assets; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

const char *floe_console_asset_type(const floe_console_asset *asset)
{
	const char *dot = strrchr(asset->name, '.');
	if (dot && strcmp(dot, ".html") == 0)
		return "text/html; charset=utf-8";
	if (dot && strcmp(dot, ".css") == 0)
		return "text/css; charset=utf-8";
	if (dot && strcmp(dot, ".js") == 0)
		return "text/javascript; charset=utf-8";
	return "application/octet-stream";
}
