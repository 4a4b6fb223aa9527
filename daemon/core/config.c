/* SPDX-License-Identifier: MIT */
/*
 * config.c - defaults, the `key = value` parser, overrides, validation.
 *
 * OVERVIEW
 * One table (config_keys) names every key with its type, its range and
 * where it lives in struct sddsd_config; the file parser, the command-line
 * overrides and config_print all go through it, so a key cannot exist in one
 * and be missing in another. The parser is fed by whoever can write the
 * file: it bounds the text (CONFIG_FILE_MAX), never reads past len, accepts
 * NUL nowhere, and quotes at most CONFIG_QUOTE_MAX sanitised bytes of the
 * input in a message.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "layout.h"
#include "log.h"

#define CONFIG_QUOTE_MAX 48

enum config_type {
	CT_PATH,   /* char[CONFIG_SOCKET_MAX] */
	CT_BOOL,   /* bool */
	CT_I64,	   /* int64_t, plain number */
	CT_U32,	   /* uint32_t, plain number */
	CT_SIZE32, /* uint32_t, bytes with K/M/G */
	CT_SIZE64, /* uint64_t, bytes with K/M/G */
	CT_LEVEL,  /* int, log level number or name */
	CT_UIDS,   /* uint32_t attest_uids[], repeatable: each line adds one */
	CT_AUTO,   /* int: -1 auto, 0 off, 1 on (a boolean or "auto") */
	CT_NAME,   /* char[CONFIG_IFNAME_MAX]: letters, digits, '-', '_', '.' */
	CT_IFACES, /* interfaces[], repeatable: each line adds one name */
	CT_IP6S,   /* struct config_ip6s, repeatable: each line adds one address */
	CT_MAC,	   /* struct config_mac: six hex bytes with ':' */

	/* backends[], repeatable: each line starts a backend (backend: the first's name) */
	CT_BACKENDS,
};

#define CF_POW2 0x1u /* value must be a power of two */
#define CF_PAGE 0x2u /* value must be a multiple of 4096 */
#define CF_AUTO 0x4u /* "auto" is a value too (CONFIG_AUTO) */

struct config_key {
	const char *name;
	enum config_type type;
	size_t off;
	uint64_t min, max;
	unsigned flags;
};

#define KEY(n, t, mn, mx, fl)                                                                                \
	{                                                                                                    \
#n, t, offsetof(struct sddsd_config, n), mn, mx, fl                                          \
	}

