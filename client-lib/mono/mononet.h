/* SPDX-License-Identifier: MIT */
/*
 * mononet.h - the network side of monolithic mode (see mononet.c).
 */
#ifndef SDDS_CLIENT_MONONET_H
#define SDDS_CLIENT_MONONET_H

#include <pthread.h>

struct broker;
struct broker_reader;
struct mono_net;

/*
 * Read the daemon-style config at path (sddsd.conf syntax: node_config,
 * interface, backend, max_frame, discovery..., poll), open sddsd's network
 * layer on broker b and start its thread. lock is the broker's lock
 * (mono.lock): the caller must not hold it; it must outlive the network.
 * Returns 0 with *ret, or -errno (-ENOENT: the config names no node config;
 * -EINVAL: a bad config; what the backend says about the links).
 */
int mononet_start(struct broker *b, pthread_mutex_t *lock, const char *path, struct mono_net **ret);

/* Stop the thread, close and free the layer; the caller must not hold the lock. Accepts NULL. */
void mononet_stop(struct mono_net *mn);

/* A local reader is about to be freed (under the lock). Accepts NULL mn. */
void mononet_reader_gone(struct mono_net *mn, struct broker_reader *r);

/* A local reader made room the layer may wait for: retry soon. Any thread, no lock; NULL mn ok. */
void mononet_kick(struct mono_net *mn);

#endif /* SDDS_CLIENT_MONONET_H */
