/* SPDX-License-Identifier: MIT */
/*
 * config.h - sddsd's configuration: built-in defaults, a `key = value` file,
 * command-line overrides.
 *
 * OVERVIEW
 * struct sddsd_config is a plain value: no pointers, so it can be copied
 * freely; the daemon copies it once into the Manager at start. The parser
 * never prints: it returns -errno and fills a struct config_error with
 * "FILE:LINE: what is wrong". Parsing works on a copy and writes the result
 * only on success, so a caller's config is never half-updated.
 *
 * File syntax, one setting per line:
 *   # a comment (a '#' at the start of a line, or after blank space)
 *   key = value
 * Blank lines are ignored, blanks around key and value are trimmed, keys are
 * case-sensitive, each key may appear once (except attest_uid, which adds
 * one uid per line), unknown keys are errors. Byte
 * sizes take an optional K, M or G suffix (powers of 1024). Booleans are
 * true/false, yes/no, on/off, 1/0.
 */
#ifndef SDDS_DAEMON_CONFIG_H
#define SDDS_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_SOCKET_MAX 108 /* sizeof(sockaddr_un.sun_path), NUL included */
#define CONFIG_FILE_MAX (1024 * 1024)
#define CONFIG_ERROR_MAX 512
#define CONFIG_ATTEST_UIDS_MAX 16
#define CONFIG_NET_IFACES_MAX 8 /* interface = NAME, repeatable (daemon/net) */
#define CONFIG_IFNAME_MAX 16	/* IF_NAMESIZE */
#define CONFIG_NET_SWAP_MAX 16	/* peer_endian_swap = ADDR and peer_pack = ADDR, repeatable */
#define CONFIG_AUTO UINT32_MAX	/* a key set to "auto" */
/* backend = NAME, repeatable: each starts a block of interface lines (daemon/net) */
#define CONFIG_NET_BACKENDS_MAX 4

/* A repeatable key of IPv6 addresses: each line adds one. */
struct config_ip6s {
	uint8_t addr[CONFIG_NET_SWAP_MAX][16];
	uint32_t n;
};

struct config_mac {
	uint8_t b[6];
	bool set;
};

struct sddsd_config {
	char socket[CONFIG_SOCKET_MAX]; /* "" = ctl_default_path() */
	bool poll;			/* polling mode: the loop never sleeps */
	int64_t spin_ns;		/* blocking mode: keep pumping this long after activity */
	int64_t poll_turn_ns;		/* polling mode: pump rings this long between two loop turns */
	int64_t poll_yield_ns;		/* polling mode: yield the CPU once idle this long; 0: never */
	uint32_t max_clients;
	/*
	 * Admission per uid (daemon/core/admission.h): CONFIG_AUTO in the two
	 * derived ones means "from max_clients" (config_admission_limits).
	 */
	uint32_t max_clients_per_uid; /* sessions of one ordinary uid */
	uint32_t reserved_clients;    /* of max_clients, for root and launcher uids only */
	uint32_t max_handshakes;      /* connections not past Hello, all uids */
	uint32_t max_handshakes_per_uid;
	uint32_t max_readers_per_client;
	uint32_t max_writers_per_client;
	uint32_t max_topics_per_client;
	uint32_t request_ring_bytes; /* power of two, >= 4 * max record */
	uint64_t arena_bytes;	     /* multiple of 4096 */
	uint32_t max_sample;	     /* largest sample payload */
	uint32_t max_requests_per_turn;
	int log_level; /* 0..7, journald priorities */
	/* Access policy file (docs/policy.md); "" = none: every topic is open. */
	char policy[CONFIG_SOCKET_MAX];
	/* Besides root and the daemon's uid, who may send Attest (repeatable key). */
	uint32_t attest_uids[CONFIG_ATTEST_UIDS_MAX];
	uint32_t n_attest_uids;
	/* The network side (daemon/net, docs/DESIGN.md "The network side"). */
	char node_config[CONFIG_SOCKET_MAX]; /* sdds.xml; "" = none */
	int net;			     /* -1 auto (on with a node config), 0 off, 1 on */
	char backend[CONFIG_IFNAME_MAX];     /* the first backend: "socket" */
	/*
	 * The backend blocks, in order: the first is the default socket one
	 * until a `backend` line names it, and each later `backend` line adds
	 * one. The `interface` lines after a `backend` line belong to it;
	 * those before the first belong to the first (docs/man/sddsd.conf.5).
	 */
	char backends[CONFIG_NET_BACKENDS_MAX][CONFIG_IFNAME_MAX];
	uint32_t n_backends;
	char interfaces[CONFIG_NET_IFACES_MAX][CONFIG_IFNAME_MAX];
	uint8_t interface_backend[CONFIG_NET_IFACES_MAX]; /* index into backends[] of each */
	uint32_t n_interfaces;
	uint32_t max_frame; /* frames toward peers stay below this (128, snps-wire.md §6.6) */
	uint32_t max_peers;
	struct config_ip6s peer_endian_swap; /* §2 peers: integers little-endian on the wire */
	/*
	 * Peers known to take several samples per frame (another sddsd): frames
	 * toward them are packed. Every other destination gets one sample per
	 * frame, as a real node's receiver needs (snps-wire.md §15.17).
	 */
	struct config_ip6s peer_pack;
	/* Multicast discovery (snps-wire.md §10, daemon/net/discovery.h); off: static subscriptions only. */
	bool discovery;
	uint32_t node_id;		   /* 1..65535; 0: from the first link's address (§9.4) */
	uint32_t discovery_participant_ms; /* DCPSParticipant period (0: start and reactions only) */
	uint32_t discovery_publication_ms; /* DCPSPublication period (same) */
	uint32_t discovery_expire_ms;	   /* silent peers and their subscriptions go (0: never) */
	bool discovery_unicast;		   /* advertise `08 10`: data comes unicast, not via ff02::10 */
	bool announce_pack;		   /* STATUS "takes packed frames" after our Participant samples */
	uint32_t discovery_max_subscriptions;
	bool gso;     /* runs of equal frames to one peer leave as one UDP GSO message (socket backend) */
	bool forward; /* samples from one link also go to the destinations on the other links */
	/* The own-stack backends (tap, daemon/net/stackbe.c). */
	struct config_mac mac;	      /* the first link's MAC; unset: random, locally administered */
	struct config_ip6s address;   /* static addresses (/64) the stack assigns after DAD */
	uint32_t dad_transmits;	      /* RFC 4862 DupAddrDetectTransmits (1) */
	char pcap[CONFIG_SOCKET_MAX]; /* capture every frame to this file; "" = none */
	uint64_t given;		      /* a bit per key a file line or config_set set (config_given) */
};

