/* bpf_interp.c - see bpf_interp.h. */
#include "bpf_interp.h"

#include <string.h>

static bool load_word(const struct seccomp_data *sd, uint32_t k, uint32_t *out)
{
	if (k > sizeof *sd - 4 || (k & 3))
		return false;
	memcpy(out, (const char *)sd + k, 4);
	return true;
}

static bool alu(uint16_t code, uint32_t *a, uint32_t v)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: *a += v; break;
	case BPF_SUB: *a -= v; break;
	case BPF_MUL: *a *= v; break;
	case BPF_DIV: if (!v) return false; *a /= v; break;
	case BPF_MOD: if (!v) return false; *a %= v; break;
	case BPF_AND: *a &= v; break;
	case BPF_OR: *a |= v; break;
	case BPF_XOR: *a ^= v; break;
	case BPF_LSH: *a = v < 32 ? *a << v : 0; break;
	case BPF_RSH: *a = v < 32 ? *a >> v : 0; break;
	case BPF_NEG: *a = -*a; break;
	default: return false;
	}
	return true;
}

/* Jump by off past the instruction at *pc, if that stays in the program. */
static bool jump(size_t *pc, size_t off, size_t len)
{
	if (*pc + 1 + off >= len)
		return false;
	*pc += off;
	return true;
}

/* The jumps and returns seccomp filters are mostly made of (constant
 * compares, ja, ret k) are decoded by their whole opcode first, everything
 * else (those too with other bits set) by class as before; steps and
 * loaded_args are counted in locals and stored once. */
uint32_t bpf_interp(const struct sock_filter *prog, size_t len,
		    const struct seccomp_data *sd, bpf_run_info *info)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	uint32_t ret = BPF_INTERP_BAD;
	unsigned steps = 0;
	bool loaded_args = false;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint32_t k = f->k;
		steps++;
		switch (f->code) {
		case BPF_JMP | BPF_JEQ | BPF_K:
			if (!jump(&pc, A == k ? f->jt : f->jf, len))
				goto out;
			continue;
		case BPF_JMP | BPF_JGE | BPF_K:
			if (!jump(&pc, A >= k ? f->jt : f->jf, len))
				goto out;
			continue;
		case BPF_JMP | BPF_JGT | BPF_K:
			if (!jump(&pc, A > k ? f->jt : f->jf, len))
				goto out;
			continue;
		case BPF_JMP | BPF_JSET | BPF_K:
			if (!jump(&pc, (A & k) != 0 ? f->jt : f->jf, len))
				goto out;
			continue;
		case BPF_JMP | BPF_JA:
			if (!jump(&pc, k, len))
				goto out;
			continue;
		case BPF_RET | BPF_K:
			ret = k;
			goto out;
		default:
			break;
		}
		uint32_t src = BPF_SRC(f->code) == BPF_X ? X : k;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (BPF_MODE(f->code) == BPF_ABS && BPF_SIZE(f->code) == BPF_W) {
				if (!load_word(sd, k, &A))
					goto out;
				if (k >= offsetof(struct seccomp_data, instruction_pointer))
					loaded_args = true;
			} else if (BPF_MODE(f->code) == BPF_IMM) {
				A = k;
			} else if (BPF_MODE(f->code) == BPF_MEM && k < BPF_MEMWORDS) {
				A = M[k];
			} else if (BPF_MODE(f->code) == BPF_LEN) {
				A = sizeof *sd;
			} else {
				goto out;
			}
			break;
		case BPF_LDX:
			if (BPF_MODE(f->code) == BPF_IMM)
				X = k;
			else if (BPF_MODE(f->code) == BPF_MEM && k < BPF_MEMWORDS)
				X = M[k];
			else if (BPF_MODE(f->code) == BPF_LEN)
				X = sizeof *sd;
			else
				goto out;
			break;
		case BPF_ST: if (k >= BPF_MEMWORDS) goto out; M[k] = A; break;
		case BPF_STX: if (k >= BPF_MEMWORDS) goto out; M[k] = X; break;
		case BPF_ALU:
			if (!alu(f->code, &A, src))
				goto out;
			break;
		case BPF_JMP: {
			size_t off;
			if (BPF_OP(f->code) == BPF_JA) {
				off = k;
			} else {
				bool t;
				switch (BPF_OP(f->code)) {
				case BPF_JEQ: t = A == src; break;
				case BPF_JGT: t = A > src; break;
				case BPF_JGE: t = A >= src; break;
				case BPF_JSET: t = (A & src) != 0; break;
				default: goto out;
				}
				off = t ? f->jt : f->jf;
			}
			if (!jump(&pc, off, len))
				goto out;
			break;
		}
		case BPF_RET:
			ret = BPF_RVAL(f->code) == BPF_A ? A : k;
			goto out;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		default:
			goto out;
		}
	}
out:
	if (info) {
		info->steps = steps;
		info->loaded_args = loaded_args;
	}
	return ret;
}

uint32_t bpf_interp_set(const bpf_prog_ref *v, size_t n, const struct seccomp_data *sd,
			bpf_run_info *info)
{
	bpf_run_info dummy, one;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	uint32_t ret = SECCOMP_RET_ALLOW;
	for (size_t i = n; i-- > 0;) {
		uint32_t cur = bpf_interp(v[i].f, v[i].len, sd, &one);
		if (cur == BPF_INTERP_BAD)
			return BPF_INTERP_BAD;
		info->steps += one.steps;
		info->loaded_args |= one.loaded_args;
		if ((int32_t)(cur & SECCOMP_RET_ACTION_FULL) < (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
			ret = cur;
	}
	return ret;
}
