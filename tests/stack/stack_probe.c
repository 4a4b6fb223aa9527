/* SPDX-License-Identifier: MIT */
/*
 * stack_probe.c - see stack_probe.h. Namespaces are entered with setns()
 * on /run/netns/NAME (netns_enter) and left for the one this process
 * started in, whose handle is opened on first use.
 */
#include "stack_probe.h"

#include "sddsd_run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

bool probe_parse(const uint8_t *f, size_t len, struct probe_pkt *ret)
{
	struct probe_pkt p;
	size_t plen;

	if (len < PROBE_ETH_HLEN + PROBE_IP6_HLEN || f[12] != 0x86 || f[13] != 0xdd || (f[14] >> 4) != 6)
		return false;
	p.dmac = f;
	p.smac = f + 6;
	memcpy(&p.src, f + PROBE_ETH_HLEN + 8, 16);
	memcpy(&p.dst, f + PROBE_ETH_HLEN + 24, 16);
	p.hlim = f[PROBE_ETH_HLEN + 7];
	p.nh = f[PROBE_ETH_HLEN + 6];
	plen = (size_t)f[PROBE_ETH_HLEN + 4] << 8 | f[PROBE_ETH_HLEN + 5];
	if (PROBE_ETH_HLEN + PROBE_IP6_HLEN + plen > len)
		return false;
	p.l4 = f + PROBE_ETH_HLEN + PROBE_IP6_HLEN;
	p.l4_len = plen;
	/* MLD reports carry a hop-by-hop header (the router alert, RFC 3810 §5): skip one. */
	if (p.nh == PROBE_NH_HOPOPTS) {
		size_t hl;

		if (p.l4_len < 8)
			return false;
		hl = ((size_t)p.l4[1] + 1) * 8;
		if (hl > p.l4_len)
			return false;
		p.nh = p.l4[0];
		p.l4 += hl;
		p.l4_len -= hl;
	}
	*ret = p;
	return true;
}

uint16_t probe_cksum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t nh, const uint8_t *l4,
		     size_t len)
{
	uint32_t sum = 0;

	/* RFC 8200 §8.1: source, destination, upper-layer length (32 bits), three zero bytes, next header. */
	for (int i = 0; i < 16; i += 2) {
		sum += (uint32_t)src->s6_addr[i] << 8 | src->s6_addr[i + 1];
		sum += (uint32_t)dst->s6_addr[i] << 8 | dst->s6_addr[i + 1];
	}
	sum += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff);
	sum += nh;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)l4[i] << 8 | l4[i + 1];
	if (len & 1)
		sum += (uint32_t)l4[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t probe_frame(uint8_t *out, size_t cap, const uint8_t dmac[6], const uint8_t smac[6],
		   const struct in6_addr *src, const struct in6_addr *dst, uint8_t nh, uint8_t hlim,
		   const uint8_t *l4, size_t len)
{
	size_t total = PROBE_ETH_HLEN + PROBE_IP6_HLEN + len;
	uint8_t *ip = out + PROBE_ETH_HLEN, *u = ip + PROBE_IP6_HLEN;
	size_t off;

	if (total > cap || len > 0xffff)
		return 0;
	memcpy(out, dmac, 6);
	memcpy(out + 6, smac, 6);
	out[12] = 0x86;
	out[13] = 0xdd;
	memset(ip, 0, PROBE_IP6_HLEN);
	ip[0] = 0x60;
	ip[4] = (uint8_t)(len >> 8);
	ip[5] = (uint8_t)len;
	ip[6] = nh;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	memcpy(u, l4, len);
	/* The checksum field: bytes 6-7 of UDP (RFC 768), 2-3 of ICMPv6 (RFC 4443 §2.3). */
	off = nh == PROBE_NH_UDP ? 6 : nh == PROBE_NH_ICMP6 ? 2 : 0;
	if (off != 0 && len >= off + 2) {
		uint16_t c;

		u[off] = 0;
		u[off + 1] = 0;
		c = probe_cksum(src, dst, nh, u, len);
		/* A UDP checksum that computes to zero is sent as all ones (RFC 8200 §8.1). */
		if (nh == PROBE_NH_UDP && c == 0)
			c = 0xffff;
		u[off] = (uint8_t)(c >> 8);
		u[off + 1] = (uint8_t)c;
	}
	return total;
}

/* The namespace this process started in, to come back to. */
static int probe_home_fd = -1;

static int probe_enter(int side)
{
	if (probe_home_fd < 0) {
		probe_home_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (probe_home_fd < 0)
			return -errno;
	}
	return netns_enter(side);
}

static void probe_leave(void)
{
	if (probe_home_fd >= 0 && setns(probe_home_fd, CLONE_NEWNET) < 0)
		fprintf(stderr, "stack_probe: cannot return to the first namespace: %s\n", strerror(errno));
}

int probe_raw_open(int side, const char *ifname, int *ret_ifindex, uint8_t ret_mac[6])
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	struct ifreq ifr = {0};
	int fd, rc;

	rc = probe_enter(side);
	if (rc < 0)
		return rc;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		rc = -errno;
		goto fail_close;
	}
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		rc = -errno;
		goto fail_close;
	}
	if (ret_ifindex != NULL)
		*ret_ifindex = ifr.ifr_ifindex;
	if (ret_mac != NULL) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			rc = -errno;
			goto fail_close;
		}
		memcpy(ret_mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	rc = fd;
	goto out;
fail_close:
	close(fd);
out:
	probe_leave();
	return rc;
}

