/* SPDX-License-Identifier: MIT */
/*
 * fuzz_netif.c - the daemon's whole receive side (daemon/net/netif.c) fed
 * by a hostile network: datagrams from several addresses and ports, unicast
 * and multicast, into a network layer with discovery on, static
 * subscribers, NACK topics of 4 and 16 bits, an ACK topic and best-effort
 * topics, interleaved with local writes (so NACKs and ACKs find kept
 * samples to answer), local takes, and clock steps with the layer's timer
 * body (retries, heartbeats, give-ups, discovery expiry). The fuzz_snps
 * target covers the decoder alone; this one covers what the layer does with
 * what the decoder let through: peer and subscription tables, NACK streams
 * and their reorder rings, the reliable window, the backlog behind a full
 * reliable reader.
 *
 * OVERVIEW
 * Input: operations, each a byte whose low 3 bits say what:
 *   0, 1  a datagram: one byte picks the source (bits 0-1 address, 2-3
 *         port, 7 multicast), one byte its length L, then L bytes;
 *   2     receive what is queued and end the turn (netif_flush);
 *   3     step the clock by (byte + 1) ms, run the timer body, end the turn;
 *   4     a local write: one byte picks the topic, then sample_size bytes;
 *   5     take everything the local readers hold;
 *   6     step the clock by byte * 100 ms (expiry), timer body, end the turn;
 *   7     receive without ending the turn.
 * Built with FZ_RX_ONLY (the fuzz_netif_rx target), every operation but 2
 * and 7 is a datagram: no writes, takes or clock steps, so a run covers the
 * decoder and the receive dispatch alone (where wire values index tables)
 * and runs about 2.5 times as fast. fuzz_netif's time goes to what its
 * inputs make the layer do (a corpus input sends about 100 datagrams, the
 * longest 2,300) and to libFuzzer's bookkeeping of the features that
 * touches, not to per-input setup.
 * Checked: a local reader only ever holds samples of its topic's size;
 * every datagram the layer sent is a frame our own decoder accepts (it
 * never emits what it would drop); the layer's state survives (sanitizers),
 * and closes without leaks.
 *
 * Per-input setup: the layer, its broker and our endpoints are built once
 * and put back into their start state for each input (netif_reset, our
 * readers made again on emptied rings): building them costs about 1,800
 * covered edges per input, which libFuzzer's per-input feature bookkeeping
 * pays for on every run, and a 216 KiB layer that ASan maps and unmaps.
 * A reset layer must behave exactly as a fresh one, or findings do not
 * reproduce: with FUZZ_NETIF_RESET_CHECK=1 in the environment every input
 * also runs on a freshly built layer, and a digest of what each did (every
 * datagram sent, every sample taken, the layer's and discovery's counters,
 * the peer table) must match (the meson test of this target sets it, so
 * the corpus replay checks it; fuzzing with it set hunts for a difference).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "broker.h"
#include "fuzz.h"
#include "netif.h"
#include <sddsxml/nodecfg.h>
#include "ring.h"
#include <snps/snps.h>
#include "tests/net/fake_backend.h"

#define FZ_TOPICS 5
#define FZ_RING 16u
#define FZ_SLOT 64u
#define MS 1000000ll

static const char fz_xml[] =
    "<project name=\"fz\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" iface=\"fk0\" "
    "port=\"23234\">\n"
    "<domain id=\"1\">\n"
    "<topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
    "  <attribute name=\"device\" type=\"DDS_unsigned_short\"/>\n"
    "  <attribute name=\"value\" type=\"DDS_short\"/>\n"
    "</topic>\n"
    "<topic name=\"qnack\" domain=\"1\" id=\"B\">\n"
    "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
    "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" kind=\"reliable\" "
    "confirmationtype=\"nack\" max_blocking_time=\"100\"/>\n"
    "</topic>\n"
    "<topic name=\"qack\" domain=\"1\" id=\"C\">\n"
    "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
    "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" kind=\"reliable\" "
    "confirmationtype=\"ack\" max_blocking_time=\"100\"/>\n"
    "</topic>\n"
    "<topic name=\"bignack\" domain=\"1\" id=\"D\">\n"
    "  <attribute name=\"a\" type=\"DDS_unsigned_long\"/>\n"
    "  <attribute name=\"s\" type=\"DDS_string\" size=\"3\"/>\n"
    "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"big\" kind=\"reliable\" "
    "confirmationtype=\"nack\" max_blocking_time=\"100\"/>\n"
    "</topic>\n"
    "<topic name=\"wide\" domain=\"1\" id=\"E\">\n"
    "  <attribute name=\"x\" type=\"DDS_unsigned_long\"/>\n"
    "  <attribute name=\"y\" type=\"DDS_long_long\"/>\n"
    "  <attribute name=\"c\" type=\"DDS_char\"/>\n"
    "</topic>\n"
    "</domain>\n"
    "<role topic=\"temperature\" type=\"publisher\"/>\n"
    "<role topic=\"qnack\" type=\"publisher\"/>\n"
    "<role topic=\"qack\" type=\"publisher\"/>\n"
    "<role topic=\"bignack\" type=\"subscriber\"/>\n"
    "<role topic=\"wide\" type=\"subscriber\"/>\n"
    "<subscription topic=\"temperature\"><subscriber ip=\"fe80::2\"/></subscription>\n"
    "<subscription topic=\"qnack\"><subscriber ip=\"fe80::2\"/></subscription>\n"
    "<subscription topic=\"qack\"><subscriber ip=\"fe80::2\"/><subscriber ip=\"fe80::3\" "
    "port=\"4000\"/></subscription>\n"
    "</project>\n";

static const char *const fz_addrs[4] = {"fe80::2", "fe80::3", "fe80::c0ef:62ff:fed4:d26a", "fe80::1"};
static const uint16_t fz_ports[4] = {23234, 23254, 4000, 57338};

static struct nodecfg *fz_node;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct nodecfg_error err;

	(void)argc;
	(void)argv;
	if (nodecfg_load_memory(fz_xml, sizeof(fz_xml) - 1, "fuzz.xml", &fz_node, &err) < 0) {
		fprintf(stderr, "fuzz_netif: %s\n", err.msg);
		__builtin_trap();
	}
	return 0;
}

struct fz {
	uv_loop_t loop;
	struct broker *b;
	struct netif *n;
	struct broker_topic *t[FZ_TOPICS];
	struct broker_writer *w[FZ_TOPICS];
	struct broker_reader *r[FZ_TOPICS];
	struct rring_cons cons[FZ_TOPICS];
	void *rmem[FZ_TOPICS];
	uint32_t size[FZ_TOPICS];
	int64_t now;
	int open_before; /* fake backends open before ours */
	uint64_t digest; /* FNV-1a of what this input made the layer do */
};

