/* SPDX-License-Identifier: MIT */
/*
 * rawcli.h - a client of sddsd written against the wire contract alone
 * (ipc/ctl.h, ipc/segment.h, ipc/layout.h), not libsddsclient: it can do
 * everything a client may do, and everything it must not.
 *
 * OVERVIEW
 * The request-ring producer and the reader-ring consumer here are written
 * from layout.h, independently of ipc/ring.c, so that the daemon is tested
 * against a second reading of the contract. The raw helpers (rawcli_put,
 * rawcli_publish, rawcli_send_raw) write whatever the caller asks: the
 * hostile tests use them to break every rule.
 *
 * A struct rawcli owns its control socket, the eventfd and the segment
 * mapping the daemon handed over; rawcli_close frees all three.
 */
#ifndef SDDS_ITEST_RAWCLI_H
#define SDDS_ITEST_RAWCLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.pb-c.h"
#include "layout.h"
#include "segment.h"

struct rawcli {
	int sock;	    /* control socket, owned */
	int efd;	    /* kick eventfd from the daemon, owned; -1 before Hello */
	struct segment seg; /* the mapped segment, owned; fd -1 before Hello */
	struct sdds_seg_hdr *hdr;
	struct sdds_ring_ctl *req;
	uint8_t *req_data;
	uint32_t req_cap;
	uint32_t max_record;
	uint64_t prod; /* private producer index of the request ring */
	uint32_t rec_seq;
	uint32_t next_id; /* next control request id */
	uint32_t session_id;
	uint32_t max_sample;
	int last_status; /* status of the last reply rawcli_rpc received */
};

struct rawcli_reader {
	uint32_t id;
	struct sdds_rring_ctl *ctl;
	uint8_t *slots;
	uint32_t cap;
	uint32_t slot_size;
	uint64_t cons; /* private */
};

/* Connect to the daemon's socket (no Hello). Returns 0 or -errno. */
int rawcli_connect(const char *path, struct rawcli *rc);
/*
 * Hello; on success map the segment and check it. Returns 0, the daemon's
 * negative status, or -errno (-ECONNRESET: the daemon hung up).
 */
int rawcli_hello(struct rawcli *rc, const char *name);
/* rawcli_connect + rawcli_hello; closes everything on failure. */
int rawcli_open(const char *path, const char *name, struct rawcli *rc);
/* Unmap, close fds. Accepts a zeroed or closed struct. */
void rawcli_close(struct rawcli *rc);

/*
 * Send req (its id is set here) and receive the reply with the same id.
 * *ret: the reply, freed by the caller with sdds__ctl__reply__free_unpacked.
 * Returns 0 when a reply came (whatever its status) or -errno.
 */
int rawcli_rpc(struct rawcli *rc, Sdds__Ctl__Request *req, Sdds__Ctl__Reply **ret);

/*
 * Endpoint helpers; each returns the reply status (0 or -errno from the
 * daemon) or a transport -errno. Out-parameters on success only.
 * rawcli_topic registers the isample layout of `size` bytes (fields = true)
 * or a raw topic without fields.
 */
int rawcli_topic(struct rawcli *rc, uint16_t domain, uint16_t id, uint32_t size, bool fields,
		 uint32_t *ret_handle);
int rawcli_writer(struct rawcli *rc, uint32_t topic, bool reliable, uint32_t max_blocking_ms,
		  uint32_t *ret_id);
int rawcli_reader(struct rawcli *rc, uint32_t topic, bool reliable, uint32_t depth,
		  struct rawcli_reader *ret);
int rawcli_delete(struct rawcli *rc, bool reader, uint32_t id);

/*
 * Legitimate write: wait (up to timeout_ms, kicking the daemon) for room,
 * write one WRITE record, publish, kick. data is copied. Returns 0,
 * -ETIMEDOUT, or -EMSGSIZE (record larger than max_record).
 */
int rawcli_write(struct rawcli *rc, uint32_t writer, const void *data, uint32_t len, int timeout_ms);
/* Legitimate write without publishing (a batch); returns 0 or -EAGAIN when full. */
int rawcli_write_nopub(struct rawcli *rc, uint32_t writer, const void *data, uint32_t len);

/*
 * Raw: copy a record header and payload to ring position pos (modulo cap,
 * byte-wise wrapping, no checks at all).
 */
void rawcli_put(struct rawcli *rc, uint64_t pos, const struct sdds_rec *h, const void *payload, size_t len);
/* Raw: store prod (release) and kick; also sets the private index. */
void rawcli_publish(struct rawcli *rc, uint64_t prod);
/* Kick the daemon's eventfd. */
void rawcli_kick(struct rawcli *rc);
/* The daemon's published cons of the request ring (acquire). */
uint64_t rawcli_cons(const struct rawcli *rc);
/* Wait until the daemon consumed everything published. Returns 0 or -ETIMEDOUT. */
int rawcli_wait_consumed(struct rawcli *rc, int timeout_ms);

/*
 * Wait for the daemon to hang up the control socket, reading and dropping
 * whatever it still sends. Returns true on hang-up within timeout_ms.
 */
bool rawcli_wait_hangup(struct rawcli *rc, int timeout_ms);

/* Send bytes as one packet with n_fds descriptors attached. Returns 0 or -errno. */
int rawcli_send_raw(struct rawcli *rc, const void *buf, size_t len, const int *fds, size_t n_fds);

/* Reader ring consumer: 1 taken, 0 empty, -EOVERFLOW lapped (skipped). */
int rawcli_reader_take(struct rawcli *rc, struct rawcli_reader *rd, void *buf, size_t cap, uint32_t *ret_len);
/* Raw: overwrite the reader ring's published cons. */
void rawcli_reader_set_cons(struct rawcli_reader *rd, uint64_t cons);
/* The daemon's published prod of a reader ring (acquire). */
uint64_t rawcli_reader_prod(const struct rawcli_reader *rd);

#endif /* SDDS_ITEST_RAWCLI_H */
