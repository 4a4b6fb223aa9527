/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the request ring (client -> daemon) and the reader ring
 * (daemon -> client) of the shared segment.
 *
 * OVERVIEW
 * Layouts and slot protocol: ipc/layout.h. Handles and contracts: ipc/ring.h.
 * Invariants this file keeps:
 *  - Each side owns one index, keeps it in its private handle and only ever
 *    stores it to shared memory; it never loads it back.
 *  - Request ring: records are 16-byte aligned and never cross the end of
 *    the ring (a PAD record fills the tail), so the consumer can copy a
 *    record with one memcpy. prod and cons are free-running byte counts.
 *  - The daemon-side code (ring_cons_*, rring_prod_*) treats every byte the
 *    client can write as hostile: it copies a record header into a local
 *    variable, checks the copy, and only then copies the payload, using the
 *    checked length; an index the client published is accepted only within
 *    [last accepted value, the other side's own index]. A request-ring
 *    violation makes the consumer handle fail with -EPROTO for good.
 *  - Reader ring: only the daemon writes slots and it never reads them; it
 *    reads only the client's `cons`, bounded. The client side trusts the
 *    daemon but still never loops forever or writes beyond its buffer.
 *  - Fences: producers publish once per batch (ring_prod_publish, and
 *    rring_prod_publish after the broker routed a batch: a slot is valid
 *    by its seq word before prod covers it); the full fence of the wake-up
 *    check is paid once per batch, never per record.
 * Threads: one thread per handle at a time. No allocation, no logging, no
 * system call except the futex wake in ring_cons_release when a producer
 * sleeps.
 */
#include "ring.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "doorbell.h"

#define REC_HDR ((uint32_t)sizeof(struct sdds_rec))
#define SLOT_HDR ((uint32_t)sizeof(struct sdds_rslot))

/*
 * A compiler barrier: values copied out of shared memory before it are
 * used from the copy afterwards; the compiler may not re-read the source
 * (the client could have changed it between check and use).
 */
#define ring_compiler_barrier() atomic_signal_fence(memory_order_seq_cst)

static inline bool ring_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/*
 * Copy a payload. Samples are mostly a few bytes: up to 16 bytes take two
 * overlapping fixed-size moves instead of a call into libc's memcpy (a
 * third of the daemon's per-sample copy cost). A source in shared memory
 * may be read twice where the moves overlap; payload bytes are opaque, so
 * a client changing them meanwhile only garbles its own sample.
 */
static inline void ring_copy(void *dst, const void *src, uint32_t len)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (len > 16) {
		memcpy(d, s, len);
	} else if (len >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + len - 8, &b, 8);
	} else if (len >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + len - 4, &b, 4);
	} else if (len >= 2) {
		uint16_t a, b;

		memcpy(&a, s, 2);
		memcpy(&b, s + len - 2, 2);
		memcpy(d, &a, 2);
		memcpy(d + len - 2, &b, 2);
	} else if (len == 1) {
		*d = *s;
	}
}

/* Bytes a record with len payload bytes occupies, header and padding included. */
static inline uint64_t ring_rec_bytes(uint64_t len)
{
	return (REC_HDR + len + SDDS_REC_ALIGN - 1) & ~(uint64_t)(SDDS_REC_ALIGN - 1);
}

/* ------------------------------------------------------------------ */
/* request ring                                                        */
/* ------------------------------------------------------------------ */

void ring_format(struct sdds_ring_ctl *ctl, uint32_t cap)
{
	(void)cap; /* the capacity lives in the segment header, not here */
	atomic_init(&ctl->prod, 0);
	atomic_init(&ctl->cons, 0);
	atomic_init(&ctl->data.seq, 0);
	atomic_init(&ctl->data.waiters, 0);
	atomic_init(&ctl->space.seq, 0);
	atomic_init(&ctl->space.waiters, 0);
	/* Format happens before the ring is shared; handing the fd over publishes it. */
	atomic_thread_fence(memory_order_release);
}

static int ring_check_geometry(const struct sdds_ring_ctl *ctl, uint32_t cap, uint32_t max_record)
{
	if (ctl == NULL || !ring_is_pow2(cap) || max_record < REC_HDR || (uint64_t)max_record * 4 > cap)
		return -EINVAL;
	return 0;
}

