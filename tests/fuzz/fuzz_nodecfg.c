/* SPDX-License-Identifier: MIT */
/*
 * fuzz_nodecfg.c - an sdds.xml node configuration through the node-config
 * reader (lib/sddsxml/src/nodecfg.c), and what it accepts through the network
 * layer's setup on the fake backend.
 *
 * OVERVIEW
 * Input: the whole input is the file (includes are refused from memory;
 * fuzz_sddsxml covers them in the shared XML reader). Checked per input: a
 * refusal says where ("node.xml:LINE: ..." or "node.xml: ..."); an accepted
 * configuration keeps every bound nodecfg.h promises (at most
 * NODECFG_MAX_TOPICS topics with distinct ids 0..15 and domains 0..15,
 * number sizes of 4, 8, 16 or 32 bits, a NACK topic is reliable, at most
 * NODECFG_MAX_DESTS destinations naming existing topics), and the network
 * layer either starts on it (then closes without leaks) or says why not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "broker.h"
#include "fuzz.h"
#include "netif.h"
#include <sddsxml/nodecfg.h>
#include "tests/net/fake_backend.h"

static void fz_check(const struct nodecfg *nc)
{
	bool seen[16] = {false};

	FUZZ_CHECK(nc->n_topics <= NODECFG_MAX_TOPICS);
	FUZZ_CHECK(nc->n_dests <= NODECFG_MAX_DESTS);
	for (uint32_t i = 0; i < nc->n_topics; i++) {
		const struct nodecfg_topic *t = &nc->topics[i];

		FUZZ_CHECK(t->desc.topic_id <= 15 && t->desc.domain <= 15);
		FUZZ_CHECK(!seen[t->desc.topic_id]);
		seen[t->desc.topic_id] = true;
		FUZZ_CHECK(t->seq_bits == 4 || t->seq_bits == 8 || t->seq_bits == 16 || t->seq_bits == 32);
		FUZZ_CHECK(!t->nack || t->reliable);
		FUZZ_CHECK(memchr(t->desc.name, 0, sizeof(t->desc.name)) != NULL);
		FUZZ_CHECK(nodecfg_topic_by_id(nc, t->desc.topic_id) == (int)i);
	}
	for (uint32_t i = 0; i < nc->n_dests; i++)
		FUZZ_CHECK(nc->dests[i].topic < nc->n_topics);
}

static void fz_netif(const struct nodecfg *nc)
{
	struct netif_options o;
	struct netif *n = NULL;
	struct broker *b;
	uv_loop_t loop;
	char why[256];

	fake_reset();
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	FUZZ_CHECK(broker_new(NULL, &b) == 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.reader_depth = 16;
	why[0] = 0;
	if (netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)) == 0) {
		netif_tick(n);
		netif_flush(n);
		netif_close(n);
		uv_run(&loop, UV_RUN_DEFAULT);
		netif_free(n);
	} else {
		FUZZ_CHECK(why[0] != 0);
		uv_run(&loop, UV_RUN_DEFAULT);
	}
	FUZZ_CHECK(fake_open_count() == 0);
	FUZZ_CHECK(uv_loop_close(&loop) == 0);
	broker_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nodecfg_error err;
	struct nodecfg *nc = NULL;
	int rc;

	err.msg[0] = 0;
	rc = nodecfg_load_memory(data, size, "node.xml", &nc, &err);
	if (rc < 0) {
		FUZZ_CHECK(nc == NULL);
		FUZZ_CHECK(rc == -ENOMEM || strncmp(err.msg, "node.xml:", 9) == 0);
		return 0;
	}
	fz_check(nc);
	fz_netif(nc);
	free(nc);
	return 0;
}
