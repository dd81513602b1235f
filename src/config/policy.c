/*
 * policy.c — [policy]: the checks config.c applies to each key and value of the section,
 * and the lookup `floe sync` makes per change class.
 */
#include "config/policy.h"

#include <string.h>

const char *const floe_policy_classes[] = {
	"add-table", "add-column", "widen-type", "drop-not-null", "set-not-null", "add-enum-value",
	"rename-column", "drop-column", "narrow-type", "change-type", "add-required-column", "change-key",
	"change-watermark", "drop-table", NULL,
};

const char *const floe_policy_actions[] = { "commit", "branch", "refuse", NULL };

static bool listed(const char *const *names, const char *s)
{
	for (; *names; names++)
		if (strcmp(*names, s) == 0)
			return true;
	return false;
}

const char *floe_policy_class_problem(const char *key)
{
	return listed(floe_policy_classes, key) ? NULL
		: "a change class: add-table, add-column, widen-type, drop-not-null, set-not-null, add-enum-value, "
		  "rename-column, drop-column, narrow-type, change-type, add-required-column, change-key, "
		  "change-watermark or drop-table";
}

const char *floe_policy_action_problem(const char *value)
{
	return listed(floe_policy_actions, value) ? NULL : "\"commit\", \"branch\" or \"refuse\"";
}

const char *floe_policy_action(const floe_config *config, const char *cls)
{
	for (size_t i = 0; i < config->policy.count; i++)
		if (strcmp(config->policy.keys[i], cls) == 0)
			return config->policy.values[i];
	return NULL;
}
