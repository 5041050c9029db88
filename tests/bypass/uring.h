/* uring.h - one io_uring submission, raw (no liburing): the shared part of
 * the uring_*.c attack programs of tests/t_bypass_seccomp.sh.
 *
 * Each program does one operation twice: as the direct syscall, then as
 * the io_uring opcode doing the same. It prints one line per try and exits
 *   0  the io_uring form succeeded: the policy was bypassed
 *   2  the io_uring form ran and failed (the operation itself refused)
 *   3  io_uring itself was refused (setup or enter): the policy closed it
 *   4  the direct syscall succeeded: the policy is not in force
 * so the test tells a closed io_uring from a bypass or a missing policy. */
#ifndef BYPASS_URING_H
#define BYPASS_URING_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

/* Submit *sqe, wait for its completion. 0 with *res set, or -errno of
 * io_uring_setup / io_uring_enter. */
static int uring_once(const struct io_uring_sqe *sqe, int *res)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sqsz = cqsz = sqsz > cqsz ? sqsz : cqsz;
	char *sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
			IORING_OFF_SQ_RING);
	char *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
		   mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
			IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -errno;
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
	unsigned mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	unsigned t = *tail, idx = t & mask;
	sqes[idx] = *sqe;
	((unsigned *)(sq + p.sq_off.array))[idx] = idx;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	unsigned head = __atomic_load_n((unsigned *)(cq + p.cq_off.head), __ATOMIC_ACQUIRE);
	unsigned cmask = *(unsigned *)(cq + p.cq_off.ring_mask);
	*res = ((struct io_uring_cqe *)(cq + p.cq_off.cqes))[head & cmask].res;
	close(fd);
	return 0;
}

/* Report the direct try (rc: its return, <0 failed with errno e), then
 * the io_uring try; returns the exit code described at the top. */
__attribute__((unused)) static int uring_report(const char *what, long direct, int e, const struct io_uring_sqe *sqe)
{
	if (direct >= 0)
		printf("direct %s: ok\n", what);
	else
		printf("direct %s: %s\n", what, strerror(e));
	int res = 0, r = uring_once(sqe, &res);
	if (r < 0) {
		printf("io_uring %s: io_uring refused: %s\n", what, strerror(-r));
		return direct >= 0 ? 4 : 3;
	}
	if (res < 0)
		printf("io_uring %s: %s\n", what, strerror(-res));
	else
		printf("io_uring %s: ok (bypass)\n", what);
	return direct >= 0 ? 4 : res < 0 ? 2 : 0;
}

#endif
