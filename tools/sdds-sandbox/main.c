/* SPDX-License-Identifier: MIT */
/*
 * main.c - sdds-sandbox: run a vendor application as a sandboxed client of
 * sddsd.
 *
 * OVERVIEW
 * Three processes:
 *   supervisor  this process, outside. It connects to sddsd, attests the
 *               application's identity, creates the program's cgroup
 *               (cgroup.c: memory.max, pids.max) and the sandbox, moves
 *               init into that cgroup before init may go on,
 *               writes its uid/gid maps, answers seccomp notifications
 *               (reports each denied system call by name; kills the program
 *               or fails the call with EPERM), forwards SIGTERM/SIGINT/SIGHUP
 *               and returns the program's exit status.
 *   init        PID 1 of the new PID namespace, in new user, mount, IPC,
 *               UTS and network namespaces. It builds the view (view.c),
 *               drops to the inner uid and every capability, sets
 *               no_new_privs, forks the program and reaps it. It runs only
 *               this file's code and holds no fd of value.
 *   program     PID 2 (FILTER_PROGRAM_PID). It loads the seccomp filter
 *               (filter.c), hands the listener fd to the supervisor over a
 *               socketpair, sets the resource limits, and execs PROGRAM
 *               with the control socket as fd 3 and SDDS_CTL_FD=3.
 * The program cannot fork (clone is limited to threads), so init never has
 * more than one child, and the program is never PID 1, which would make it
 * immune to its own default signal actions.
 *
 * Exit status: the program's, 128+N when a signal N ended it, 128+SIGSYS
 * (159) when the supervisor killed it for a denied system call, 125 when
 * the sandbox could not be set up, 126/127 when PROGRAM could not be run.
 *
 * Attestation: the daemon takes an Attest request only as the first message
 * of a connection, from a peer uid it trusts, and the peer of the socket
 * is this supervisor, not the program. So the supervisor always uses that
 * first message itself: --identity NAME, or by default
 * "sandbox:<program name>". Were the slot left free, the program could
 * attest any identity under the supervisor's (possibly trusted) uid. A
 * refusal of the default (an untrusted launcher) is fine: the slot is used
 * all the same. --no-attest is for daemons without Attest.
 *
 * Ownership: the supervisor owns the control socket until the clone (the
 * init and program inherit copies; the supervisor closes its own), the
 * notify fd once received, and the pidfd of init.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ctl.h"

#include "cgroup.h"
#include "elfdeps.h"
#include "filter.h"
#include "sysfile.h"
#include "view.h"

#define SANDBOX_EXIT_SETUP 125
#define SANDBOX_EXIT_NOEXEC 126
#define SANDBOX_EXIT_NOTFOUND 127
#define SANDBOX_CTL_FD 3
#define SANDBOX_RENEW_FD 4
#define SANDBOX_FD_HIGH 10 /* fds are moved above this before 3 and 4 are set */
#define SANDBOX_RENEW_MIN_MS 50
#define SANDBOX_MAX_LIST 64
#define SANDBOX_MAX_REPORTS 64

struct sandbox_list {
	const char *v[SANDBOX_MAX_LIST];
	size_t n;
};

struct sandbox_opts {
	const char *socket_path;
	const char *identity;
	char default_identity[64];
	bool no_attest;
	bool no_renew;
	struct sandbox_list ro;
	struct sandbox_list tmpfs;
	struct sandbox_list allow;
	size_t tmpfs_size;
	bool no_deps;
	bool no_seccomp;
	bool seccomp_kill;
	int verbose;
	rlim_t nofile, nproc, mem, fsize;
	rlim_t pids, data; /* data: (rlim_t)-1 until --data or the --mem default sets it */
	bool allow_weak_limits;
	uid_t uid;
	gid_t gid;
	char exe[PATH_MAX];
	char **argv;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sdds-sandbox [options] -- PROGRAM [ARGS...]\n"
		   "Run PROGRAM as a sandboxed client of sddsd: it gets a connected control\n"
		   "socket as fd 3 ($SDDS_CTL_FD), no network, a read-only view of only the\n"
		   "files it needs, no capabilities, resource limits and a seccomp allow-list.\n"
		   "\n"
		   "  -s, --socket PATH        sddsd control socket (default: $SDDS_SOCKET or\n"
		   "                           the daemon's default path)\n"
		   "  -i, --identity NAME      the identity sddsd's policy knows the program by\n"
		   "                           (default: sandbox:PROGRAM-NAME; needs a launcher uid\n"
		   "                           the daemon trusts)\n"
		   "      --no-attest          send no Attest (daemons without it; the program\n"
		   "                           could then attest an identity itself)\n"
		   "      --no-renew           no renewal channel ($SDDS_CTL_RENEW_FD): after a\n"
		   "                           daemon restart the program stays disconnected\n"
		   "  -r, --ro PATH            also bind PATH (file or directory) read-only\n"
		   "  -t, --tmpfs PATH         a writable tmpfs at PATH (noexec,nosuid,nodev)\n"
		   "      --tmpfs-size BYTES   size of each tmpfs (default 16M)\n"
		   "      --no-deps            do not add the ELF interpreter and libraries\n"
		   "      --seccomp-default=kill|eperm\n"
		   "                           a denied system call kills the program (default)\n"
		   "                           or fails with EPERM; either way it is reported\n"
		   "      --allow-syscall NAME allow one more system call (e.g. what a sanitizer\n"
		   "                           runtime needs)\n"
		   "      --no-seccomp         no system call filter (testing the other layers)\n"
		   "      --nofile N           RLIMIT_NOFILE (default 256)\n"
		   "      --nproc N            RLIMIT_NPROC, threads included (default 64)\n"
		   "      --mem BYTES          memory limit of the program's own cgroup, shared\n"
		   "                           memory included (memory.max; default 1G; 0: none)\n"
		   "      --pids N             task limit of that cgroup, threads included\n"
		   "                           (pids.max; default 128; 0: none)\n"
		   "      --data BYTES         RLIMIT_DATA (default: as --mem; 0: unlimited)\n"
		   "      --allow-weak-limits  run even where no cgroup can be made (warns): then\n"
		   "                           only rlimits bound the program, and RLIMIT_DATA\n"
		   "                           does not count shared memory\n"
		   "      --fsize BYTES        RLIMIT_FSIZE (default 64M)\n"
		   "      --uid N, --gid N     ids inside the sandbox (default 1000)\n"
		   "  -v, --verbose            print how the view is built\n"
		   "  -h, --help               this text\n"
		   "Exit status: PROGRAM's; 128+N if signal N ended it; 159 (128+SIGSYS) if it\n"
		   "was killed for a denied system call; 125 setup failure; 126/127 no exec.\n");
}