static const struct config_key config_keys[] = {
    KEY(socket, CT_PATH, 0, 0, 0),
    KEY(poll, CT_BOOL, 0, 1, 0),
    KEY(spin_ns, CT_I64, 0, 10ull * 1000 * 1000 * 1000, 0),
    /* Bounded: control requests, timers and the network wait at most this long. */
    KEY(poll_turn_ns, CT_I64, 0, 100ull * 1000 * 1000, 0),
    KEY(poll_yield_ns, CT_I64, 0, 10ull * 1000 * 1000 * 1000, 0),
    KEY(max_clients, CT_U32, 1, 65536, 0),
    /* Admission per uid (daemon/core/admission.h); cross-checked in config_check. */
    KEY(max_clients_per_uid, CT_U32, 1, 65536, CF_AUTO),
    KEY(reserved_clients, CT_U32, 0, 65535, CF_AUTO),
    KEY(max_handshakes, CT_U32, 2, 65536, 0),
    KEY(max_handshakes_per_uid, CT_U32, 1, 65535, 0),
    KEY(max_readers_per_client, CT_U32, 0, 4096, 0),
    KEY(max_writers_per_client, CT_U32, 0, 4096, 0),
    KEY(max_topics_per_client, CT_U32, 0, 4096, 0),
    KEY(request_ring_bytes, CT_SIZE32, 4096, 1ull << 30, CF_POW2),
    KEY(arena_bytes, CT_SIZE64, 0, 4ull << 30, CF_PAGE),
    KEY(max_sample, CT_SIZE32, 1, 1u << 20, 0),
    KEY(max_requests_per_turn, CT_U32, 1, 1u << 20, 0),
    KEY(log_level, CT_LEVEL, 0, 7, 0),
    KEY(policy, CT_PATH, 0, 0, 0),
    /* Repeatable: each line adds one uid to attest_uids. */
    {"attest_uid", CT_UIDS, offsetof(struct sddsd_config, attest_uids), 0, UINT32_MAX - 1, 0},
    /* The network side (daemon/net). */
    KEY(node_config, CT_PATH, 0, 0, 0),
    KEY(net, CT_AUTO, 0, 0, 0),
    {"backend", CT_BACKENDS, offsetof(struct sddsd_config, backend), 0, 0, 0},
    {"interface", CT_IFACES, offsetof(struct sddsd_config, interfaces), 0, 0, 0},
    KEY(max_frame, CT_U32, 16, 65507, 0),
    KEY(max_peers, CT_U32, 1, 4096, 0),
    KEY(peer_endian_swap, CT_IP6S, 0, 0, 0),
    KEY(peer_pack, CT_IP6S, 0, 0, 0),
    KEY(discovery, CT_BOOL, 0, 1, 0),
    KEY(node_id, CT_U32, 0, 65535, 0),
    KEY(discovery_participant_ms, CT_U32, 0, 3600000, 0),
    KEY(discovery_publication_ms, CT_U32, 0, 3600000, 0),
    KEY(discovery_expire_ms, CT_U32, 0, 86400000, 0),
    KEY(discovery_unicast, CT_BOOL, 0, 1, 0),
    KEY(discovery_max_subscriptions, CT_U32, 1, 4096, 0),
    KEY(announce_pack, CT_BOOL, 0, 1, 0),
    KEY(gso, CT_BOOL, 0, 1, 0),
    KEY(forward, CT_BOOL, 0, 1, 0),
    /* The own-stack backends (tap): daemon/net/stackbe.c. */
    KEY(mac, CT_MAC, 0, 0, 0),
    KEY(address, CT_IP6S, 0, 0, 0),
    KEY(dad_transmits, CT_U32, 0, 10, 0),
    KEY(pcap, CT_PATH, 0, 0, 0),
};
#define CONFIG_N_KEYS (sizeof(config_keys) / sizeof(config_keys[0]))
_Static_assert(CONFIG_N_KEYS <= 64, "sddsd_config.given has a bit per key");

void config_init(struct sddsd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->socket[0] = '\0';
	cfg->poll = false;
	cfg->spin_ns = 20000;
	cfg->poll_turn_ns = 100000;
	cfg->poll_yield_ns = 1000000;
	cfg->max_clients = 256;
	cfg->max_clients_per_uid = CONFIG_AUTO;
	cfg->reserved_clients = CONFIG_AUTO;
	cfg->max_handshakes = 64;
	cfg->max_handshakes_per_uid = 8;
	cfg->max_readers_per_client = 64;
	cfg->max_writers_per_client = 64;
	cfg->max_topics_per_client = 64;
	cfg->request_ring_bytes = 256u * 1024;
	cfg->arena_bytes = 4ull * 1024 * 1024;
	cfg->max_sample = 4096;
	cfg->max_requests_per_turn = 1024;
	cfg->log_level = LOG_PRIO_INFO;
	cfg->net = -1;
	snprintf(cfg->backend, sizeof(cfg->backend), "socket");
	snprintf(cfg->backends[0], sizeof(cfg->backends[0]), "socket");
	cfg->n_backends = 1;
	cfg->max_frame = 128;
	cfg->max_peers = 64;
	cfg->discovery_participant_ms = 1000;
	cfg->discovery_publication_ms = 5000;
	cfg->discovery_expire_ms = 5000;
	cfg->discovery_max_subscriptions = 64;
	cfg->announce_pack = true;
	cfg->gso = true;
	cfg->dad_transmits = 1;
}

void config_admission_limits(const struct sddsd_config *cfg, struct admission_limits *ret)
{
	ret->max_sessions = cfg->max_clients;
	ret->max_sessions_per_uid = cfg->max_clients_per_uid != CONFIG_AUTO ? cfg->max_clients_per_uid
				    : cfg->max_clients >= 4		    ? cfg->max_clients / 4
									    : 1;
	ret->reserved_sessions =
	    cfg->reserved_clients != CONFIG_AUTO ? cfg->reserved_clients : cfg->max_clients / 8;
	ret->max_pending = cfg->max_handshakes;
	ret->max_pending_per_uid = cfg->max_handshakes_per_uid;
}

uint32_t config_max_record(const struct sddsd_config *cfg)
{
	uint64_t r = (uint64_t)sizeof(struct sdds_rec) + cfg->max_sample;

	return (uint32_t)((r + SDDS_REC_ALIGN - 1) & ~(uint64_t)(SDDS_REC_ALIGN - 1));
}

