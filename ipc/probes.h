/* SPDX-License-Identifier: MIT */
/*
 * probes.h - USDT probes at the phase boundaries of the send and the receive
 * path (provider `sdds`), read by tools/sdds-trace.
 *
 * OVERVIEW
 * SDDS_PROBEn(name, args...) is a <sys/sdt.h> probe: one NOP in the code and
 * an ELF note (.note.stapsdt) that says where the NOP is and where each
 * argument lives (a register, a constant or memory), so the probe costs
 * nothing while no tracer listens and a uprobe when one does. Arguments are
 * integers the code has at hand (ids, positions, counts); nothing is
 * formatted or computed for the probe alone. Meson's -Dprobes=false defines
 * SDDS_PROBES to 0 and every probe compiles to nothing (its arguments are
 * not evaluated).
 *
 * The phases, where each fires and which arguments identify a sample across
 * processes, are listed in docs/trace.md; tools/sdds-trace/phases.h holds the
 * same list for the tracer. A probe renamed here must be renamed there.
 */
#ifndef SDDS_IPC_PROBES_H
#define SDDS_IPC_PROBES_H

#if defined(SDDS_PROBES) && SDDS_PROBES
#include <sys/sdt.h>
#define SDDS_PROBE0(name) DTRACE_PROBE(sdds, name)
#define SDDS_PROBE1(name, a) DTRACE_PROBE1(sdds, name, a)
#define SDDS_PROBE2(name, a, b) DTRACE_PROBE2(sdds, name, a, b)
#define SDDS_PROBE3(name, a, b, c) DTRACE_PROBE3(sdds, name, a, b, c)
#define SDDS_PROBE4(name, a, b, c, d) DTRACE_PROBE4(sdds, name, a, b, c, d)
#define SDDS_PROBE5(name, a, b, c, d, e) DTRACE_PROBE5(sdds, name, a, b, c, d, e)
#else
#define SDDS_PROBE0(name) ((void)0)
#define SDDS_PROBE1(name, a) ((void)0)
#define SDDS_PROBE2(name, a, b) ((void)0)
#define SDDS_PROBE3(name, a, b, c) ((void)0)
#define SDDS_PROBE4(name, a, b, c, d) ((void)0)
#define SDDS_PROBE5(name, a, b, c, d, e) ((void)0)
#endif

/* The topic of a probe: domain and id in one word, as the tracer keys samples. */
#define SDDS_PROBE_TOPIC(domain, id) (((uint32_t)(domain) << 16) | (uint32_t)(id))

#endif /* SDDS_IPC_PROBES_H */
