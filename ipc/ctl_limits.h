/* SPDX-License-Identifier: MIT */
/*
 * ctl_limits.h - sizes both sides of the control socket agree on: a client
 * checks a topic description against them before it asks, and the daemon's
 * broker refuses anything beyond them. Plain constants, so the client
 * library needs no broker header to know them.
 */
#ifndef SDDS_IPC_CTL_LIMITS_H
#define SDDS_IPC_CTL_LIMITS_H

/* Longest topic or field name, NUL included. */
#define IPC_NAME_MAX 64
/* Most fields in one topic description. */
#define IPC_MAX_FIELDS 64

#endif