static void config_errorf(struct config_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void config_errorf(struct config_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/*
 * Copy at most CONFIG_QUOTE_MAX bytes of s[0..len) into out (which has room
 * for CONFIG_QUOTE_MAX + 4), replacing anything not printable ASCII, so a
 * message never carries terminal escapes or overlong text from the file.
 */
static const char *config_quote(const char *s, size_t len, char *out)
{
	size_t n = len < CONFIG_QUOTE_MAX ? len : CONFIG_QUOTE_MAX;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (len > n) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}

static const struct config_key *config_key_find(const char *key, size_t len)
{
	for (size_t i = 0; i < CONFIG_N_KEYS; i++) {
		if (strlen(config_keys[i].name) == len && memcmp(config_keys[i].name, key, len) == 0)
			return &config_keys[i];
	}
	return NULL;
}

static bool config_word_is(const char *v, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(v, word, len) == 0;
}

/*
 * Parse a decimal number with an optional K/M/G suffix (when sized) into
 * *ret. Returns 0, -EINVAL (syntax) or -ERANGE (does not fit 64 bits).
 */
static int config_number(const char *v, size_t len, bool sized, uint64_t *ret)
{
	uint64_t x = 0;
	unsigned shift = 0;
	size_t i = 0;

	if (len == 0)
		return -EINVAL;
	if (sized) {
		switch (v[len - 1]) {
		case 'k':
		case 'K':
			shift = 10;
			len--;
			break;
		case 'm':
		case 'M':
			shift = 20;
			len--;
			break;
		case 'g':
		case 'G':
			shift = 30;
			len--;
			break;
		default:
			break;
		}
		if (len == 0)
			return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		unsigned d;

		if (v[i] < '0' || v[i] > '9')
			return -EINVAL;
		d = (unsigned)(v[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	if (shift != 0 && x > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret = x << shift;
	return 0;
}

/*
 * Apply one key = value (value[0..vlen), not NUL-terminated) to cfg. The
 * message goes to err prefixed by `where` ("FILE:LINE" or an option name).
 */
static int config_apply(struct sddsd_config *cfg, const char *where, const struct config_key *k,
			const char *value, size_t vlen, struct config_error *err)
{
	char q[CONFIG_QUOTE_MAX + 4];
	void *field = (char *)cfg + k->off;
	uint64_t x = 0;
	int rc;

	if (memchr(value, '\0', vlen) != NULL) {
		config_errorf(err, "%s: %s: NUL byte in value", where, k->name);
		return -EINVAL;
	}
	if (vlen == 0) {
		config_errorf(err, "%s: %s: empty value", where, k->name);
		return -EINVAL;
	}
	switch (k->type) {
	case CT_PATH:
		for (size_t i = 0; i < vlen; i++) {
			/* A path with a newline or escape would break every log line and listing. */
			if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) {
				config_errorf(err, "%s: %s: control character in value", where, k->name);
				return -EINVAL;
			}
			/* It could not be written back: a file would read it as a comment. */
			if (value[i] == '#' && (i == 0 || value[i - 1] == ' ')) {
				config_errorf(err,
					      "%s: %s: '#' at the start or after a blank reads as a comment",
					      where, k->name);
				return -EINVAL;
			}
		}
		if (vlen >= CONFIG_SOCKET_MAX) {
			config_errorf(err, "%s: %s: path is %zu bytes, at most %d fit in a socket address",
				      where, k->name, vlen, CONFIG_SOCKET_MAX - 1);
			return -EINVAL;
		}
		memcpy(field, value, vlen);
		((char *)field)[vlen] = '\0';
		return 0;
	case CT_BOOL:
		if (config_word_is(value, vlen, "true") || config_word_is(value, vlen, "yes") ||
		    config_word_is(value, vlen, "on") || config_word_is(value, vlen, "1")) {
			*(bool *)field = true;
			return 0;
		}
		if (config_word_is(value, vlen, "false") || config_word_is(value, vlen, "no") ||
		    config_word_is(value, vlen, "off") || config_word_is(value, vlen, "0")) {
			*(bool *)field = false;
			return 0;
		}
		config_errorf(err, "%s: %s: '%s' is not a boolean (true/false, yes/no, on/off, 1/0)", where,
			      k->name, config_quote(value, vlen, q));
		return -EINVAL;
	case CT_LEVEL: {
		char buf[16];
		int level;

		if (vlen < sizeof(buf)) {
			memcpy(buf, value, vlen);
			buf[vlen] = '\0';
			if (log_level_parse(buf, &level) == 0) {
				*(int *)field = level;
				return 0;
			}
		}
		config_errorf(err,
			      "%s: %s: '%s' is not a log level (0..7 or err, warning, notice, info, debug)",
			      where, k->name, config_quote(value, vlen, q));
		return -EINVAL;
	}
	case CT_AUTO:
		if (config_word_is(value, vlen, "auto")) {
			*(int *)field = -1;
			return 0;
		}
		if (config_word_is(value, vlen, "true") || config_word_is(value, vlen, "yes") ||
		    config_word_is(value, vlen, "on") || config_word_is(value, vlen, "1")) {
			*(int *)field = 1;
			return 0;
		}
		if (config_word_is(value, vlen, "false") || config_word_is(value, vlen, "no") ||
		    config_word_is(value, vlen, "off") || config_word_is(value, vlen, "0")) {
			*(int *)field = 0;
			return 0;
		}
		config_errorf(err, "%s: %s: '%s' is not on, off or auto", where, k->name,
			      config_quote(value, vlen, q));
		return -EINVAL;
	case CT_NAME:
	case CT_BACKENDS:
	case CT_IFACES: {
		char *dst = field;

		for (size_t i = 0; i < vlen; i++) {
			char ch = value[i];

			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ||
			      (ch == '@' && k->type == CT_IFACES))) {
				config_errorf(err,
					      "%s: %s: '%s' is not a name (letters, digits, '-', '_', '.')",
					      where, k->name, config_quote(value, vlen, q));
				return -EINVAL;
			}
		}
		if (vlen >= CONFIG_IFNAME_MAX) {
			config_errorf(err, "%s: %s: '%s' is longer than %d characters", where, k->name,
				      config_quote(value, vlen, q), CONFIG_IFNAME_MAX - 1);
			return -EINVAL;
		}
		if (k->type == CT_IFACES) {
			uint8_t block = (uint8_t)(cfg->n_backends > 0 ? cfg->n_backends - 1 : 0);

			for (uint32_t i = 0; i < cfg->n_interfaces; i++) {
				if (strlen(cfg->interfaces[i]) != vlen ||
				    memcmp(cfg->interfaces[i], value, vlen) != 0)
					continue;
				/* Named again in its own block: nothing new. In another: one link, two
				 * owners. */
				if (cfg->interface_backend[i] == block)
					return 0;
				config_errorf(err, "%s: %s: '%s' already belongs to backend %u", where,
					      k->name, config_quote(value, vlen, q),
					      (unsigned)cfg->interface_backend[i] + 1);
				return -EINVAL;
			}
			if (cfg->n_interfaces >= CONFIG_NET_IFACES_MAX) {
				config_errorf(err, "%s: %s: more than %d interfaces", where, k->name,
					      CONFIG_NET_IFACES_MAX);
				return -EINVAL;
			}
			cfg->interface_backend[cfg->n_interfaces] = block;
			dst = cfg->interfaces[cfg->n_interfaces++];
		}
		if (k->type == CT_BACKENDS) {
			/* The first backend line names the default block; each later one adds a block. */
			uint32_t b = (cfg->given & (1ull << (k - config_keys))) != 0 ? cfg->n_backends : 0;

			if (b >= CONFIG_NET_BACKENDS_MAX) {
				config_errorf(err, "%s: %s: more than %d backends", where, k->name,
					      CONFIG_NET_BACKENDS_MAX);
				return -EINVAL;
			}
			memcpy(cfg->backends[b], value, vlen);
			cfg->backends[b][vlen] = '\0';
			cfg->n_backends = b + 1;
			if (b > 0)
				return 0;
		}
		memcpy(dst, value, vlen);
		dst[vlen] = '\0';
		return 0;
	}
	case CT_IP6S: {
		struct config_ip6s *l = field;
		char buf[INET6_ADDRSTRLEN];
		struct in6_addr a;

		if (vlen >= sizeof(buf)) {
			config_errorf(err, "%s: %s: '%s' is not an IPv6 address", where, k->name,
				      config_quote(value, vlen, q));
			return -EINVAL;
		}
		memcpy(buf, value, vlen);
		buf[vlen] = '\0';
		if (inet_pton(AF_INET6, buf, &a) != 1) {
			config_errorf(err, "%s: %s: '%s' is not an IPv6 address", where, k->name,
				      config_quote(value, vlen, q));
			return -EINVAL;
		}
		for (uint32_t i = 0; i < l->n; i++) {
			if (memcmp(l->addr[i], &a, 16) == 0)
				return 0;
		}
		if (l->n >= CONFIG_NET_SWAP_MAX) {
			config_errorf(err, "%s: %s: more than %d addresses", where, k->name,
				      CONFIG_NET_SWAP_MAX);
			return -EINVAL;
		}
		memcpy(l->addr[l->n++], &a, 16);
		return 0;
	}
	case CT_MAC: {
		struct config_mac *m = field;
		unsigned v[6];
		char buf[18], tail;
		int got = 0;

		if (vlen == 17) {
			memcpy(buf, value, 17);
			buf[17] = '\0';
			got = sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4],
				     &v[5], &tail);
		}
		if (got != 6) {
			config_errorf(err,
				      "%s: %s: '%s' is not a MAC address (six hex bytes: 02:00:5e:10:00:01)",
				      where, k->name, config_quote(value, vlen, q));
			return -EINVAL;
		}
		if (v[0] & 1) {
			config_errorf(err, "%s: %s: '%s' is a multicast address", where, k->name,
				      config_quote(value, vlen, q));
			return -EINVAL;
		}
		for (int i = 0; i < 6; i++)
			m->b[i] = (uint8_t)v[i];
		m->set = true;
		return 0;
	}
	case CT_UIDS:
		rc = config_number(value, vlen, false, &x);
		if (rc < 0 || x > k->max) {
			config_errorf(err, "%s: %s: '%s' is not a numeric uid 0..%" PRIu64, where, k->name,
				      config_quote(value, vlen, q), k->max);
			return -EINVAL;
		}
		for (uint32_t i = 0; i < cfg->n_attest_uids; i++) {
			if (cfg->attest_uids[i] == (uint32_t)x)
				return 0;
		}
		if (cfg->n_attest_uids >= CONFIG_ATTEST_UIDS_MAX) {
			config_errorf(err, "%s: %s: more than %d uids", where, k->name,
				      CONFIG_ATTEST_UIDS_MAX);
			return -EINVAL;
		}
		cfg->attest_uids[cfg->n_attest_uids++] = (uint32_t)x;
		return 0;
	case CT_I64:
	case CT_U32:
	case CT_SIZE32:
	case CT_SIZE64:
		if ((k->flags & CF_AUTO) && config_word_is(value, vlen, "auto")) {
			*(uint32_t *)field = CONFIG_AUTO;
			return 0;
		}
		rc = config_number(value, vlen, k->type == CT_SIZE32 || k->type == CT_SIZE64, &x);
		if (rc == -EINVAL) {
			config_errorf(err, "%s: %s: '%s' is not a %s", where, k->name,
				      config_quote(value, vlen, q),
				      (k->type == CT_SIZE32 || k->type == CT_SIZE64)
					  ? "size (a number with an optional K, M or G)"
				      : (k->flags & CF_AUTO) ? "non-negative decimal number or 'auto'"
							     : "non-negative decimal number");
			return -EINVAL;
		}
		if (rc < 0 || x < k->min || x > k->max) {
			config_errorf(err, "%s: %s: '%s' is out of range %" PRIu64 "..%" PRIu64, where,
				      k->name, config_quote(value, vlen, q), k->min, k->max);
			return -EINVAL;
		}
		if ((k->flags & CF_POW2) && (x & (x - 1)) != 0) {
			config_errorf(err, "%s: %s: %" PRIu64 " is not a power of two", where, k->name, x);
			return -EINVAL;
		}
		if ((k->flags & CF_PAGE) && (x % 4096) != 0) {
			config_errorf(err, "%s: %s: %" PRIu64 " is not a multiple of 4096", where, k->name,
				      x);
			return -EINVAL;
		}
		if (k->type == CT_I64)
			*(int64_t *)field = (int64_t)x;
		else if (k->type == CT_SIZE64)
			*(uint64_t *)field = x;
		else
			*(uint32_t *)field = (uint32_t)x;
		return 0;
	}
	config_errorf(err, "%s: %s: internal error: unknown key type", where, k->name);
	return -EINVAL;
}

/*
 * Where a check between keys points: "ORIGIN:LINE" of the last of the
 * keys involved that this file set (lines may be NULL: none known), else
 * ORIGIN alone.
 */
static const char *config_where(char *buf, size_t cap, const char *origin, const unsigned *lines,
				const char *const *keys, size_t n_keys)
{
	unsigned line = 0;

	for (size_t i = 0; lines != NULL && i < n_keys; i++) {
		const struct config_key *k = config_key_find(keys[i], strlen(keys[i]));

		if (k != NULL && lines[k - config_keys] > line)
			line = lines[k - config_keys];
	}
	if (line == 0)
		snprintf(buf, cap, "%s", origin);
	else
		snprintf(buf, cap, "%s:%u", origin, line);
	return buf;
}

/*
 * The admission caps must leave room: one ordinary uid at its session cap
 * leaves at least one session for another ordinary uid besides the
 * reserve, and one uid at its pending cap leaves room in the pending table.
 */
static int config_check_admission(const struct sddsd_config *cfg, const char *origin, const unsigned *lines,
				  struct config_error *err)
{
	static const char *const sess_keys[] = {"max_clients", "max_clients_per_uid", "reserved_clients"};
	static const char *const hs_keys[] = {"max_handshakes", "max_handshakes_per_uid"};
	struct admission_limits lim;
	char where[CONFIG_ERROR_MAX / 2];

	config_admission_limits(cfg, &lim);
	if (lim.reserved_sessions >= lim.max_sessions && lim.max_sessions > 1) {
		config_errorf(err, "%s: reserved_clients (%u) must be below max_clients (%u)",
			      config_where(where, sizeof(where), origin, lines, sess_keys, 3),
			      lim.reserved_sessions, lim.max_sessions);
		return -EINVAL;
	}
	if (lim.max_sessions > 1 &&
	    (uint64_t)lim.max_sessions_per_uid + lim.reserved_sessions >= lim.max_sessions) {
		config_errorf(
		    err,
		    "%s: max_clients_per_uid (%u) + reserved_clients (%u) must be below max_clients (%u), "
		    "so that one uid's sessions leave room for the others",
		    config_where(where, sizeof(where), origin, lines, sess_keys, 3), lim.max_sessions_per_uid,
		    lim.reserved_sessions, lim.max_sessions);
		return -EINVAL;
	}
	if (lim.max_pending_per_uid >= lim.max_pending) {
		config_errorf(
		    err,
		    "%s: max_handshakes_per_uid (%u) must be below max_handshakes (%u), so that one "
		    "uid's connections leave room for the others",
		    config_where(where, sizeof(where), origin, lines, hs_keys, 2), lim.max_pending_per_uid,
		    lim.max_pending);
		return -EINVAL;
	}
	return 0;
}

static int config_check(const struct sddsd_config *cfg, const char *origin, const unsigned *lines,
			struct config_error *err)
{
	uint32_t rec = config_max_record(cfg);

	if ((uint64_t)cfg->request_ring_bytes < 4ull * rec) {
		config_errorf(err,
			      "%s: request_ring_bytes (%u) must be at least 4 records of max_sample %u "
			      "(4 * %u = %u bytes)",
			      origin, cfg->request_ring_bytes, cfg->max_sample, rec, 4 * rec);
		return -EINVAL;
	}
	if (cfg->net == 1 && cfg->node_config[0] == '\0') {
		config_errorf(err, "%s: net = on needs node_config (the sdds.xml with the network topics)",
			      origin);
		return -EINVAL;
	}
	return config_check_admission(cfg, origin, lines, err);
}

int config_validate(const struct sddsd_config *cfg, const char *origin, struct config_error *err)
{
	return config_check(cfg, origin, NULL, err);
}

static bool config_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

int config_parse_text(struct sddsd_config *cfg, const char *name, const char *text, size_t len,
		      struct config_error *err)
{
	struct sddsd_config tmp = *cfg;
	unsigned seen_line[CONFIG_N_KEYS] = {0};
	char where[CONFIG_ERROR_MAX / 2];
	char q[CONFIG_QUOTE_MAX + 4];
	size_t pos = 0;
	unsigned line = 0;
	int rc;

	if (name == NULL)
		name = "<config>";
	if (len > CONFIG_FILE_MAX) {
		config_errorf(err, "%s: %zu bytes, larger than the %d bytes a config may have", name, len,
			      CONFIG_FILE_MAX);
		return -EFBIG;
	}
	while (pos < len) {
		const char *ln = text + pos;
		const char *nl = memchr(ln, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - ln) : len - pos;
		size_t b = 0, e = n, keyb, keye, valb, vale;
		const char *eq;
		const struct config_key *k;

		pos += n + (nl != NULL ? 1 : 0);
		line++;
		snprintf(where, sizeof(where), "%s:%u", name, line);
		if (memchr(ln, '\0', n) != NULL) {
			config_errorf(err, "%s: NUL byte in line", where);
			return -EINVAL;
		}
		/* Drop a comment: '#' at the start or after blank space. */
		for (size_t i = 0; i < n; i++) {
			if (ln[i] == '#' && (i == 0 || config_blank(ln[i - 1]))) {
				e = i;
				break;
			}
		}
		while (b < e && config_blank(ln[b]))
			b++;
		while (e > b && config_blank(ln[e - 1]))
			e--;
		if (b == e)
			continue;
		eq = memchr(ln + b, '=', e - b);
		if (eq == NULL) {
			config_errorf(err, "%s: expected 'key = value', got '%s'", where,
				      config_quote(ln + b, e - b, q));
			return -EINVAL;
		}
		keyb = b;
		keye = (size_t)(eq - ln);
		while (keye > keyb && config_blank(ln[keye - 1]))
			keye--;
		valb = (size_t)(eq - ln) + 1;
		vale = e;
		while (valb < vale && config_blank(ln[valb]))
			valb++;
		if (keye == keyb) {
			config_errorf(err, "%s: missing key before '='", where);
			return -EINVAL;
		}
		k = config_key_find(ln + keyb, keye - keyb);
		if (k == NULL) {
			config_errorf(err, "%s: unknown key '%s'", where,
				      config_quote(ln + keyb, keye - keyb, q));
			return -EINVAL;
		}
		if (seen_line[k - config_keys] != 0 && k->type != CT_UIDS && k->type != CT_IFACES &&
		    k->type != CT_IP6S && k->type != CT_BACKENDS) {
			config_errorf(err, "%s: duplicate key '%s' (first set on line %u)", where, k->name,
				      seen_line[k - config_keys]);
			return -EINVAL;
		}
		seen_line[k - config_keys] = line;
		rc = config_apply(&tmp, where, k, ln + valb, vale - valb, err);
		if (rc < 0)
			return rc;
		tmp.given |= 1ull << (k - config_keys);
	}
	rc = config_check(&tmp, name, seen_line, err);
	if (rc < 0)
		return rc;
	*cfg = tmp;
	return 0;
}

int config_parse_file(struct sddsd_config *cfg, const char *path, struct config_error *err)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		config_errorf(err, "%s: cannot open: %s", path, strerror(-rc));
		return rc;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *bigger;

			if (cap > CONFIG_FILE_MAX) {
				config_errorf(err, "%s: larger than the %d bytes a config may have", path,
					      CONFIG_FILE_MAX);
				rc = -EFBIG;
				goto fail_free;
			}
			cap = cap == 0 ? 4096 : cap * 2;
			bigger = realloc(text, cap);
			if (bigger == NULL) {
				rc = -ENOMEM;
				config_errorf(err, "%s: out of memory", path);
				goto fail_free;
			}
			text = bigger;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			config_errorf(err, "%s: cannot read: %s", path, strerror(-rc));
			goto fail_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	rc = config_parse_text(cfg, path, text, len, err);
	free(text);
	return rc;

fail_free:
	free(text);
	close(fd);
	return rc;
}

