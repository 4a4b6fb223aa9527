// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * trace.bpf.c - one USDT program for every sdds probe: stamp, copy the
 * arguments, hand the event to userspace through a ring buffer.
 *
 * OVERVIEW
 * sdds-trace attaches this one program to each probe of sddsd and
 * libsddsclient with the phase number as the attach cookie, so the program
 * knows nothing of the phases; all matching happens in userspace. The time
 * is read before the ring buffer reservation so waiting for the buffer does
 * not count toward the phase. A full buffer drops the event and counts it
 * in `dropped`, which sdds-trace reports: a sample that lost an event is
 * counted as unmatched, never guessed.
 *
 * With a command, only its process tree is traced: the probes fire in every
 * process that maps the binaries (uprobes are per file), and on a shared
 * machine others may run them too. sdds_fork follows forks from the command
 * (seeded by sdds-trace before the exec); a BTF tracepoint, so no tracefs is
 * needed.
 *
 * The licence string must be GPL-compatible: reading USDT arguments from
 * user memory needs bpf_probe_read_user.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "event.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} events SEC(".maps");

__u64 dropped = 0;

/* Set before load: only processes in `traced` (a command and its descendants) count. */
const volatile bool filter_pids = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/*
 * A traced process's new task is traced too. For a thread the key is its
 * tid, never looked up (events are filtered by thread group): harmless.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(sdds_fork, struct task_struct *parent_task, struct task_struct *child_task)
{
	__u32 parent = (__u32)(bpf_get_current_pid_tgid() >> 32);
	__u32 child = (__u32)child_task->pid;
	__u8 one = 1;

	if (filter_pids && bpf_map_lookup_elem(&traced, &parent))
		bpf_map_update_elem(&traced, &child, &one, BPF_ANY);
	return 0;
}

SEC("usdt")
int sdds_probe(struct pt_regs *ctx)
{
	__u64 ts = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	struct sdds_trace_event *e;
	__u32 tgid = (__u32)(id >> 32);
	int n = bpf_usdt_arg_cnt(ctx);

	if (filter_pids && !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	e->ts = ts;
	e->pid = (__u32)(id >> 32);
	e->tid = (__u32)id;
	e->phase = (__u32)bpf_usdt_cookie(ctx);
	e->pad_ = 0;
#pragma unroll
	for (int i = 0; i < TRACE_MAX_ARGS; i++) {
		long v = 0;

		if (i < n)
			bpf_usdt_arg(ctx, i, &v);
		e->arg[i] = (__u64)v;
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
