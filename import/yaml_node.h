/* yaml_node.h - what the YAML importers (import_oci.c, import_varmor.c)
 * agree a libyaml node means.
 * yaml_node_is_null: a missing node (NULL: the key is absent) or a plain
 * scalar null (`null`, `~`, or nothing). Either way there is no value, so
 * both importers treat an absent key and a null one alike; a quoted "null"
 * is the string. */
#ifndef POLC_IMPORT_YAML_NODE_H
#define POLC_IMPORT_YAML_NODE_H

#include <stdbool.h>
#include <yaml.h>

bool yaml_node_is_null(const yaml_node_t *n);

#endif
