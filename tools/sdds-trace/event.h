/* SPDX-License-Identifier: MIT */
/*
 * event.h - what the BPF program hands to sdds-trace per probe hit, and the
 * phase numbers (the probes' attach cookies). Shared by trace.bpf.c and the
 * userspace side, so it uses only fixed-size kernel types.
 *
 * OVERVIEW
 * One event per probe hit: the time (bpf_ktime_get_ns, CLOCK_MONOTONIC, one
 * clock for every process on the machine, network namespaces included), the
 * process and thread, the phase (the cookie sdds-trace attached the probe
 * with) and the probe's integer arguments, up to TRACE_MAX_ARGS, unused ones
 * 0. The phase order here is the order of the boundaries on the paths; the
 * probe names are those in ipc/probes.h's users (docs/trace.md).
 */
#ifndef SDDS_TRACE_EVENT_H
#define SDDS_TRACE_EVENT_H

#define TRACE_MAX_ARGS 5

enum trace_phase {
	TP_WRITE_ENTER = 0,
	TP_REQ_ENQUEUED,
	TP_DAEMON_DEQUEUE,
	TP_RECEIVED,
	TP_DECODED,
	TP_ROUTED,
	TP_ENCODED,
	TP_BACKEND_HANDED,
	TP_SENT,
	TP_CLIENT_ENQUEUED,
	TP_CLIENT_WOKEN,
	TP_CALLBACK_ENTER,
	TP_TAKE_RETURN,
	TP_MAX_
};

struct sdds_trace_event {
	__u64 ts;
	__u32 pid; /* thread group id */
	__u32 tid;
	__u32 phase; /* enum trace_phase */
	__u32 pad_;
	__u64 arg[TRACE_MAX_ARGS];
};

#endif /* SDDS_TRACE_EVENT_H */