int probe_raw_send(int fd, int ifindex, const uint8_t *frame, size_t len)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6};

	memcpy(sll.sll_addr, frame, 6);
	if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) != (ssize_t)len)
		return -errno;
	return 0;
}

ssize_t probe_raw_recv(int fd, uint8_t *buf, size_t cap, int ms, int *pkttype)
{
	int64_t end = netns_now_ms() + ms;

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int64_t left = end - netns_now_ms();
		ssize_t n = recvfrom(fd, buf, cap, 0, (struct sockaddr *)&from, &fl);

		if (n >= 0) {
			if (pkttype != NULL)
				*pkttype = from.sll_pkttype;
			return n;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (left <= 0)
			return 0;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

int probe_ping(int side, const char *ifname, const struct in6_addr *dst, int count, int ms)
{
	struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_addr = *dst};
	struct icmp6_filter filt;
	uint16_t id = (uint16_t)getpid();
	int fd, rc, got = 0;

	rc = probe_enter(side);
	if (rc < 0)
		return rc;
	to.sin6_scope_id = if_nametoindex(ifname);
	/* A raw ICMPv6 socket: the kernel computes the checksum (RFC 3542 §3.1) and resolves the neighbor. */
	fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
	rc = fd < 0 ? -errno : 0;
	probe_leave();
	if (rc < 0)
		return rc;
	if (to.sin6_scope_id == 0) {
		close(fd);
		return -ENODEV;
	}
	ICMP6_FILTER_SETBLOCKALL(&filt);
	ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &filt);
	setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filt, sizeof(filt));
	for (int seq = 1; seq <= count; seq++) {
		uint8_t req[64] = {ICMP6_ECHO_REQUEST, 0, 0, 0}, rep[256];
		int64_t end;

		req[4] = (uint8_t)(id >> 8);
		req[5] = (uint8_t)id;
		req[6] = (uint8_t)(seq >> 8);
		req[7] = (uint8_t)seq;
		for (size_t i = 8; i < sizeof(req); i++)
			req[i] = (uint8_t)(i * 7 + (size_t)seq);
		if (sendto(fd, req, sizeof(req), 0, (struct sockaddr *)&to, sizeof(to)) !=
		    (ssize_t)sizeof(req)) {
			rc = -errno;
			break;
		}
		end = netns_now_ms() + ms;
		for (;;) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			struct sockaddr_in6 from;
			socklen_t fl = sizeof(from);
			int64_t left = end - netns_now_ms();
			ssize_t n;

			if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
				break;
			n = recvfrom(fd, rep, sizeof(rep), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
			/* RFC 4443 §4.2: the reply echoes identifier, sequence number and data. */
			if (n == (ssize_t)sizeof(req) && IN6_ARE_ADDR_EQUAL(&from.sin6_addr, dst) &&
			    rep[0] == ICMP6_ECHO_REPLY && memcmp(rep + 4, req + 4, sizeof(req) - 4) == 0) {
				got++;
				break;
			}
		}
		usleep(200000);
	}
	close(fd);
	return rc < 0 ? rc : got;
}

int probe_daemon_start(int side, const char *sddsd, const char *name, pid_t *ret_pid)
{
	struct sddsd_run_opts o;
	char sock[192], conf[192], log[192];
	int rc;

	snprintf(sock, sizeof(sock), "%s/%s.sock", netns.dir, name);
	snprintf(conf, sizeof(conf), "%s/%s.conf", netns.dir, name);
	snprintf(log, sizeof(log), "%s/%s.log", netns.dir, name);
	sddsd_run_opts_init(&o);
	o.bin = sddsd;
	o.sock = sock;
	o.config = conf;
	o.log = log;
	o.die_with_parent = true;
	o.ready_ms = 5000;
	/* The child is forked inside the namespace and stays there. */
	rc = probe_enter(side);
	if (rc < 0)
		return rc;
	rc = sddsd_run_start(&o, ret_pid, NULL);
	probe_leave();
	return rc;
}