static int parse_size(const char *s, rlim_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'K':
	case 'k':
		v <<= 10;
		end++;
		break;
	case 'M':
	case 'm':
		v <<= 20;
		end++;
		break;
	case 'G':
	case 'g':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	if (*end)
		return -EINVAL;
	*ret = (rlim_t)v;
	return 0;
}

static int list_push(struct sandbox_list *l, const char *v)
{
	if (l->n == SANDBOX_MAX_LIST)
		return -E2BIG;
	l->v[l->n++] = v;
	return 0;
}

/* PROGRAM as an absolute path: as given when it holds a '/', else from $PATH. */
static int resolve_exe(const char *name, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char cwd[PATH_MAX];

	if (strchr(name, '/')) {
		if (name[0] == '/')
			snprintf(out, cap, "%s", name);
		else if (!getcwd(cwd, sizeof(cwd)) || (size_t)snprintf(out, cap, "%s/%s", cwd, name) >= cap)
			return -ENAMETOOLONG;
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len > 0 && (size_t)snprintf(out, cap, "%.*s/%s", (int)len, path, name) < cap &&
		    out[0] == '/' && access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

static int parse_opts(int argc, char **argv, struct sandbox_opts *o)
{
	enum {
		O_TMPFS_SIZE = 256,
		O_NO_DEPS,
		O_SECCOMP_DEFAULT,
		O_ALLOW,
		O_NO_SECCOMP,
		O_NOFILE,
		O_NPROC,
		O_MEM,
		O_FSIZE,
		O_UID,
		O_GID,
		O_NO_ATTEST,
		O_NO_RENEW,
		O_PIDS,
		O_DATA,
		O_ALLOW_WEAK
	};
	static const struct option longs[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"identity", required_argument, NULL, 'i'},
	    {"ro", required_argument, NULL, 'r'},
	    {"tmpfs", required_argument, NULL, 't'},
	    {"tmpfs-size", required_argument, NULL, O_TMPFS_SIZE},
	    {"no-deps", no_argument, NULL, O_NO_DEPS},
	    {"seccomp-default", required_argument, NULL, O_SECCOMP_DEFAULT},
	    {"allow-syscall", required_argument, NULL, O_ALLOW},
	    {"no-seccomp", no_argument, NULL, O_NO_SECCOMP},
	    {"nofile", required_argument, NULL, O_NOFILE},
	    {"nproc", required_argument, NULL, O_NPROC},
	    {"mem", required_argument, NULL, O_MEM},
	    {"pids", required_argument, NULL, O_PIDS},
	    {"data", required_argument, NULL, O_DATA},
	    {"allow-weak-limits", no_argument, NULL, O_ALLOW_WEAK},
	    {"fsize", required_argument, NULL, O_FSIZE},
	    {"uid", required_argument, NULL, O_UID},
	    {"gid", required_argument, NULL, O_GID},
	    {"no-attest", no_argument, NULL, O_NO_ATTEST},
	    {"no-renew", no_argument, NULL, O_NO_RENEW},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	rlim_t v, tmpfs_size = 16u << 20;
	int c, rc;

	o->seccomp_kill = true;
	o->nofile = 256;
	o->nproc = 64;
	o->mem = (rlim_t)1 << 30;
	o->pids = 128;
	o->data = (rlim_t)-1;
	o->fsize = 64u << 20;
	o->uid = 1000;
	o->gid = 1000;
	while ((c = getopt_long(argc, argv, "+s:i:r:t:vh", longs, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 's':
			o->socket_path = optarg;
			break;
		case 'i':
			o->identity = optarg;
			break;
		case 'r':
			rc = optarg[0] == '/' ? list_push(&o->ro, optarg) : -EINVAL;
			break;
		case 't':
			rc = optarg[0] == '/' ? list_push(&o->tmpfs, optarg) : -EINVAL;
			break;
		case O_TMPFS_SIZE:
			rc = parse_size(optarg, &tmpfs_size);
			break;
		case O_NO_DEPS:
			o->no_deps = true;
			break;
		case O_SECCOMP_DEFAULT:
			if (strcmp(optarg, "kill") == 0)
				o->seccomp_kill = true;
			else if (strcmp(optarg, "eperm") == 0)
				o->seccomp_kill = false;
			else
				rc = -EINVAL;
			break;
		case O_ALLOW:
			if (filter_allow_refused(optarg)) {
				fprintf(stderr,
					"sdds-sandbox: --allow-syscall %s: W^X depends on its arguments\n",
					optarg);
				return -EINVAL;
			}
			rc = list_push(&o->allow, optarg);
			break;
		case O_NO_SECCOMP:
			o->no_seccomp = true;
			break;
		case O_NOFILE:
			rc = parse_size(optarg, &o->nofile);
			break;
		case O_NPROC:
			rc = parse_size(optarg, &o->nproc);
			break;
		case O_MEM:
			rc = parse_size(optarg, &o->mem);
			break;
		case O_PIDS:
			rc = parse_size(optarg, &o->pids);
			break;
		case O_DATA:
			rc = parse_size(optarg, &o->data);
			break;
		case O_ALLOW_WEAK:
			o->allow_weak_limits = true;
			break;
		case O_FSIZE:
			rc = parse_size(optarg, &o->fsize);
			break;
		case O_UID:
			rc = parse_size(optarg, &v);
			o->uid = (uid_t)v;
			break;
		case O_GID:
			rc = parse_size(optarg, &v);
			o->gid = (gid_t)v;
			break;
		case O_NO_ATTEST:
			o->no_attest = true;
			break;
		case O_NO_RENEW:
			o->no_renew = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
		if (rc < 0) {
			const struct option *l = longs;

			while (l->name && l->val != c)
				l++;
			fprintf(stderr, "sdds-sandbox: bad value for --%s: '%s'\n", l->name ? l->name : "?",
				optarg);
			return rc;
		}
	}
	o->tmpfs_size = (size_t)tmpfs_size;
	if (o->data == (rlim_t)-1)
		o->data = o->mem;
	if (optind >= argc) {
		usage(stderr);
		return -EINVAL;
	}
	if (o->uid == 0 || o->gid == 0 || o->uid == (uid_t)-1 || o->gid == (gid_t)-1) {
		fprintf(stderr, "sdds-sandbox: --uid/--gid must be an unprivileged id\n");
		return -EINVAL;
	}
	o->argv = argv + optind;
	rc = resolve_exe(o->argv[0], o->exe, sizeof(o->exe));
	if (rc < 0) {
		fprintf(stderr, "sdds-sandbox: %s: %s\n", o->argv[0], strerror(-rc));
		return rc;
	}
	if (!o->identity) {
		/* The daemon's identity alphabet: A-Z a-z 0-9 _ . : @ - */
		const char *base = strrchr(o->exe, '/') + 1;
		size_t i, n = (size_t)snprintf(o->default_identity, sizeof(o->default_identity), "sandbox:%s",
					       base);

		for (i = strlen("sandbox:"); i < n && i < sizeof(o->default_identity) - 1; i++)
			if (!strchr("_.:@-", o->default_identity[i]) &&
			    !((o->default_identity[i] | 0x20) >= 'a' &&
			      (o->default_identity[i] | 0x20) <= 'z') &&
			    !(o->default_identity[i] >= '0' && o->default_identity[i] <= '9'))
				o->default_identity[i] = '_';
	}
	return 0;
}

/* ---------------- supervisor: daemon connection ---------------- */

static int sandbox_connect(const char *path, int *ret_fd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char buf[sizeof(sa.sun_path)];
	int fd, rc;

	if (!path) {
		rc = ctl_default_path(buf, sizeof(buf));
		if (rc < 0)
			return rc;
		path = buf;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*ret_fd = fd;
	return 0;
}

/*
 * Attest the identity as the first message of the connection (policy
 * work: Request.attest, accepted only from a peer the daemon trusts).
 * *ret_reason gets the daemon's reason on refusal (static storage).
 */
static int sandbox_attest(int fd, const char *identity, const char **ret_reason)
{
#ifdef SDDS__CTL__ATTEST__INIT
	static char reason[256];
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Attest at = SDDS__CTL__ATTEST__INIT;
	Sdds__Ctl__Reply *rep;
	struct timeval tv = {.tv_sec = 10};
	size_t n_fds = 0;
	int fds[CTL_MAX_FDS];
	int rc;

	at.identity = (char *)identity;
	req.id = 1;
	req.body_case = SDDS__CTL__REQUEST__BODY_ATTEST;
	req.attest = &at;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc < 0)
		return rc;
	rc = ctl_recv_reply(fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		return rc;
	while (n_fds > 0)
		close(fds[--n_fds]);
	rc = rep->id == 1 ? rep->status : -EPROTO;
	if (rc > 0)
		rc = -EPROTO;
	snprintf(reason, sizeof(reason), "%s", rep->reason ? rep->reason : "");
	*ret_reason = reason;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	tv.tv_sec = 0;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return rc;
#else
	(void)fd;
	(void)identity;
	*ret_reason = "this build's control protocol has no Attest message";
	return -EPROTONOSUPPORT;
#endif
}

/*
 * A control socket for the program: connected and attested (see the
 * OVERVIEW). quiet: no message (renewals; the program sees the refusal).
 * Returns 0 and *ret_fd (the caller's), or -errno.
 */
static int sandbox_open_ctl(const struct sandbox_opts *o, bool quiet, int *ret_fd)
{
	const char *reason = "";
	int fd = -1, rc;

	rc = sandbox_connect(o->socket_path, &fd);
	if (rc < 0) {
		if (!quiet)
			fprintf(stderr, "sdds-sandbox: connect to sddsd: %s\n", strerror(-rc));
		return rc;
	}
	if (!o->no_attest) {
		rc = sandbox_attest(fd, o->identity ? o->identity : o->default_identity, &reason);
		/* An untrusted launcher's default attestation is refused, and
		 * that still uses up the first-message slot. (A build whose
		 * protocol lacks Attest cannot send one at all.) */
		if ((rc == -EPERM || rc == -EPROTONOSUPPORT) && !o->identity) {
			if (o->verbose && !quiet)
				fprintf(stderr, "sdds-sandbox: default identity not attested: %s\n", reason);
			rc = 0;
		}
		if (rc < 0) {
			if (!quiet)
				fprintf(stderr, "sdds-sandbox: attest '%s': %s%s%s\n",
					o->identity ? o->identity : o->default_identity, strerror(-rc),
					*reason ? ": " : "", reason);
			close(fd);
			return rc;
		}
	}
	*ret_fd = fd;
	return 0;
}

/* ---------------- the sandbox side ---------------- */

static void die_setup(const char *what, int err)
{
	fprintf(stderr, "sdds-sandbox: setup: %s: %s\n", what, strerror(err));
	_exit(SANDBOX_EXIT_SETUP);
}

static void set_limit(int res, rlim_t v, const char *what)
{
	struct rlimit rl = {v, v};

	if (v == 0 && res != RLIMIT_CORE)
		rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
	if (setrlimit(res, &rl) < 0) {
		/* A limit above an inherited hard limit stays at the hard one. */
		if (errno != EPERM || getrlimit(res, &rl) < 0 ||
		    (rl.rlim_cur = rl.rlim_max, setrlimit(res, &rl) < 0))
			die_setup(what, errno);
	}
}

static void drop_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	int cap;

	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			die_setup("drop the bounding set", errno);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		die_setup("clear ambient capabilities", errno);
	if (syscall(SYS_capset, &hdr, data) < 0)
		die_setup("capset", errno);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		die_setup("keepcaps", errno);
}

static int send_fd(int sock, int fd)
{
	char byte = 'n';
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	memset(u.buf, 0, sizeof(u.buf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

static int recv_fd(int sock, int *ret_fd)
{
	char byte;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EBADMSG;
	memcpy(ret_fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

/* PID 2: filter, hand over the listener, exec. Never returns. */
static void program_main(const struct sandbox_opts *o, int ctl_fd, int renew_fd, int notify_sock)
{
	extern char **environ;
	int nfd, rc;

	/* Out of the way first, so that setting 3 and 4 clobbers none of them. */
	ctl_fd = fcntl(ctl_fd, F_DUPFD_CLOEXEC, SANDBOX_FD_HIGH);
	notify_sock = fcntl(notify_sock, F_DUPFD_CLOEXEC, SANDBOX_FD_HIGH);
	if (renew_fd >= 0)
		renew_fd = fcntl(renew_fd, F_DUPFD_CLOEXEC, SANDBOX_FD_HIGH);
	if (ctl_fd < 0 || notify_sock < 0 || (!o->no_renew && renew_fd < 0))
		die_setup("move descriptors", errno);
	/* dup2 leaves the new fds without close-on-exec: PROGRAM gets them. */
	if (dup2(ctl_fd, SANDBOX_CTL_FD) < 0 || (renew_fd >= 0 && dup2(renew_fd, SANDBOX_RENEW_FD) < 0))
		die_setup("control socket fd", errno);
	if (setenv("SDDS_CTL_FD", "3", 1) < 0 || (renew_fd >= 0 && setenv("SDDS_CTL_RENEW_FD", "4", 1) < 0))
		die_setup("environment", errno);
	if (renew_fd < 0)
		(void)unsetenv("SDDS_CTL_RENEW_FD");
	(void)unsetenv("SDDS_SOCKET");
	if (!o->no_seccomp) {
		rc = filter_load(o->allow.v, o->allow.n, &nfd);
		if (rc < 0)
			die_setup("seccomp filter", -rc);
		rc = send_fd(notify_sock, nfd);
		if (rc < 0)
			die_setup("hand over the seccomp listener", -rc);
		close(nfd);
	}
	/* Nothing but stdio, the control socket and the renewal channel
	 * cross into PROGRAM. */
	if (syscall(SYS_close_range, renew_fd >= 0 ? SANDBOX_RENEW_FD + 1 : SANDBOX_CTL_FD + 1, ~0u, 0) < 0)
		die_setup("close descriptors", errno);
	/*
	 * The limits come last, right before exec: this process's own code
	 * (a sanitizer runtime in such builds) may still allocate until here.
	 * glibc's setrlimit is prlimit64 on ourselves, which the filter allows.
	 */
	set_limit(RLIMIT_NOFILE, o->nofile, "RLIMIT_NOFILE");
	set_limit(RLIMIT_NPROC, o->nproc, "RLIMIT_NPROC");
	set_limit(RLIMIT_DATA, o->data, "RLIMIT_DATA");
	set_limit(RLIMIT_FSIZE, o->fsize, "RLIMIT_FSIZE");
	set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
	execve(o->exe, o->argv, environ);
	rc = errno;
	fprintf(stderr, "sdds-sandbox: exec %s: %s\n", o->exe, strerror(rc));
	_exit(rc == ENOENT ? SANDBOX_EXIT_NOTFOUND : SANDBOX_EXIT_NOEXEC);
}

/* PID 1. Never returns. */
static void init_main(const struct sandbox_opts *o, const struct elfdeps *files, int sync_fd, int ctl_fd,
		      int renew_fd, int notify_sock)
{
	struct view_opts vo = {0};
	const char *step = "";
	sigset_t none;
	pid_t child, w;
	int status = 0, rc;
	char byte;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The supervisor writes our uid/gid maps first. */
	if (read(sync_fd, &byte, 1) != 1)
		_exit(SANDBOX_EXIT_SETUP);
	close(sync_fd);
	/* Own session: kill(0, ...) in here can reach nobody outside. */
	if (setsid() < 0)
		die_setup("setsid", errno);
	if (sethostname("sdds-sandbox", strlen("sdds-sandbox")) < 0)
		die_setup("sethostname", errno);

	/*
	 * The inner ids first: the view's inodes need a mapped owner (root's
	 * own uid is not mapped here). Capabilities survive this change, since
	 * none of our ids was this namespace's root; drop_caps ends them.
	 */
	/* setgroups fails where setgroups is denied (unprivileged caller): then the
	 * supplementary groups are unmapped ones, which grant nothing here. */
	(void)setgroups(0, NULL);
	if (setresgid(o->gid, o->gid, o->gid) < 0)
		die_setup("setresgid", errno);
	if (setresuid(o->uid, o->uid, o->uid) < 0)
		die_setup("setresuid", errno);

	vo.files = (const char *const *)files->paths;
	vo.n_files = files->n;
	vo.tmpfs = o->tmpfs.v;
	vo.n_tmpfs = o->tmpfs.n;
	vo.tmpfs_size = o->tmpfs_size;
	vo.uid = o->uid;
	vo.gid = o->gid;
	vo.verbose = o->verbose;
	rc = view_build(&vo, &step);
	if (rc < 0)
		die_setup(step, -rc);
	/*
	 * W^X again on the files the view bound, which are what execve maps:
	 * the check in main() read them by path, and a path can be made to
	 * name another file between that check and the bind. ENOENT is left
	 * to execve, which says it better, and so is EACCES: the inner uid may
	 * be unable to read a program it may run (mode 0711, its owner not
	 * mapped here), which then goes unchecked a second time.
	 */
	rc = elfdeps_check_wx(o->exe);
	if (rc < 0 && rc != -ENOENT && rc != -EACCES)
		die_setup("W^X check of the program as bound in its view", -rc);

	drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_setup("no_new_privs", errno);
	/* Set after the id change, which clears it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		die_setup("pdeathsig", errno);

	child = fork();
	if (child < 0)
		die_setup("fork", errno);
	if (child == 0)
		program_main(o, ctl_fd, renew_fd, notify_sock);
	close(ctl_fd);
	if (renew_fd >= 0)
		close(renew_fd);
	close(notify_sock);
	(void)syscall(SYS_close_range, 3, ~0u, 0);
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w == child)
			break;
		if (w < 0 && errno != EINTR)
			_exit(SANDBOX_EXIT_SETUP);
	}
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WEXITSTATUS(status));
}

/* ---------------- supervisor ---------------- */

static int write_maps(pid_t pid, const struct sandbox_opts *o)
{
	/* Root maps the inner ids to nobody, never to itself: the program
	 * must own nothing outside. Others can only map themselves. */
	uid_t host_uid = geteuid() == 0 ? 65534 : geteuid();
	gid_t host_gid = geteuid() == 0 ? 65534 : getegid();
	char path[64], map[64];
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)o->uid, (unsigned)host_uid);
	rc = sysfile_write(path, map);
	if (rc < 0)
		return rc;
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
		rc = sysfile_write(path, "deny");
		if (rc < 0)
			return rc;
	}
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)o->gid, (unsigned)host_gid);
	return sysfile_write(path, map);
}

struct supervisor {
	const struct sandbox_opts *o;
	pid_t init;
	pid_t program; /* outer pid, learned from the first execve */
	bool exec_done;
	bool violation;
	unsigned reports;
	int notify_fd;
	int renew_fd; /* our end of the renewal channel, or -1 */
	int64_t last_renew_ms;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
};

static void supervisor_notify(struct supervisor *s)
{
	const char *why = NULL;
	char name[64];
	int rc;

	memset(s->req, 0, sizeof(*s->req));
	rc = seccomp_notify_receive(s->notify_fd, s->req);
	if (rc < 0)
		return; /* the caller died meanwhile (-ENOENT) */
	memset(s->resp, 0, sizeof(*s->resp));
	s->resp->id = s->req->id;
	if (!s->exec_done && s->req->data.nr == filter_execve_nr()) {
		/* The one exec of PROGRAM itself. Nothing in the call is read,
		 * so letting it continue cannot be raced. */
		s->exec_done = true;
		s->program = (pid_t)s->req->pid;
		s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)seccomp_notify_respond(s->notify_fd, s->resp);
		return;
	}
	/* An executable mapping of a bound file (W^X, filter.c). */
	if (filter_is_exec_map(s->req)) {
		why = filter_exec_map_refusal(s->notify_fd, s->req);
		if (!why) {
			s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			(void)seccomp_notify_respond(s->notify_fd, s->resp);
			return;
		}
	}
	filter_syscall_name(s->req->data.nr, name, sizeof(name));
	if (s->reports < SANDBOX_MAX_REPORTS)
		fprintf(stderr, "sdds-sandbox: %s: denied system call %s (pid %d%s%s)%s\n", s->o->argv[0],
			name, (int)s->req->pid, why ? ": " : "", why ? why : "",
			s->o->seccomp_kill ? ", killing it" : ", failed with EPERM");
	else if (s->reports == SANDBOX_MAX_REPORTS)
		fprintf(stderr, "sdds-sandbox: further denied system calls are not reported\n");
	s->reports++;
	if (s->o->seccomp_kill) {
		/*
		 * No answer: the caller stays in the kernel until SIGKILL, which
		 * kill() makes fatal for the whole thread group before it returns,
		 * so no thread of it runs another instruction of its own. Killing
		 * init then takes the rest of the PID namespace along.
		 */
		s->violation = true;
		if (s->req->pid > 0)
			kill((pid_t)s->req->pid, SIGKILL);
		kill(s->init, SIGKILL);
		return;
	}
	s->resp->error = -EPERM;
	(void)seccomp_notify_respond(s->notify_fd, s->resp);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The renewal channel (client-lib/remote.c, remote_renew): the program sends
 * one packet "renew" after the daemon went away; the answer carries one
 * new control socket, connected and attested like the first, or no fd at
 * all (a refusal: daemon still down, or asked again within
 * SANDBOX_RENEW_MIN_MS, so a looping program cannot make us flood the
 * daemon with connections). A hang-up closes the channel for good.
 */
static void supervisor_renew(struct supervisor *s)
{
	char buf[64];
	ssize_t n;
	int fd = -1;

	n = recv(s->renew_fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(s->renew_fd);
		s->renew_fd = -1;
		return;
	}
	if ((size_t)n == strlen("renew") && memcmp(buf, "renew", (size_t)n) == 0 &&
	    now_ms() - s->last_renew_ms >= SANDBOX_RENEW_MIN_MS) {
		s->last_renew_ms = now_ms();
		if (sandbox_open_ctl(s->o, true, &fd) < 0)
			fd = -1;
	}
	if (fd >= 0) {
		if (s->o->verbose)
			fprintf(stderr, "sdds-sandbox: renewed the control socket\n");
		(void)send_fd(s->renew_fd, fd);
		close(fd);
	} else {
		(void)send(s->renew_fd, "no", 2, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

/*
 * The program's pid as we see it, when no execve notification told us
 * (--no-seccomp): init's only child. 0 when unknown.
 */
static pid_t supervisor_find_program(pid_t init)
{
	char path[64];
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)init, (int)init);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

static int supervisor_run(struct supervisor *s, int pidfd, int sigfd)
{
	struct pollfd p[4];
	int i_notify, i_renew;
	struct signalfd_siginfo si;
	int status, signals = 0;
	nfds_t n;

	for (;;) {
		n = 0;
		p[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
		p[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
		i_notify = i_renew = -1;
		if (s->notify_fd >= 0) {
			i_notify = (int)n;
			p[n++] = (struct pollfd){.fd = s->notify_fd, .events = POLLIN};
		}
		if (s->renew_fd >= 0) {
			i_renew = (int)n;
			p[n++] = (struct pollfd){.fd = s->renew_fd, .events = POLLIN};
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return SANDBOX_EXIT_SETUP;
		}
		if (i_notify >= 0 && (p[i_notify].revents & POLLIN))
			supervisor_notify(s);
		else if (i_notify >= 0 && (p[i_notify].revents & (POLLHUP | POLLERR))) {
			close(s->notify_fd);
			s->notify_fd = -1;
		}
		if (i_renew >= 0 && p[i_renew].revents)
			supervisor_renew(s);
		if (p[1].revents & POLLIN && read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			/* First signal: pass it on. A second: kill. */
			if (s->program <= 0)
				s->program = supervisor_find_program(s->init);
			if (++signals == 1 && s->program > 0)
				kill(s->program, (int)si.ssi_signo);
			else
				kill(s->init, SIGKILL);
		}
		if (p[0].revents & POLLIN)
			break;
	}
	if (waitpid(s->init, &status, 0) < 0)
		return SANDBOX_EXIT_SETUP;
	if (s->violation)
		return 128 + SIGSYS;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ---------------- supervisor: the program's cgroup ---------------- */

/* The program's cgroup (cgroup.h), removed at exit: every path out of main
 * after the sandbox was created has reaped init first. */
static struct cgroup sandbox_cg;
static pid_t sandbox_cg_owner; /* the sandbox's children inherit the atexit handler */

static void sandbox_cgroup_remove(void)
{
	if (getpid() != sandbox_cg_owner)
		return;
	if (sandbox_cg.kind != CGROUP_NONE && cgroup_remove(&sandbox_cg) < 0)
		fprintf(stderr, "sdds-sandbox: could not remove the program's cgroup\n");
}

/*
 * The cgroup that gives the limits rlimits cannot (RLIMIT_DATA does not
 * count MAP_SHARED memory, RLIMIT_NPROC is per user, not per sandbox).
 * Without one, only --allow-weak-limits goes on. 0 or -errno (reported).
 */
static int sandbox_cgroup_create(const struct sandbox_opts *o)
{
	char why[PATH_MAX + 256];
	int rc;

	rc = cgroup_create(o->mem, o->pids, &sandbox_cg, why, sizeof(why));
	if (rc == 0) {
		sandbox_cg_owner = getpid();
		atexit(sandbox_cgroup_remove);
		if (o->verbose)
			fprintf(stderr, "sdds-sandbox: program cgroup %s%s%s\n", sandbox_cg.app,
				sandbox_cg.kind == CGROUP_V1 ? " and " : "",
				sandbox_cg.kind == CGROUP_V1 ? sandbox_cg.pids : "");
		if (sandbox_cg.unlocked[0])
			fprintf(stderr, "sdds-sandbox: warning: %s\n", sandbox_cg.unlocked);
		if (!sandbox_cg.weak[0])
			return 0;
		/* A cgroup, but --mem does not bound swap: as weak as none. */
		if (!o->allow_weak_limits) {
			fprintf(stderr,
				"sdds-sandbox: the program's cgroup cannot bound swap: %s\n"
				"sdds-sandbox: refusing to start (--allow-weak-limits runs with it)\n",
				sandbox_cg.weak);
			return -EOPNOTSUPP;
		}
		fprintf(stderr,
			"sdds-sandbox: warning: the program's cgroup cannot bound swap: %s "
			"(--allow-weak-limits)\n",
			sandbox_cg.weak);
		return 0;
	}
	if (!o->allow_weak_limits) {
		fprintf(stderr,
			"sdds-sandbox: no cgroup for the program's limits: %s\n"
			"sdds-sandbox: without one --mem cannot bound shared memory nor --pids the tasks: "
			"refusing to start (--allow-weak-limits runs with rlimits only)\n",
			why);
		return rc;
	}
	fprintf(stderr,
		"sdds-sandbox: warning: no cgroup for the program's limits: %s; only rlimits bound it "
		"(--allow-weak-limits)\n",
		why);
	return 0;
}

/* Say so when the cgroup's limits stopped the program. */
static void sandbox_cgroup_report(const struct sandbox_opts *o)
{
	struct cgroup_events ev;

	if (sandbox_cg.kind == CGROUP_NONE || cgroup_read_events(&sandbox_cg, &ev) < 0)
		return;
	if (ev.oom_kills > 0)
		fprintf(stderr,
			"sdds-sandbox: %s: killed by the OOM killer at its memory limit (--mem %llu; %s "
			"oom_kill %llu, peak %llu bytes)\n",
			o->argv[0], (unsigned long long)o->mem,
			sandbox_cg.kind == CGROUP_V2 ? "memory.events" : "memory.oom_control",
			(unsigned long long)ev.oom_kills, (unsigned long long)ev.peak);
	if (ev.pids_denied > 0)
		fprintf(stderr,
			"sdds-sandbox: %s: %llu forks or threads refused at its task limit (--pids %llu)\n",
			o->argv[0], (unsigned long long)ev.pids_denied, (unsigned long long)o->pids);
}

int main(int argc, char **argv)
{
	struct sandbox_opts o = {0};
	struct elfdeps files = {0};
	struct supervisor s = {0};
	const char *missing = "?";
	int sync_pipe[2], sp[2], rn[2] = {-1, -1}, ctl_fd = -1, pidfd, sigfd, rc, i;
	sigset_t sigs;
	pid_t pid;

	if (parse_opts(argc, argv, &o) < 0)
		return SANDBOX_EXIT_SETUP;
	rc = elfdeps_check_wx(o.exe);
	if (rc < 0) {
		fprintf(stderr, "sdds-sandbox: %s: %s\n", o.exe,
			rc == -EPERM ? "asks for writable and executable memory (a writable and executable "
				       "segment or an executable stack): refused, W^X"
			: rc == -ENOEXEC
			    ? "a script whose #! line names no absolute interpreter path: refused"
			: rc == -ELOOP ? "a script through more than 5 scripts: refused"
				       : strerror(-rc));
		return SANDBOX_EXIT_SETUP;
	}
	if (!o.no_deps) {
		rc = elfdeps_collect(&files, o.exe, &missing);
		if (rc == -ENOEXEC) {
			fprintf(stderr,
				"sdds-sandbox: %s is not an ELF program of this machine: use --no-deps "
				"and --ro for what it needs\n",
				o.exe);
			return SANDBOX_EXIT_SETUP;
		}
		if (rc < 0) {
			fprintf(stderr, "sdds-sandbox: %s: dependencies: %s%s%s\n", o.exe, strerror(-rc),
				rc == -ENOENT ? ": " : "", rc == -ENOENT ? missing : "");
			return SANDBOX_EXIT_SETUP;
		}
	} else if (elfdeps_add(&files, o.exe) < 0) {
		return SANDBOX_EXIT_SETUP;
	}
	if (access("/etc/ld.so.cache", R_OK) == 0 && elfdeps_add(&files, "/etc/ld.so.cache") < 0)
		return SANDBOX_EXIT_SETUP;
	for (i = 0; i < (int)o.ro.n; i++)
		if (elfdeps_add(&files, o.ro.v[i]) < 0)
			return SANDBOX_EXIT_SETUP;

	if (sandbox_open_ctl(&o, false, &ctl_fd) < 0)
		return SANDBOX_EXIT_SETUP;
	/* Only now: cgroup_create takes the cgroup lock, held until init is
	 * in its leaf, and no other supervisor should wait for our file
	 * reading or our daemon's round trip. */
	if (sandbox_cgroup_create(&o) < 0)
		return SANDBOX_EXIT_SETUP;

	if (pipe2(sync_pipe, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0 ||
	    (!o.no_renew && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rn) < 0)) {
		perror("sdds-sandbox: pipe");
		return SANDBOX_EXIT_SETUP;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sigfd < 0) {
		perror("sdds-sandbox: signalfd");
		return SANDBOX_EXIT_SETUP;
	}
	fflush(NULL);

	pid = (pid_t)syscall(SYS_clone,
			     CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
				 CLONE_NEWNET | SIGCHLD,
			     NULL, NULL, NULL, NULL);
	if (pid < 0) {
		fprintf(stderr, "sdds-sandbox: create namespaces: %s%s\n", strerror(errno),
			errno == EPERM || errno == ENOSPC ? " (are user namespaces allowed here?)" : "");
		return SANDBOX_EXIT_SETUP;
	}
	if (pid == 0) {
		close(sync_pipe[1]);
		close(sp[0]);
		close(sigfd);
		if (rn[0] >= 0)
			close(rn[0]);
		init_main(&o, &files, sync_pipe[0], ctl_fd, rn[1], sp[1]);
	}
	close(sync_pipe[0]);
	close(sp[1]);
	close(ctl_fd);
	if (rn[1] >= 0)
		close(rn[1]);
	s.renew_fd = rn[0];
	elfdeps_free(&files);
	s.o = &o;
	s.init = pid;
	s.notify_fd = -1;
	/* Init waits for the sync byte: nothing of the sandbox ran yet. */
	if (sandbox_cg.kind != CGROUP_NONE && (rc = cgroup_attach(&sandbox_cg, pid)) < 0) {
		fprintf(stderr, "sdds-sandbox: move the sandbox into %s: %s\n", sandbox_cg.app,
			strerror(-rc));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return SANDBOX_EXIT_SETUP;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	rc = pidfd < 0 ? -errno : write_maps(pid, &o);
	if (rc < 0) {
		fprintf(stderr, "sdds-sandbox: set up the user namespace: %s\n", strerror(-rc));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return SANDBOX_EXIT_SETUP;
	}
	if (write(sync_pipe[1], "g", 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return SANDBOX_EXIT_SETUP;
	}
	close(sync_pipe[1]);
	/* The listener arrives before PROGRAM runs; EOF means no filter
	 * (--no-seccomp) or a sandbox that died during setup. */
	if (recv_fd(sp[0], &s.notify_fd) < 0)
		s.notify_fd = -1;
	close(sp[0]);
	if (!o.no_seccomp && s.notify_fd < 0) {
		int status;

		waitpid(pid, &status, 0);
		return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : SANDBOX_EXIT_SETUP;
	}
	if (seccomp_notify_alloc(&s.req, &s.resp) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return SANDBOX_EXIT_SETUP;
	}
	rc = supervisor_run(&s, pidfd, sigfd);
	seccomp_notify_free(s.req, s.resp);
	sandbox_cgroup_report(&o);
	return rc;
}