/* FUZZ_NETIF_RESET_CHECK=1: every input also runs on a fresh layer (-1: not read yet). */
static int fz_check = -1;

static void fz_hash(struct fz *f, const void *p, size_t len)
{
	const uint8_t *b = p;

	if (fz_check != 1)
		return; /* the digest costs a tenth of a run */

	for (size_t i = 0; i < len; i++)
		f->digest = (f->digest ^ b[i]) * 0x100000001b3ull;
}

/* Our reader of topic i on its ring f->rmem[i], formatted empty. */
static void fz_reader_new(struct fz *f, int i)
{
	/* The reliable topic's local reader is reliable: a full ring holds the network back (backlog). */
	struct broker_qos rq = {.reliability = i == 2 ? BROKER_RELIABLE : BROKER_BEST_EFFORT,
				.history_depth = FZ_RING,
				.max_blocking_ms = 100};
	struct rring_prod prod;

	memset(f->rmem[i], 0, rring_size(FZ_RING, FZ_SLOT));
	rring_format(f->rmem[i], FZ_RING, rring_slot_size(FZ_SLOT));
	FUZZ_CHECK(rring_prod_init(&prod, f->rmem[i], FZ_RING, rring_slot_size(FZ_SLOT)) == 0);
	FUZZ_CHECK(rring_cons_init(&f->cons[i], f->rmem[i], FZ_RING, rring_slot_size(FZ_SLOT)) == 0);
	FUZZ_CHECK(broker_reader_new(f->b, f->t[i], &rq, 7, &prod, NULL, NULL, &f->r[i]) == 0);
}

