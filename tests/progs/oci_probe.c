/* oci_probe - make one syscall and print "NAME RET ERRNO": the workload of
 * tests/t_oci_runtime.sh, built static there for a busybox bundle.
 * NAME: getppid, keyctl, or x32 (getppid with the x32 bit, as an x32
 * program would call it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	long nr = !strcmp(argv[1], "x32") ? (0x40000000L | SYS_getppid)
		: !strcmp(argv[1], "keyctl") ? SYS_keyctl : SYS_getppid;
	errno = 0;
	long r = syscall(nr, 0, 0, 0);
	printf("%s %ld %d\n", argv[1], r < 0 ? -1L : 0L, r < 0 ? errno : 0);
	return 0;
}
