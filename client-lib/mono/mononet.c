/* SPDX-License-Identifier: MIT */
/*
 * mononet.c - the network side of monolithic mode: sddsd's own network
 * layer (daemon/net: netif, the backend, discovery) on a thread of the
 * application, bridging the in-process broker (mono.c) to SNPS peers.
 *
 * OVERVIEW
 * The same code as in the daemon, configured by the same keys
 * (daemon/net/netconf.h reads a daemon-style config file), so a monolithic
 * application and sddsd are the same node on the wire and talk to each
 * other either way round.
 *
 * Threads and the lock: the broker is single-threaded by contract; here it
 * is shared by the application's threads and the network thread, all under
 * mono.lock. The network thread runs a libuv loop owning the layer's
 * handles; the layer's hooks take the lock at the start of each of its
 * callbacks (enter) and drop it at the end (after). The layer runs in
 * threaded mode (netif_options.threaded): an application's write reaches
 * the layer's reader notify on the writer's thread, under the lock, which
 * encodes and sends the frame from there, so a sample goes out without a
 * thread switch (as an sDDS node sends from its write); received frames are
 * written into the broker by the network thread, whose flush rings the
 * application readers' doorbells. Nothing but uv_async_send touches the
 * loop from another thread.
 *
 * Polling (`poll = true` in the config): the thread never sleeps in epoll;
 * it turns the loop without waiting and between turns busy-polls the
 * backend (poll_rx), as a polling sddsd does.
 *
 * Lifetime: started by the first monolithic client of the process (mono.c),
 * stopped before the broker is freed by the last. Library code: nothing is
 * logged; counters stay in the layer.
 */
#include "mononet.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "broker.h"
#include "config.h"
#include "netconf.h"
#include "netif.h"

struct mono_net {
	uv_loop_t loop;
	uv_async_t wake; /* stop, or retry the backlog (mononet_kick) */
	pthread_t thread;
	pthread_mutex_t *lock;
	struct netif *net;
	struct sddsd_config cfg; /* the network options point into it */
	atomic_bool stop;
	bool poll;
};

static void mononet_enter(void *ctx)
{
	struct mono_net *mn = ctx;

	pthread_mutex_lock(mn->lock);
}

static void mononet_after(void *ctx)
{
	struct mono_net *mn = ctx;

	pthread_mutex_unlock(mn->lock);
}

static void mononet_on_wake(uv_async_t *h)
{
	struct mono_net *mn = h->data;

	pthread_mutex_lock(mn->lock);
	if (atomic_load(&mn->stop)) {
		netif_close(mn->net);
		pthread_mutex_unlock(mn->lock);
		uv_close((uv_handle_t *)&mn->wake, NULL);
		return;
	}
	netif_flush(mn->net);
	pthread_mutex_unlock(mn->lock);
}

static void *mononet_main(void *arg)
{
	struct mono_net *mn = arg;

	if (mn->poll) {
		/* Until the stop closed every handle (uv_run then says no more are alive). */
		while (uv_run(&mn->loop, UV_RUN_NOWAIT) != 0) {
			if (!atomic_load_explicit(&mn->stop, memory_order_relaxed))
				netif_poll(mn->net);
		}
	} else {
		uv_run(&mn->loop, UV_RUN_DEFAULT);
	}
	return NULL;
}

int mononet_start(struct broker *b, pthread_mutex_t *lock, const char *path, struct mono_net **ret)
{
	struct netif_hooks hooks = {NULL, NULL, NULL, NULL, NULL};
	struct config_error cerr;
	struct mono_net *mn;
	struct netconf nc;
	char why[NODECFG_ERROR_MAX];
	int rc;

	mn = calloc(1, sizeof(*mn));
	if (mn == NULL)
		return -ENOMEM;
	mn->lock = lock;
	config_init(&mn->cfg);
	rc = config_parse_file(&mn->cfg, path, &cerr);
	if (rc == 0)
		rc = config_validate(&mn->cfg, path, &cerr);
	if (rc < 0)
		goto fail_free;
	rc = netconf_load(&mn->cfg, &nc, why, sizeof(why));
	if (rc < 0)
		goto fail_free;
	nc.o.threaded = true;
	mn->poll = mn->cfg.poll;
	rc = uv_loop_init(&mn->loop);
	if (rc < 0)
		goto fail_netconf;
	hooks.enter = mononet_enter;
	hooks.after = mononet_after;
	hooks.ctx = mn;
	pthread_mutex_lock(lock);
	rc = netif_new(&mn->loop, b, &nc.o, &hooks, &mn->net, why, sizeof(why));
	pthread_mutex_unlock(lock);
	if (rc < 0)
		goto fail_loop;
	netconf_fini(&nc);
	rc = uv_async_init(&mn->loop, &mn->wake, mononet_on_wake);
	if (rc < 0)
		goto fail_net;
	mn->wake.data = mn;
	rc = -pthread_create(&mn->thread, NULL, mononet_main, mn);
	if (rc < 0) {
		uv_close((uv_handle_t *)&mn->wake, NULL);
		goto fail_net;
	}
	*ret = mn;
	return 0;

fail_net:
	pthread_mutex_lock(lock);
	netif_close(mn->net);
	pthread_mutex_unlock(lock);
	uv_run(&mn->loop, UV_RUN_DEFAULT);
	pthread_mutex_lock(lock);
	netif_free(mn->net);
	pthread_mutex_unlock(lock);
	uv_loop_close(&mn->loop);
	free(mn);
	return rc;
fail_loop:
	/* netif_new undid its part; its closed handles want one more run. */
	uv_run(&mn->loop, UV_RUN_DEFAULT);
	uv_loop_close(&mn->loop);
fail_netconf:
	netconf_fini(&nc);
fail_free:
	free(mn);
	return rc;
}

void mononet_stop(struct mono_net *mn)
{
	if (mn == NULL)
		return;
	atomic_store(&mn->stop, true);
	uv_async_send(&mn->wake);
	pthread_join(mn->thread, NULL);
	/* The loop has ended: the layer's handles are closed. */
	pthread_mutex_lock(mn->lock);
	netif_free(mn->net);
	pthread_mutex_unlock(mn->lock);
	uv_loop_close(&mn->loop);
	free(mn);
}

void mononet_reader_gone(struct mono_net *mn, struct broker_reader *r)
{
	if (mn != NULL)
		netif_reader_gone(mn->net, r);
}

void mononet_kick(struct mono_net *mn)
{
	if (mn != NULL)
		uv_async_send(&mn->wake);
}
