/* yaml_node.c - see yaml_node.h. */
#include <string.h>

#include "yaml_node.h"

bool yaml_node_is_null(const yaml_node_t *n)
{
	if (!n)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "null") || !strcmp(s, "~");
}