struct config_error {
	char msg[CONFIG_ERROR_MAX]; /* "FILE:LINE: what is wrong", NUL-terminated */
};

/* Defaults: the daemon runs with no file. */
void config_init(struct sddsd_config *cfg);

/*
 * Parse a config text of len bytes (not NUL-terminated; the caller keeps
 * ownership of text) named `name` in error messages, on top of the values
 * already in *cfg. On success *cfg is updated and 0 returned; on error *cfg
 * is untouched, *err holds the message and -EINVAL is returned (-EFBIG for
 * a text over CONFIG_FILE_MAX).
 */
int config_parse_text(struct sddsd_config *cfg, const char *name, const char *text, size_t len,
		      struct config_error *err);

/* Read and parse a file; -errno of open/read also fill *err ("FILE: ..."). */
int config_parse_file(struct sddsd_config *cfg, const char *path, struct config_error *err);

/*
 * Set one key from a string, as a line of the file would (command-line
 * overrides use this). On error *cfg is untouched, *err holds
 * "ORIGIN: what is wrong" and -EINVAL (unknown key: -ENOENT) is returned.
 */
int config_set(struct sddsd_config *cfg, const char *origin, const char *key, const char *value,
	       struct config_error *err);

/*
 * Checks between keys (request ring large enough for the largest record,
 * ...). Returns 0 or -EINVAL with *err ("ORIGIN: what is wrong").
 */
int config_validate(const struct sddsd_config *cfg, const char *origin, struct config_error *err);

/*
 * The admission caps with "auto" resolved: max_clients_per_uid a quarter of
 * max_clients (at least 1), reserved_clients an eighth (rounded down).
 */
struct admission_limits;
void config_admission_limits(const struct sddsd_config *cfg, struct admission_limits *ret);

/* Largest request record for this config: header + max_sample, 16-aligned. */
uint32_t config_max_record(const struct sddsd_config *cfg);

/* Whether key was set by a line of a config file or by config_set (not a default). */
bool config_given(const struct sddsd_config *cfg, const char *key);

/* Print the effective config in file syntax (every key). */
void config_print(const struct sddsd_config *cfg, FILE *f);

#endif /* SDDS_DAEMON_CONFIG_H */