int ring_prod_init(struct ring_prod *p, struct sdds_ring_ctl *ctl, uint32_t cap, uint32_t max_record)
{
	uint64_t prod, cons;
	int rc = ring_check_geometry(ctl, cap, max_record);

	if (rc < 0)
		return rc;
	/*
	 * The client trusts the daemon's format, but an attach to a ring that
	 * is not in a state a producer can continue from is refused.
	 */
	prod = atomic_load_explicit(&ctl->prod, memory_order_relaxed);
	cons = atomic_load_explicit(&ctl->cons, memory_order_acquire);
	if ((prod & (SDDS_REC_ALIGN - 1)) != 0 || prod - cons > cap)
		return -EINVAL;
	p->ctl = ctl;
	p->data = (uint8_t *)ctl + sizeof(*ctl);
	p->cap = cap;
	p->max_record = max_record;
	p->prod = prod;
	p->cons_cache = cons;
	p->seq = 0;
	return 0;
}

int ring_cons_init(struct ring_cons *c, struct sdds_ring_ctl *ctl, uint32_t cap, uint32_t max_record)
{
	int rc = ring_check_geometry(ctl, cap, max_record);

	if (rc < 0)
		return rc;
	/* The daemon formatted the ring: its indices start at 0, never read back. */
	c->ctl = ctl;
	c->data = (uint8_t *)ctl + sizeof(*ctl);
	c->cap = cap;
	c->max_record = max_record;
	c->cons = 0;
	c->prod_seen = 0;
	c->cons_pub = 0;
	c->err = 0;
	return 0;
}

/* Free bytes by the cached view; a cons the daemon never wrote reads as full. */
static inline uint64_t ring_prod_cached_free(const struct ring_prod *p)
{
	uint64_t used = p->prod - p->cons_cache;

	return used > p->cap ? 0 : p->cap - used;
}

static inline void ring_prod_refresh(struct ring_prod *p)
{
	/*
	 * Acquire: pairs with the consumer's release store of cons, so its
	 * copies out of the bytes we are about to overwrite are complete.
	 */
	p->cons_cache = atomic_load_explicit(&p->ctl->cons, memory_order_acquire);
}

/* Bytes needed at the current position for a record of rec bytes (PAD included). */
static inline uint64_t ring_prod_need(const struct ring_prod *p, uint64_t rec)
{
	uint32_t tail = p->cap - ((uint32_t)p->prod & (p->cap - 1));

	return rec <= tail ? rec : tail + rec;
}

int ring_prod_reserve(struct ring_prod *p, uint32_t len, struct sdds_rec **ret_rec)
{
	uint64_t rec = ring_rec_bytes(len);
	uint64_t need;
	uint32_t pos, tail;
	struct sdds_rec *r;

	if ((uint64_t)REC_HDR + len > p->max_record)
		return -EMSGSIZE;
	need = ring_prod_need(p, rec);
	if (__builtin_expect(ring_prod_cached_free(p) < need, 0)) {
		ring_prod_refresh(p);
		if (ring_prod_cached_free(p) < need)
			return -EAGAIN;
	}
	pos = (uint32_t)p->prod & (p->cap - 1);
	tail = p->cap - pos;
	if (rec > tail) {
		/* Offsets are 16-aligned and cap a multiple of 16: a PAD header always fits. */
		r = (struct sdds_rec *)(p->data + pos);
		r->len = tail - REC_HDR;
		r->type = SDDS_REC_PAD;
		r->flags = 0;
		r->handle = 0;
		r->seq = 0;
		p->prod += tail;
		pos = 0;
	}
	r = (struct sdds_rec *)(p->data + pos);
	r->len = len;
	r->type = 0;
	r->flags = 0;
	r->handle = 0;
	r->seq = p->seq++;
	p->prod += rec;
	*ret_rec = r;
	return 0;
}

bool ring_prod_publish(struct ring_prod *p)
{
	/*
	 * Release: every record byte written since the last publish is
	 * visible before the consumer can see the new prod.
	 */
	atomic_store_explicit(&p->ctl->prod, p->prod, memory_order_release);
	/*
	 * doorbell_has_waiters fences (seq_cst) between this store and the
	 * load of data.waiters: Dekker with ring_cons_wait_data, so either the
	 * daemon's re-check sees the records or we see that it sleeps.
	 */
	if (!doorbell_has_waiters(&p->ctl->data))
		return false;
	/*
	 * Take the announcement: one kick per sleep of the daemon, not one
	 * per publish until the woken daemon withdraws it. Whoever clears
	 * it kicks; the daemon pumps on the kick and announces again before
	 * it sleeps, so no wake-up is lost.
	 */
	return atomic_exchange_explicit(&p->ctl->data.waiters, 0, memory_order_relaxed) != 0;
}

