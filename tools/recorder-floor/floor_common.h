/* floor_common.h - what the two recorder-floor tools share: where they make
 * their cgroups (polc's own cgroup2_mount, base/util.c) and libbpf quiet
 * unless FLOOR_DEBUG is set (then its warnings, the reasons a mechanism
 * does not attach). */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../base/util.h"

static inline const char *cgroup2_root(void)
{
	static char root[256];
	if (!root[0] && cgroup2_mount(root, sizeof root) < 0)
		snprintf(root, sizeof root, "/sys/fs/cgroup");
	return root;
}

static inline int floor_libbpf_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	return l == LIBBPF_WARN && getenv("FLOOR_DEBUG") ? vfprintf(stderr, f, ap) : 0;
}

#endif