int config_set(struct sddsd_config *cfg, const char *origin, const char *key, const char *value,
	       struct config_error *err)
{
	struct sddsd_config tmp = *cfg;
	const struct config_key *k = config_key_find(key, strlen(key));
	int rc;

	if (k == NULL) {
		char q[CONFIG_QUOTE_MAX + 4];

		config_errorf(err, "%s: unknown key '%s'", origin, config_quote(key, strlen(key), q));
		return -ENOENT;
	}
	rc = config_apply(&tmp, origin, k, value, strlen(value), err);
	if (rc < 0)
		return rc;
	tmp.given |= 1ull << (k - config_keys);
	*cfg = tmp;
	return 0;
}

bool config_given(const struct sddsd_config *cfg, const char *key)
{
	const struct config_key *k = config_key_find(key, strlen(key));

	return k != NULL && (cfg->given & (1ull << (k - config_keys))) != 0;
}

void config_print(const struct sddsd_config *cfg, FILE *f)
{
	for (size_t i = 0; i < CONFIG_N_KEYS; i++) {
		const struct config_key *k = &config_keys[i];
		const void *field = (const char *)cfg + k->off;

		if (k->type == CT_PATH && ((const char *)field)[0] == '\0') {
			/* Empty means the built-in default: print a comment, so the output parses. */
			fprintf(f, "# %s = (built-in default)\n", k->name);
			continue;
		}
		if (k->type == CT_MAC && !((const struct config_mac *)field)->set) {
			fprintf(f, "# %s = (random, locally administered)\n", k->name);
			continue;
		}
		if (k->type == CT_IFACES) {
			/* With several backends, each block printed with its backend line. */
			if (cfg->n_interfaces == 0)
				fprintf(f, "# %s = (none: the node config's iface)\n", k->name);
			for (uint32_t b = 0; b < (cfg->n_backends > 1 ? cfg->n_backends : 1); b++) {
				if (cfg->n_backends > 1)
					fprintf(f, "backend = %s\n", cfg->backends[b]);
				for (uint32_t u = 0; u < cfg->n_interfaces; u++) {
					if (cfg->n_backends <= 1 || cfg->interface_backend[u] == b)
						fprintf(f, "%s = %s\n", k->name, cfg->interfaces[u]);
				}
			}
			continue;
		}
		if (k->type == CT_BACKENDS && cfg->n_backends > 1)
			continue; /* printed with the interfaces */
		if (k->type == CT_IP6S) {
			char a[INET6_ADDRSTRLEN];

			const struct config_ip6s *l = (const void *)((const char *)cfg + k->off);

			if (l->n == 0)
				fprintf(f, "# %s = (none)\n", k->name);
			for (uint32_t u = 0; u < l->n; u++)
				fprintf(f, "%s = %s\n", k->name,
					inet_ntop(AF_INET6, l->addr[u], a, sizeof(a)));
			continue;
		}
		if (k->type == CT_UIDS) {
			if (cfg->n_attest_uids == 0)
				fprintf(f, "# %s = (none)\n", k->name);
			for (uint32_t u = 0; u < cfg->n_attest_uids; u++)
				fprintf(f, "%s = %" PRIu32 "\n", k->name, cfg->attest_uids[u]);
			continue;
		}
		if ((k->flags & CF_AUTO) && *(const uint32_t *)field == CONFIG_AUTO) {
			struct admission_limits lim;

			/* The comment shows what auto means here; the line still parses back to auto. */
			config_admission_limits(cfg, &lim);
			fprintf(f, "%s = auto # %u with max_clients = %u\n", k->name,
				strcmp(k->name, "reserved_clients") == 0 ? lim.reserved_sessions
									 : lim.max_sessions_per_uid,
				cfg->max_clients);
			continue;
		}
		fprintf(f, "%s = ", k->name);
		switch (k->type) {
		case CT_PATH:
			fputs((const char *)field, f);
			break;
		case CT_BOOL:
			fputs(*(const bool *)field ? "true" : "false", f);
			break;
		case CT_I64:
			fprintf(f, "%" PRId64, *(const int64_t *)field);
			break;
		case CT_U32:
		case CT_SIZE32:
			fprintf(f, "%" PRIu32, *(const uint32_t *)field);
			break;
		case CT_SIZE64:
			fprintf(f, "%" PRIu64, *(const uint64_t *)field);
			break;
		case CT_LEVEL:
			fprintf(f, "%s", log_level_name(*(const int *)field));
			break;
		case CT_AUTO:
			fputs(*(const int *)field < 0 ? "auto" : *(const int *)field ? "on" : "off", f);
			break;
		case CT_NAME:
		case CT_BACKENDS:
			fputs((const char *)field, f);
			break;
		case CT_MAC: {
			const struct config_mac *m = field;

			if (m->set)
				fprintf(f, "%02x:%02x:%02x:%02x:%02x:%02x", m->b[0], m->b[1], m->b[2],
					m->b[3], m->b[4], m->b[5]);
			break;
		}
		case CT_UIDS:
		case CT_IFACES:
		case CT_IP6S:
			break;
		}
		fputc('\n', f);
	}
}