void probe_daemon_stop(pid_t pid)
{
	if (pid > 0)
		sddsd_run_stop(pid, SIGTERM, 2000, NULL);
}

bool probe_mac_parse(const char *text, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return false;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return true;
}

void probe_eui64_ll(const uint8_t mac[6], struct in6_addr *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->s6_addr[0] = 0xfe;
	ret->s6_addr[1] = 0x80;
	/* RFC 4291 appendix A: the universal/local bit inverted, ff:fe in the middle. */
	ret->s6_addr[8] = mac[0] ^ 0x02;
	ret->s6_addr[9] = mac[1];
	ret->s6_addr[10] = mac[2];
	ret->s6_addr[11] = 0xff;
	ret->s6_addr[12] = 0xfe;
	ret->s6_addr[13] = mac[3];
	ret->s6_addr[14] = mac[4];
	ret->s6_addr[15] = mac[5];
}

struct json_object *probe_stack_link(int side, const char *sddsctl, char *raw, size_t cap)
{
	return probe_stack_link_of(side, sddsctl, side == 0 ? "a.sock" : "b.sock", raw, cap);
}

/* `sddsctl --json --socket DIR/sock stack` in side's namespace into buf. 0 or -1. */
static int probe_ctl_stack(int side, const char *sddsctl, const char *sock, char *buf, size_t cap)
{
	char line[512];
	FILE *p;
	size_t n;

	snprintf(line, sizeof(line), "ip netns exec %s %s --json --socket %s/%s stack", netns.ns[side],
		 sddsctl, netns.dir, sock);
	p = popen(line, "r");
	if (p == NULL)
		return -1;
	n = fread(buf, 1, cap - 1, p);
	buf[n] = '\0';
	return pclose(p) == 0 ? 0 : -1;
}

struct json_object *probe_stack_link_of(int side, const char *sddsctl, const char *sock, char *raw,
					size_t cap)
{
	static char buf[262144];
	struct json_object *root, *arr, *link = NULL;

	if (probe_ctl_stack(side, sddsctl, sock, buf, sizeof(buf)) < 0) {
		if (raw != NULL)
			snprintf(raw, cap, "sddsctl stack failed: %s", buf);
		return NULL;
	}
	if (raw != NULL)
		snprintf(raw, cap, "%s", buf);
	root = json_tokener_parse(buf);
	if (root == NULL)
		return NULL;
	if (json_object_object_get_ex(root, "stack", &arr) && json_object_is_type(arr, json_type_array) &&
	    json_object_array_length(arr) > 0)
		link = json_object_get(json_object_array_get_idx(arr, 0));
	json_object_put(root);
	return link;
}

void probe_stack_put(struct json_object *link)
{
	if (link != NULL)
		json_object_put(link);
}

const char *probe_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* The element of link's array member key whose "address" (or the element itself, a string) is addr. */
static struct json_object *probe_find(struct json_object *link, const char *key, const struct in6_addr *addr)
{
	struct json_object *arr;