void ring_prod_publish_nowake(struct ring_prod *p)
{
	/* Release: as in ring_prod_publish. */
	atomic_store_explicit(&p->ctl->prod, p->prod, memory_order_release);
}

uint32_t ring_prod_free(struct ring_prod *p)
{
	ring_prod_refresh(p);
	return (uint32_t)ring_prod_cached_free(p);
}

bool ring_prod_has_room(struct ring_prod *p, uint32_t len)
{
	uint64_t rec = ring_rec_bytes(len);
	uint64_t need;

	if ((uint64_t)REC_HDR + len > p->max_record)
		return false;
	need = ring_prod_need(p, rec);
	if (ring_prod_cached_free(p) >= need)
		return true;
	ring_prod_refresh(p);
	return ring_prod_cached_free(p) >= need;
}

static int ring_cons_fail(struct ring_cons *c)
{
	c->err = -EPROTO;
	return -EPROTO;
}

int ring_cons_next(struct ring_cons *c, struct sdds_rec *rec, void *buf, size_t buf_cap)
{
	bool reloaded = false;

	if (__builtin_expect(c->err != 0, 0))
		return c->err;
	for (;;) {
		uint64_t avail = c->prod_seen - c->cons;
		uint32_t pos, room;
		uint64_t bytes;
		struct sdds_rec h;
		bool bad;

		if (avail == 0) {
			uint64_t prod;

			/*
			 * One load of prod per call: a client that keeps
			 * publishing PADs cannot hold the daemon in here.
			 */
			if (reloaded)
				return 0;
			reloaded = true;
			/*
			 * Acquire: pairs with the producer's release in
			 * ring_prod_publish; the record bytes below prod are
			 * visible.
			 */
			prod = atomic_load_explicit(&c->ctl->prod, memory_order_acquire);
			avail = prod - c->cons;
			if (avail == 0)
				return 0;
			/* Backwards wraps to a huge value, so one compare covers both. */
			if (avail > c->cap || (prod & (SDDS_REC_ALIGN - 1)) != 0)
				return ring_cons_fail(c);
			c->prod_seen = prod;
		}

		pos = (uint32_t)c->cons & (c->cap - 1);
		room = c->cap - pos;
		memcpy(&h, c->data + pos, sizeof(h));
		ring_compiler_barrier();

		if (__builtin_expect(h.type == SDDS_REC_WRITE, 1)) {
			bytes = ring_rec_bytes(h.len);
			/* Branch-light: every check in one expression. */
			bad = (h.flags != 0) | ((uint64_t)REC_HDR + h.len > c->max_record) | (bytes > avail) |
			      (bytes > room);
			if (__builtin_expect(bad, 0))
				return ring_cons_fail(c);
			if (h.len > buf_cap)
				return -EMSGSIZE;
			if (h.len != 0)
				ring_copy(buf, c->data + pos + REC_HDR, h.len);
			c->cons += bytes;
			*rec = h;
			return 1;
		}
		if (h.type != SDDS_REC_PAD || h.flags != 0 || h.len != room - REC_HDR || room > avail)
			return ring_cons_fail(c);
		c->cons += room;
	}
}

uint32_t ring_cons_next_run(struct ring_cons *c, uint32_t handle, uint32_t len, uint8_t *buf, uint32_t stride,
			    uint32_t max, uint32_t *seqs)
{
	uint64_t bytes = ring_rec_bytes(len);
	uint32_t n = 0;

	if (c->err != 0 || len > stride || (uint64_t)REC_HDR + len > c->max_record)
		return 0;
	if (c->prod_seen - c->cons < bytes) {
		/* Acquire: as in ring_cons_next. One load per call. */
		uint64_t prod = atomic_load_explicit(&c->ctl->prod, memory_order_acquire);

		/* A bad prod is left for ring_cons_next to report. */
		if (prod - c->cons > c->cap || (prod & (SDDS_REC_ALIGN - 1)) != 0)
			return 0;
		c->prod_seen = prod;
	}
	while (n < max) {
		uint32_t pos = (uint32_t)c->cons & (c->cap - 1);
		struct sdds_rec h;

		if (c->prod_seen - c->cons < bytes || c->cap - pos < bytes)
			break;
		memcpy(&h, c->data + pos, sizeof(h));
		ring_compiler_barrier();
		/* Only the record the run wants; anything else is ring_cons_next's to take or refuse. */
		if ((h.type != SDDS_REC_WRITE) | (h.flags != 0) | (h.handle != handle) | (h.len != len))
			break;
		if (len != 0)
			ring_copy(buf + (size_t)n * stride, c->data + pos + REC_HDR, len);
		seqs[n++] = h.seq;
		c->cons += bytes;
	}
	return n;
}