/* The clock and the fake network as a fresh start finds them. */
static void fz_start(struct fz *f)
{
	fake_reset();
	f->now = 1000 * MS;
	fake_clock_set(f->now);
	f->digest = 0xcbf29ce484222325ull;
}

static void fz_open(struct fz *f)
{
	struct broker_qos wq = {.reliability = BROKER_BEST_EFFORT, .history_depth = 1};
	struct netif_options o;
	char why[256];

	memset(f, 0, sizeof(*f));
	fz_start(f);
	f->open_before = fake_open_count();
	FUZZ_CHECK(uv_loop_init(&f->loop) == 0);
	FUZZ_CHECK(broker_new(NULL, &f->b) == 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = fz_node;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.reader_depth = 64;
	o.backlog_cap = 32;
	o.disc.on = true;
	o.disc.node_id = 0x1234;
	o.disc.expire_ms = 3000;
	o.disc.max_subs = 8;
	o.max_peers = 8;
	FUZZ_CHECK(netif_new(&f->loop, f->b, &o, NULL, &f->n, why, sizeof(why)) == 0);
	for (int i = 0; i < FZ_TOPICS; i++) {
		struct broker_topic_desc d;
		size_t bytes = rring_size(FZ_RING, FZ_SLOT);

		netif_broker_desc(&fz_node->topics[i].desc, &d);
		f->size[i] = d.sample_size;
		FUZZ_CHECK(broker_topic_get(f->b, &d, &f->t[i]) == 0);
		FUZZ_CHECK(broker_writer_new(f->b, f->t[i], &wq, 5, &f->w[i]) == 0);
		f->rmem[i] = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
		FUZZ_CHECK(f->rmem[i] != NULL);
		fz_reader_new(f, i);
	}
}

/*
 * Back to what fz_open left: the layer first (it makes its readers again),
 * then ours, so the broker lists the readers in the order of a fresh start.
 */
static void fz_reset(struct fz *f)
{
	char why[256];

	fz_start(f);
	if (netif_reset(f->n, why, sizeof(why)) < 0) {
		fprintf(stderr, "fuzz_netif: netif_reset: %s\n", why);
		__builtin_trap();
	}
	for (int i = 0; i < FZ_TOPICS; i++) {
		broker_reader_free(f->r[i]);
		fz_reader_new(f, i);
	}
}

static void fz_close(struct fz *f)
{
	for (int i = 0; i < FZ_TOPICS; i++) {
		netif_reader_gone(f->n, f->r[i]);
		broker_reader_free(f->r[i]);
		broker_writer_free(f->w[i]);
		free(f->rmem[i]);
		broker_topic_put(f->t[i]);
	}
	netif_close(f->n);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	netif_free(f->n);
	FUZZ_CHECK(fake_open_count() == f->open_before);
	FUZZ_CHECK(uv_loop_close(&f->loop) == 0);
	broker_free(f->b);
}

static void fz_take(struct fz *f)
{
	uint8_t s[FZ_SLOT];
	uint32_t len;

	for (int i = 0; i < FZ_TOPICS; i++) {
		while (rring_cons_take(&f->cons[i], s, sizeof(s), &len, NULL, NULL) == 1) {
			FUZZ_CHECK(len == f->size[i]);
			fz_hash(f, &i, sizeof(i));
			fz_hash(f, s, len);
		}
	}
}

static void fz_step(struct fz *f, int64_t ns)
{
	f->now += ns;
	fake_clock_set(f->now);
	netif_tick(f->n);
	netif_flush(f->n);
}

/* Sizes for our own decoder: our topics by id, the builtins, nothing else. */
static int fz_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)ctx;
	(void)domain;
	for (uint32_t i = 0; i < fz_node->n_topics; i++) {
		if (fz_node->topics[i].desc.topic_id == topic) {
			*ret_size = fz_node->topics[i].desc.sample_size;
			return 0;
		}
	}
	return snps_builtin_size(topic, ret_size);
}