	if (link == NULL || !json_object_object_get_ex(link, key, &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *text = json_object_is_type(e, json_type_string) ? json_object_get_string(e)
									    : probe_str(e, "address");
		struct in6_addr a;

		if (inet_pton(AF_INET6, text, &a) == 1 && IN6_ARE_ADDR_EQUAL(&a, addr))
			return e;
	}
	return NULL;
}

const char *probe_stack_addr_state(struct json_object *link, const struct in6_addr *addr)
{
	struct json_object *e = probe_find(link, "addresses", addr);

	return e != NULL ? probe_str(e, "state") : NULL;
}

struct json_object *probe_stack_neigh(struct json_object *link, const struct in6_addr *addr)
{
	return probe_find(link, "neighbors", addr);
}

uint64_t probe_stack_u64(struct json_object *link, const char *group, const char *key)
{
	struct json_object *g, *v;

	if (link == NULL || !json_object_object_get_ex(link, group, &g) ||
	    !json_object_object_get_ex(g, key, &v))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

bool probe_stack_has_group(struct json_object *link, const struct in6_addr *group)
{
	return probe_find(link, "groups", group) != NULL;
}

/* Each output line of cmd, to fn until it returns true; whether one did. */
static bool probe_lines(const char *cmd, bool (*fn)(void *ctx, char *line), void *ctx)
{
	char line[1024];
	bool hit = false;
	FILE *p = popen(cmd, "r");

	if (p == NULL)
		return false;
	while (!hit && fgets(line, sizeof(line), p) != NULL)
		hit = fn(ctx, line);
	/* Read to the end so the command is not killed by SIGPIPE halfway. */
	while (fgets(line, sizeof(line), p) != NULL)
		;
	pclose(p);
	return hit;
}

struct probe_neigh_ctx {
	const struct in6_addr *addr;
	uint8_t *mac;
	char *state;
	size_t cap;
};

static bool probe_neigh_line(void *ctx, char *line)
{
	struct probe_neigh_ctx *c = ctx;
	char *save = NULL, *tok, *last = NULL;
	struct in6_addr a;
	bool mac = false;

	tok = strtok_r(line, " \n", &save);
	if (tok == NULL || inet_pton(AF_INET6, tok, &a) != 1 || !IN6_ARE_ADDR_EQUAL(&a, c->addr))
		return false;
	memset(c->mac, 0, 6);
	/* "ADDR lladdr MAC [router] STATE": the last word is the state. */
	while ((tok = strtok_r(NULL, " \n", &save)) != NULL) {
		if (mac)
			probe_mac_parse(tok, c->mac);
		mac = strcmp(tok, "lladdr") == 0;
		last = tok;
	}
	snprintf(c->state, c->cap, "%s", last != NULL ? last : "");
	return true;
}

bool probe_kernel_neigh(int side, const char *dev, const struct in6_addr *addr, uint8_t mac[6], char *state,
			size_t cap)
{
	struct probe_neigh_ctx c = {addr, mac, state, cap};
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip -n %s -6 neigh show dev %s", netns.ns[side], dev);
	return probe_lines(cmd, probe_neigh_line, &c);
}

static bool probe_ll_line(void *ctx, char *line)
{
	char *p = strstr(line, "inet6 fe80:");
	char *slash;

	if (p == NULL)
		return false;
	p += strlen("inet6 ");
	slash = strchr(p, '/');
	if (slash == NULL)
		return false;
	*slash = '\0';
	return inet_pton(AF_INET6, p, ctx) == 1;
}

bool probe_kernel_ll(int side, const char *dev, struct in6_addr *ret)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip -n %s -6 addr show dev %s scope link", netns.ns[side], dev);
	return probe_lines(cmd, probe_ll_line, ret);
}

struct probe_mdb_ctx {
	const char *port;
	const struct in6_addr *group;
};

static bool probe_mdb_line(void *ctx, char *line)
{
	struct probe_mdb_ctx *c = ctx;
	char *save = NULL, *tok, *prev = NULL;
	bool port = false, grp = false;

	/* "dev br0 port tap0 grp ff02::10 temp" (and "src ..." lines for MLDv2 source entries). */
	for (tok = strtok_r(line, " \n", &save); tok != NULL;
	     prev = tok, tok = strtok_r(NULL, " \n", &save)) {
		struct in6_addr a;

		if (prev == NULL)
			continue;
		if (strcmp(prev, "port") == 0)
			port = strcmp(tok, c->port) == 0;
		if (strcmp(prev, "grp") == 0)
			grp = inet_pton(AF_INET6, tok, &a) == 1 && IN6_ARE_ADDR_EQUAL(&a, c->group);
	}
	return port && grp;
}

bool probe_mdb_has(int side, const char *br, const char *port, const struct in6_addr *group)
{
	struct probe_mdb_ctx c = {port, group};
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "bridge -n %s mdb show dev %s", netns.ns[side], br);
	return probe_lines(cmd, probe_mdb_line, &c);
}

static uint32_t probe_u32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int probe_pcap_each(const char *path, void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx,
		    uint32_t *ret_linktype)
{
	static uint8_t rec[65536 + 16];
	uint8_t hdr[24];
	uint32_t magic;
	bool swap;
	int n = 0;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return -errno;
	/* The classic libpcap format: a 24-byte file header, then 16-byte record headers. */
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		fclose(f);
		return -EBADMSG;
	}
	memcpy(&magic, hdr, 4);
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d && __builtin_bswap32(magic) != 0xa1b2c3d4 &&
	    __builtin_bswap32(magic) != 0xa1b23c4d) {
		fclose(f);
		return -EBADMSG;
	}
	swap = magic != 0xa1b2c3d4 && magic != 0xa1b23c4d;
	if (ret_linktype != NULL)
		*ret_linktype = probe_u32(hdr + 20, swap);
	for (;;) {
		uint8_t rh[16];
		uint32_t caplen;
		size_t r = fread(rh, 1, sizeof(rh), f);

		if (r == 0)
			break;
		caplen = probe_u32(rh + 8, swap);
		if (r != sizeof(rh) || caplen > sizeof(rec) || fread(rec, 1, caplen, f) != caplen) {
			/* A record cut short: the capture is not whole. */
			fclose(f);
			return -EBADMSG;
		}
		fn(ctx, rec, caplen);
		n++;
	}
	fclose(f);
	return n;
}