bool ring_cons_release(struct ring_cons *c)
{
	/* Nothing taken since the last release: a waiter's own check saw this. */
	if (c->cons == c->cons_pub)
		return false;
	c->cons_pub = c->cons;
	/*
	 * Release: our copies out of the released bytes are complete before
	 * the producer can see the room and overwrite them.
	 */
	atomic_store_explicit(&c->ctl->cons, c->cons, memory_order_release);
	/* Full fence inside: the cons store before the space.waiters load. */
	return doorbell_notify(&c->ctl->space);
}

int ring_cons_rewind(struct ring_cons *c, uint64_t pos)
{
	/*
	 * Only bytes not yet released: the producer cannot have reused them,
	 * and the records are copied and checked again when taken again.
	 */
	if (c->err != 0 || pos - c->cons_pub > c->cons - c->cons_pub || (pos & (SDDS_REC_ALIGN - 1)) != 0)
		return -EINVAL;
	c->cons = pos;
	return 0;
}

bool ring_cons_empty(struct ring_cons *c)
{
	/* A broken ring is "not empty", so the caller pumps and meets -EPROTO. */
	if (c->err != 0 || c->cons != c->prod_seen)
		return false;
	/* Acquire: as in ring_cons_next. */
	return atomic_load_explicit(&c->ctl->prod, memory_order_acquire) == c->cons;
}

bool ring_cons_wait_data(struct ring_cons *c)
{
	atomic_store_explicit(&c->ctl->data.waiters, 1, memory_order_relaxed);
	/*
	 * Full fence: the waiters store before the load of prod in
	 * ring_cons_empty (Dekker with the fence in ring_prod_publish).
	 */
	atomic_thread_fence(memory_order_seq_cst);
	return !ring_cons_empty(c);
}

