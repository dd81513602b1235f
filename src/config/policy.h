/*
 * policy.h — [policy] in floe.toml: the action `floe sync` takes per schema-change class,
 * where a person overrides the default (commit a safe change, branch a breaking one):
 *
 *   [policy]
 *   add-column = "branch"      # commit | branch | refuse
 *
 * The class names are those docs/sync.md lists (sync/sync.h's floe_sync_class_name gives
 * the same; a unit test compares them). An unknown class or action is a configuration
 * error naming the valid ones, with the file's line and column.
 */
#ifndef FLOE_CONFIG_POLICY_H
#define FLOE_CONFIG_POLICY_H

#include "config/config.h"

/* The classes, NULL-terminated, in docs/sync.md's order. */
extern const char *const floe_policy_classes[];
/* The actions: "commit", "branch", "refuse"; NULL-terminated. */
extern const char *const floe_policy_actions[];

/* What a [policy] key or value should have been ("one of add-table, …"), or NULL when it is valid. */
const char *floe_policy_class_problem(const char *key);
const char *floe_policy_action_problem(const char *value);

/* The action [policy] sets for `cls`, or NULL when it sets none. */
const char *floe_policy_action(const floe_config *config, const char *cls);

#endif
