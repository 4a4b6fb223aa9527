/* SPDX-License-Identifier: MIT */
/*
 * netloop_uv.c - netloop.h on libuv: a watch is a uv_poll_t.
 *
 * OVERVIEW
 * A struct net_loop is the uv_loop_t itself (netloop_uv.h). A watch is
 * allocated at net_watch_new (backends open their fds at start, so this
 * is no allocation on the packet path) and freed in the handle's close
 * callback, after which the caller's done runs and it may close the fd:
 * uv_close never closes a polled fd.
 */
#include <errno.h>
#include <stdlib.h>

#include "netloop_uv.h"

struct net_watch {
	uv_poll_t poll;
	net_watch_fn fn;
	void *ctx;
	int fd;
	void (*done)(void *ctx);
	void *done_ctx;
};

static void net_watch_on_poll(uv_poll_t *h, int status, int events)
{
	struct net_watch *w = h->data;

	(void)status;
	(void)events;
	w->fn(w->ctx, w->fd);
}

int net_watch_new(struct net_loop *loop, int fd, net_watch_fn fn, void *ctx, struct net_watch **ret)
{
	struct net_watch *w;
	int rc;

	if (loop == NULL || fn == NULL || fd < 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	rc = uv_poll_init((uv_loop_t *)(void *)loop, &w->poll, fd);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->poll.data = w;
	w->fn = fn;
	w->ctx = ctx;
	w->fd = fd;
	rc = uv_poll_start(&w->poll, UV_READABLE, net_watch_on_poll);
	if (rc < 0) {
		/* Closed through the loop; nobody waits for it. */
		net_watch_close(w, NULL, NULL);
		return rc;
	}
	*ret = w;
	return 0;
}

static void net_watch_on_close(uv_handle_t *h)
{
	struct net_watch *w = h->data;
	void (*done)(void *ctx) = w->done;
	void *ctx = w->done_ctx;

	free(w);
	if (done != NULL)
		done(ctx);
}

void net_watch_close(struct net_watch *w, void (*done)(void *ctx), void *ctx)
{
	if (w == NULL) {
		if (done != NULL)
			done(ctx);
		return;
	}
	w->done = done;
	w->done_ctx = ctx;
	uv_poll_stop(&w->poll);
	uv_close((uv_handle_t *)&w->poll, net_watch_on_close);
}