void ring_cons_stop_wait_data(struct ring_cons *c)
{
	/* Relaxed: a late kick seen by the producer costs one spurious eventfd write. */
	atomic_store_explicit(&c->ctl->data.waiters, 0, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* reader ring                                                         */
/* ------------------------------------------------------------------ */

uint32_t rring_slot_size(uint32_t max_payload)
{
	uint64_t s = ((uint64_t)SLOT_HDR + max_payload + 15) & ~(uint64_t)15;

	return s > UINT32_MAX ? 0 : (uint32_t)s;
}

size_t rring_size(uint32_t cap, uint32_t max_payload)
{
	uint32_t slot = rring_slot_size(max_payload);
	size_t bytes;

	if (slot == 0 || __builtin_mul_overflow((size_t)cap, (size_t)slot, &bytes) ||
	    __builtin_add_overflow(bytes, sizeof(struct sdds_rring_ctl) + SDDS_RRING_ALIGN - 1, &bytes))
		return 0;
	return bytes & ~(size_t)(SDDS_RRING_ALIGN - 1);
}

static inline struct sdds_rslot *rring_slot(uint8_t *slots, uint32_t cap, uint32_t slot_size, uint64_t pos)
{
	return (struct sdds_rslot *)(slots + (size_t)(pos & (cap - 1)) * slot_size);
}

void rring_format(struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size)
{
	uint8_t *slots = (uint8_t *)ctl + sizeof(*ctl);

	atomic_init(&ctl->prod, 0);
	atomic_init(&ctl->cons, 0);
	ctl->cap = cap;
	ctl->slot_size = slot_size;
	atomic_init(&ctl->space.seq, 0);
	atomic_init(&ctl->space.waiters, 0);
	for (uint32_t i = 0; i < cap; i++)
		atomic_init(&rring_slot(slots, cap, slot_size, i)->seq, 0);
	/* Format happens before the ring is announced; the announcement publishes it. */
	atomic_thread_fence(memory_order_release);
}

static int rring_check_geometry(const struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size)
{
	if (ctl == NULL || !ring_is_pow2(cap) || slot_size < SLOT_HDR || slot_size % 16 != 0)
		return -EINVAL;
	return 0;
}

int rring_prod_init(struct rring_prod *p, struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size)
{
	int rc = rring_check_geometry(ctl, cap, slot_size);

	if (rc < 0)
		return rc;
	p->ctl = ctl;
	p->slots = (uint8_t *)ctl + sizeof(*ctl);
	p->cap = cap;
	p->slot_size = slot_size;
	p->prod = 0;
	p->cons_seen = 0;
	p->overwritten = 0;
	return 0;
}

int rring_cons_init(struct rring_cons *c, struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size)
{
	int rc = rring_check_geometry(ctl, cap, slot_size);

	if (rc < 0)
		return rc;
	if (ctl->cap != cap || ctl->slot_size != slot_size)
		return -EINVAL;
	c->ctl = ctl;
	c->slots = (uint8_t *)ctl + sizeof(*ctl);
	c->cap = cap;
	c->slot_size = slot_size;
	/* The consumer owns cons; at attach it continues from what it published. */
	c->cons = atomic_load_explicit(&ctl->cons, memory_order_relaxed);
	c->lost = 0;
	return 0;
}

int64_t rring_prod_backlog(struct rring_prod *p)
{
	/*
	 * Acquire: pairs with the client's release store of cons, so its reads
	 * of the slots below cons are done before we reuse them.
	 */
	uint64_t cons = atomic_load_explicit(&p->ctl->cons, memory_order_acquire);

	/*
	 * Valid iff cons_seen <= cons <= prod. Unsigned: a cons that went
	 * backwards wraps to a huge distance, so one compare covers both.
	 */
	if (cons - p->cons_seen > p->prod - p->cons_seen)
		return -EPROTO;
	p->cons_seen = cons;
	return (int64_t)(p->prod - cons);
}

int rring_prod_push(struct rring_prod *p, const void *data, uint32_t len, uint32_t origin, bool reliable)
{
	int rc = rring_prod_write(p, data, len, origin, reliable);

	if (rc == 0)
		rring_prod_publish(p);
	return rc;
}

void rring_prod_publish(struct rring_prod *p)
{
	/* Release: every slot's seq before prod, so prod never runs ahead of a valid slot. */
	atomic_store_explicit(&p->ctl->prod, p->prod, memory_order_release);
}

int rring_prod_write(struct rring_prod *p, const void *data, uint32_t len, uint32_t origin, bool reliable)
{
	struct sdds_rslot *slot;

	if (len > p->slot_size - SLOT_HDR)
		return -EMSGSIZE;
	/* The cached view says full: look at the client's cons (one load). */
	if (__builtin_expect(p->prod - p->cons_seen >= p->cap, 0)) {
		int64_t backlog = rring_prod_backlog(p);

		if (reliable) {
			if (backlog < 0)
				return (int)backlog;
			if ((uint64_t)backlog >= p->cap)
				return -EAGAIN;
		} else if (backlog < 0 || (uint64_t)backlog >= p->cap) {
			/* Drop oldest; a bad cons only hurts its own client here. */
			p->overwritten++;
		}
	}

	slot = rring_slot(p->slots, p->cap, p->slot_size, p->prod);
	atomic_store_explicit(&slot->seq, 0, memory_order_relaxed);
	/*
	 * Release fence: orders seq = 0 before the payload stores below. A
	 * consumer that copied any new byte and then (after its acquire fence)
	 * re-reads seq sees 0 or the new value, never the old one, and voids
	 * its copy.
	 */
	atomic_thread_fence(memory_order_release);
	slot->len = len;
	slot->origin = origin;
	if (len != 0)
		ring_copy((uint8_t *)slot + SLOT_HDR, data, len);
	/* Release: len, origin and payload before the seq that validates them. */
	atomic_store_explicit(&slot->seq, p->prod + 1, memory_order_release);
	/* prod stays private until rring_prod_publish: one store per batch. */
	p->prod++;
	return 0;
}

bool rring_prod_wait_space(struct rring_prod *p)
{
	int64_t backlog;

	atomic_store_explicit(&p->ctl->space.waiters, 1, memory_order_relaxed);
	/*
	 * Full fence: the waiters store before the cons load (Dekker with the
	 * client's cons store, fence, waiters load in rring_cons_take).
	 */
	atomic_thread_fence(memory_order_seq_cst);
	backlog = rring_prod_backlog(p);
	/* A corrupt cons counts as "retry now": the push reports -EPROTO. */
	return backlog < 0 || (uint64_t)backlog < p->cap;
}

void rring_prod_stop_wait_space(struct rring_prod *p)
{
	atomic_store_explicit(&p->ctl->space.waiters, 0, memory_order_relaxed);
}

bool rring_cons_need_kick(struct rring_cons *c)
{
	/* Full fence: our cons store before the space.waiters load (see above). */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&c->ctl->space.waiters, memory_order_relaxed) == 0)
		return false;
	/*
	 * Take the announcement: one kick per wait of the producer, not one
	 * per take until the woken producer withdraws it (a system call per
	 * sample while a reliable reader drains a full ring). The producer
	 * retries on the kick and announces again if it still waits.
	 */
	return atomic_exchange_explicit(&c->ctl->space.waiters, 0, memory_order_relaxed) != 0;
}