/*
 * Frames already decoded, by content: the layer sends the same frames over
 * and over (announcements, heartbeats, resends), and decoding each again
 * was a third of a run. A frame is looked up by a hash of its bytes and
 * compared whole; a slot taken by another frame is overwritten.
 */
#define FZ_SEEN 4096u
#define FZ_SEEN_MAX 256u /* longer frames are decoded every time */
static struct {
	uint32_t len; /* 0: empty */
	uint8_t buf[FZ_SEEN_MAX];
} fz_seen[FZ_SEEN];

static bool fz_seen_before(const struct fake_dgram *d)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t k;

	if (d->len > FZ_SEEN_MAX)
		return false;
	for (uint32_t i = 0; i < d->len; i++)
		h = (h ^ d->buf[i]) * 0x100000001b3ull;
	k = (uint32_t)(h ^ (h >> 32)) % FZ_SEEN;
	if (fz_seen[k].len == d->len && memcmp(fz_seen[k].buf, d->buf, d->len) == 0)
		return true;
	fz_seen[k].len = d->len;
	memcpy(fz_seen[k].buf, d->buf, d->len);
	return false;
}

/* Everything the layer sent decodes. */
static void fz_check_sent(struct fz *f)
{
	struct snps_decoder_options opts;

	snps_decoder_options_init(&opts);
	opts.lookup = fz_lookup;
	for (uint32_t i = 0; i < fake_sent(); i++) {
		const struct fake_dgram *d = fake_sent_at(i);

		/* A frame that decoded once decodes again; len 0 never enters the table. */
		if (d->len == 0 || !fz_seen_before(d))
			FUZZ_CHECK(snps_decode(d->buf, d->len, &opts, NULL, NULL, NULL) == 0);
		fz_hash(f, d->buf, d->len);
		fz_hash(f, &d->addr.ip, sizeof(d->addr.ip));
		fz_hash(f, &d->addr.port, sizeof(d->addr.port));
		fz_hash(f, &d->addr.ifindex, sizeof(d->addr.ifindex));
		fz_hash(f, &d->mcast, sizeof(d->mcast));
	}
}

/* The state an input leaves, into the digest (member by member: no padding). */
static void fz_hash_state(struct fz *f)
{
	const struct peer_table *pt = netif_peers(f->n);
	const struct disc *disc = netif_discovery(f->n);
	uint32_t backlog = netif_backlog(f->n), n_subs = 0, n_parts = 0;

	fz_hash(f, netif_counters(f->n), sizeof(struct netif_counters));
	fz_hash(f, &backlog, sizeof(backlog));
	fz_hash(f, &pt->n, sizeof(pt->n));
	for (uint32_t i = 0; i < pt->n; i++) {
		const struct net_peer *p = &pt->v[i];

		fz_hash(f, &p->addr.ip, sizeof(p->addr.ip));
		fz_hash(f, &p->addr.port, sizeof(p->addr.port));
		fz_hash(f, &p->is_static, sizeof(p->is_static));
		fz_hash(f, &p->group, sizeof(p->group));
		fz_hash(f, &p->tx_mcast, sizeof(p->tx_mcast));
		fz_hash(f, &p->last_seen_ns, sizeof(p->last_seen_ns));
		fz_hash(f, &p->topics_in, sizeof(p->topics_in));
		fz_hash(f, &p->topics_out, sizeof(p->topics_out));
		fz_hash(f, p->rx_seq, sizeof(p->rx_seq));
		fz_hash(f, &p->rx_seq_valid, sizeof(p->rx_seq_valid));
		fz_hash(f, p->rx_gap, sizeof(p->rx_gap));
	}
	if (disc != NULL) {
		fz_hash(f, disc_counters(disc), sizeof(struct disc_counters));
		(void)disc_subs(disc, &n_subs);
		(void)disc_participants(disc, &n_parts);
	}
	fz_hash(f, &n_subs, sizeof(n_subs));
	fz_hash(f, &n_parts, sizeof(n_parts));
}

