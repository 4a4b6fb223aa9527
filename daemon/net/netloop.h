/* SPDX-License-Identifier: MIT */
/*
 * netloop.h - what a network backend may ask of the event loop that owns
 * it, without knowing which loop that is: "call me when this fd is
 * readable" and "stop, and tell me when you let go of it".
 *
 * OVERVIEW
 * Backends (backend.h) do not include <uv.h>: a NIC driver polled by its
 * own thread, or the firmware's build, has no libuv. The owner of the loop
 * implements this interface (netloop_uv.c for libuv, used by netif.c) and
 * hands the backend an opaque struct net_loop at open.
 *
 * Ownership: a watch is allocated by net_watch_new and freed by the loop
 * after net_watch_close, before its done callback runs. The fd stays the
 * caller's: the loop never closes it, and the caller closes it only after
 * done (epoll must have forgotten it first).
 *
 * Threads: every call and every callback on the loop's thread.
 * Errors: 0 or -errno; out-parameters only on success.
 */
#ifndef SDDS_DAEMON_NET_NETLOOP_H
#define SDDS_DAEMON_NET_NETLOOP_H

/* The loop's owner's loop (sddsd: a uv_loop_t, see netloop_uv.h). */
struct net_loop;
/* One fd watched for readable. */
struct net_watch;

/* fd (the one given to net_watch_new) is readable; ctx as given there. */
typedef void (*net_watch_fn)(void *ctx, int fd);

/* Watch fd for readable on loop: fn(ctx, fd) on each readable turn until closed. */
int net_watch_new(struct net_loop *loop, int fd, net_watch_fn fn, void *ctx, struct net_watch **ret);

/*
 * Stop watching; done(ctx) runs on the loop once the loop let go of the fd
 * and w is freed (done may be NULL). Accepts NULL w (then done runs at once).
 */
void net_watch_close(struct net_watch *w, void (*done)(void *ctx), void *ctx);

#endif /* SDDS_DAEMON_NET_NETLOOP_H */