int rring_cons_take(struct rring_cons *c, void *buf, size_t buf_cap, uint32_t *ret_len, uint32_t *ret_origin,
		    bool *ret_kick)
{
	const uint32_t payload_max = c->slot_size - SLOT_HDR;

	for (;;) {
		struct sdds_rslot *slot = rring_slot(c->slots, c->cap, c->slot_size, c->cons);
		uint64_t want = c->cons + 1;
		uint64_t s1, s2;
		uint32_t len, origin;
		bool fits;

		/* Acquire: pairs with the producer's release of seq; the payload is visible. */
		s1 = atomic_load_explicit(&slot->seq, memory_order_acquire);
		if (__builtin_expect(s1 != want, 0)) {
			/* Acquire: pairs with the release of prod, which follows the slot's seq. */
			uint64_t prod = atomic_load_explicit(&c->ctl->prod, memory_order_acquire);
			uint64_t next;

			if ((int64_t)(prod - c->cons) <= 0)
				return 0;
			s1 = atomic_load_explicit(&slot->seq, memory_order_acquire);
			if (s1 != want) {
				/* Older than wanted although prod is past it: not ours yet. */
				if (s1 != 0 && s1 < want)
					return 0;
				/* Overwritten or being overwritten: the sample is gone. */
				next = prod - c->cons > c->cap ? prod - c->cap : want;
				c->lost += next - c->cons;
				c->cons = next;
				continue;
			}
		}

		len = slot->len;
		origin = slot->origin;
		ring_compiler_barrier();
		fits = len <= payload_max;
		if (fits && len <= buf_cap && len != 0)
			ring_copy(buf, (uint8_t *)slot + SLOT_HDR, len);
		/*
		 * Acquire fence: our reads of len, origin and the payload happen
		 * before the re-read of seq; if the producer started
		 * overwriting, we see it there.
		 */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&slot->seq, memory_order_relaxed);
		c->cons++;
		if (__builtin_expect(s2 != s1 || !fits, 0)) {
			c->lost++;
			continue;
		}
		/*
		 * Release: our reads of the slot are complete before the daemon
		 * can see the slot free and reuse it (reliable readers).
		 */
		atomic_store_explicit(&c->ctl->cons, c->cons, memory_order_release);
		if (ret_kick != NULL)
			*ret_kick = rring_cons_need_kick(c);
		if (len > buf_cap)
			return -EMSGSIZE;
		*ret_len = len;
		if (ret_origin != NULL)
			*ret_origin = origin;
		return 1;
	}
}

bool rring_cons_empty(struct rring_cons *c)
{
	/* Acquire: a consumer that sees prod moved then sees the slot valid. */
	return atomic_load_explicit(&c->ctl->prod, memory_order_acquire) == c->cons;
}

uint64_t rring_cons_pending(struct rring_cons *c)
{
	uint64_t prod = atomic_load_explicit(&c->ctl->prod, memory_order_acquire);

	/* Taken past a prod not yet published (see layout.h): nothing pending. */
	return (int64_t)(prod - c->cons) > 0 ? prod - c->cons : 0;
}