/* One input on f, from its start state; its digest is left in f->digest. */
static void fz_run(struct fz *f, const uint8_t *data, size_t size)
{
	static uint8_t sample[FZ_SLOT];
	struct broker_reader *blocker;
	uint32_t queued = 0;
	size_t i = 0;

	while (i < size) {
		uint8_t op = data[i++] & 7, a;

#ifdef FZ_RX_ONLY
		if (op != 2 && op != 7)
			op = 0;
#endif

		/* Every operation but receive and take reads an argument byte. */
		if (op != 2 && op != 5 && op != 7 && i >= size)
			break;
		a = op != 2 && op != 5 && op != 7 ? data[i] : 0;

		switch (op) {
		case 0:
		case 1: {
			size_t len;

			if (i + 2 > size)
				goto out;
			len = data[i + 1];
			i += 2;
			if (len > size - i)
				len = size - i;
			if (queued < 1024) {
				fake_inject(fz_addrs[a & 3], fz_ports[(a >> 2) & 3], (a & 0x80) != 0,
					    data + i, (uint32_t)len);
				queued++;
			}
			i += len;
			break;
		}
		case 2:
			netif_receive(f->n);
			netif_flush(f->n);
			queued = 0;
			break;
		case 3:
			i++;
			fz_step(f, (int64_t)(a + 1) * MS);
			break;
		case 4: {
			uint32_t k = a % FZ_TOPICS, n;

			i++;
			n = f->size[k];
			memset(sample, 0, sizeof(sample));
			memcpy(sample, data + i, size - i < n ? size - i : n);
			i += size - i < n ? size - i : n;
			(void)broker_write(f->w[k], sample, n, 0, &blocker);
			broker_flush(f->b);
			netif_flush(f->n);
			break;
		}
		case 5:
			fz_take(f);
			break;
		case 6:
			i++;
			fz_step(f, (int64_t)a * 100 * MS);
			break;
		default:
			netif_receive(f->n);
			queued = 0;
			break;
		}
	}
out:
	netif_receive(f->n);
	netif_flush(f->n);
	fz_take(f);
	fz_check_sent(f);
	fz_hash_state(f);
}

static struct fz fz_shared;
static bool fz_shared_open;

static void fz_shared_close(void)
{
	fz_close(&fz_shared);
	fz_shared_open = false;
	fake_clock_set(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fz_node == NULL)
		LLVMFuzzerInitialize(NULL, NULL);
	if (fz_check < 0) {
		const char *e = getenv("FUZZ_NETIF_RESET_CHECK");

		fz_check = e != NULL && strcmp(e, "1") == 0;
	}
	if (!fz_shared_open) {
		fz_open(&fz_shared);
		fz_shared_open = true;
		atexit(fz_shared_close);
	} else {
		fz_reset(&fz_shared);
	}
	fz_run(&fz_shared, data, size);
	if (fz_check == 1) {
		uint64_t first = fz_shared.digest;
		struct fz fresh;

		/* Again after its own leftovers: a unit that shows a leak reproduces alone. */
		fz_reset(&fz_shared);
		fz_run(&fz_shared, data, size);
		if (fz_shared.digest != first) {
			fprintf(stderr, "fuzz_netif: the input did not do the same twice on a reset layer\n");
			__builtin_trap();
		}
		fz_open(&fresh);
		fz_run(&fresh, data, size);
		fz_close(&fresh);
		if (fresh.digest != fz_shared.digest) {
			fprintf(
			    stderr,
			    "fuzz_netif: a reset layer did not behave as a fresh one (digest %016llx, fresh "
			    "%016llx)\n",
			    (unsigned long long)fz_shared.digest, (unsigned long long)fresh.digest);
			__builtin_trap();
		}
	}
	return 0;
}
