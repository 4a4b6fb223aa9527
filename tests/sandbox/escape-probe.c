/* SPDX-License-Identifier: MIT */
/*
 * escape-probe.c - run inside sdds-sandbox, tries one way out, named on its
 * command line, and reports what happened.
 *
 * OVERVIEW
 *   escape-probe ATTEMPT [ARG]
 * prints one line "attempt=NAME result=blocked errno=ENAME" and exits 0
 * when the attempt failed, or "attempt=NAME result=escaped" and exits 1
 * when it worked (the test then fails). Exit 2: bad usage or a failure that
 * proves nothing (the test fails too). When the sandbox kills the probe for
 * a denied system call, it prints nothing after "trying": the test reads
 * the sandbox's report instead. Every attempt is the smallest code that
 * would succeed outside a sandbox; test_escape.c checks that outside the
 * sandbox each one gets past the point the sandbox must stop it.
 * escape-probe-static is the same program linked statically (without the
 * control-protocol attempts): no interpreter, no libraries.
 * escape-probe-execstack (-z execstack) and escape-probe-wxload (a section
 * flagged "awx", -DPROBE_WX_SEGMENT) ask the kernel for W+X memory at
 * execve: the sandbox must refuse to start them.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PROBE_STATIC
#include "ipc/ctl.h"
#include "ipc/layout.h"
#endif

#if defined(__x86_64__)
#define PROBE_X86_64 1
#else
#define PROBE_X86_64 0
#endif

#ifdef PROBE_WX_SEGMENT
/* A section flagged "awx": the linker makes a PT_LOAD writable and
 * executable, which the kernel maps so at execve. */
__attribute__((used, section(".probe_wx,\"awx\",@progbits #"))) unsigned char probe_wx_page[64] = {1};
#endif

static const char *probe_name;

static const char *probe_errname(int e)
{
	switch (e) {
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case EACCES:
		return "EACCES";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	case EROFS:
		return "EROFS";
	case ENETUNREACH:
		return "ENETUNREACH";
	case EADDRNOTAVAIL:
		return "EADDRNOTAVAIL";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case ENOTDIR:
		return "ENOTDIR";
	case EBADF:
		return "EBADF";
	case ECONNREFUSED:
		return "ECONNREFUSED";
	default:
		return "other";
	}
}

static int probe_blocked(int e)
{
	printf("attempt=%s result=blocked errno=%s (%d: %s)\n", probe_name, probe_errname(e), e, strerror(e));
	return 0;
}

static int probe_escaped(const char *what)
{
	printf("attempt=%s result=escaped %s\n", probe_name, what);
	return 1;
}

/* rc < 0 with errno set: blocked; else escaped. */
static int probe_check(long rc, const char *what)
{
	return rc < 0 ? probe_blocked(errno) : probe_escaped(what);
}

static int probe_socket(int domain, int type)
{
	return probe_check(socket(domain, type | SOCK_CLOEXEC, 0), "socket created");
}

/* A socket of the family, then a datagram towards a public address: the
 * empty network namespace has no route (when socket() is allowed at all). */
static int probe_inet(int domain)
{
	struct sockaddr_in in = {
	    .sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(0x01010101)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6,
				   .sin6_port = htons(53),
				   .sin6_addr = {{{0x20, 0x01, 0x48, 0x60, [15] = 0x88}}}};
	int fd = socket(domain, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return probe_blocked(errno);
	if (domain == AF_INET)
		return probe_check(connect(fd, (struct sockaddr *)&in, sizeof(in)), "route to the internet");
	return probe_check(connect(fd, (struct sockaddr *)&in6, sizeof(in6)), "route to the internet");
}

static int probe_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return probe_blocked(errno);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	return probe_check(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), "connected to the daemon");
}

static int probe_open(const char *path, int flags)
{
	return probe_check(open(path, flags | O_CLOEXEC, 0600), "opened");
}

/* Copy our own executable into dir and try to run it. */
static int probe_exec_copy(const char *dir)
{
	char path[256], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/copy", dir);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return 2;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0)
		return probe_blocked(errno); /* no writable place at all */
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return 2;
	close(in);
	close(out);
	{
		char *const argv[] = {path, "true", NULL};

		execve(path, argv, NULL);
		return probe_blocked(errno);
	}
}

static int probe_segment(const char *pid)
{
	char path[64];
	int fd, i;

	/* The daemon's descriptors: its memfds would be there. */
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		return probe_escaped("the daemon's fd directory opened");
	if (errno != ENOENT)
		return probe_blocked(errno);
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%d", pid, i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED)
			return probe_escaped("mapped a daemon fd");
	}
	return probe_blocked(ENOENT);
}

static int probe_pidfd_getfd(const char *pid)
{
	long pfd = syscall(SYS_pidfd_open, atoi(pid), 0);

	if (pfd < 0)
		return probe_blocked(errno);
	return probe_check(syscall(SYS_pidfd_getfd, (int)pfd, 3, 0), "took a daemon fd");
}

static int probe_bpf(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	return probe_check(syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a)), "bpf map created");
}

static int probe_perf(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.exclude_kernel = 1;
	return probe_check(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0), "perf event opened");
}

static int probe_vm_readv(const char *pid)
{
	char buf[16];
	struct iovec local = {buf, sizeof(buf)}, remote = {(void *)0x400000, sizeof(buf)};

	return probe_check(process_vm_readv(atoi(pid), &local, 1, &remote, 1, 0), "read another process");
}

static int probe_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return probe_blocked(errno);
	waitpid(pid, NULL, 0);
	return probe_escaped("forked");
}

/* Attest an identity ourselves on the handed-in control socket: the
 * supervisor must have used the first-message slot already. */
static int probe_attest(void)
{
#if !defined(PROBE_STATIC) && defined(SDDS__CTL__ATTEST__INIT)
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Attest at = SDDS__CTL__ATTEST__INIT;
	Sdds__Ctl__Reply *rep;
	const char *v = getenv("SDDS_CTL_FD");
	int fd = v ? atoi(v) : -1, rc, status;
	size_t n_fds = 0;
	int fds[CTL_MAX_FDS];

	if (fd < 0)
		return 2;
	at.identity = "trusted-by-everyone";
	req.id = 7;
	req.body_case = SDDS__CTL__REQUEST__BODY_ATTEST;
	req.attest = &at;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc == 0)
		rc = ctl_recv_reply(fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		return probe_blocked(-rc);
	status = rep->status;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return status < 0 ? probe_blocked(-status) : probe_escaped("attested an identity");
#else
	printf("attempt=%s result=untestable (no Attest in this protocol)\n", probe_name);
	return 3;
#endif
}

static int probe_wx(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? probe_blocked(errno) : probe_escaped("writable executable memory");
}

#ifndef PROBE_STATIC
/*
 * Our own Hello on the handed-in control socket: the daemon answers with
 * the segment memfd (fds[0]) and the kick eventfd. *ret_fd: the memfd.
 */
static int probe_hello_segment(int *ret_fd)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep;
	const char *v = getenv("SDDS_CTL_FD");
	int fd = v ? atoi(v) : -1, rc;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0, i;

	if (fd < 0)
		return -EBADF;
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = "wx-probe";
	req.id = 1;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc < 0)
		return rc;
	rc = ctl_recv_reply(fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		return rc;
	rc = rep->status < 0 ? rep->status : n_fds < 1 ? -EPROTO : 0;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	for (i = rc == 0 ? 1 : 0; i < n_fds; i++)
		close(fds[i]);
	if (rc == 0)
		*ret_fd = fds[0];
	return rc;
}

/* x86-64 "mov eax, 42; ret"; elsewhere the probe cannot write code. */
static const unsigned char probe_code[] = {0xb8, 42, 0, 0, 0, 0xc3};

/* Write code through w and run it through x: the escape itself. */
static int probe_run_alias(unsigned char *w, void *x)
{
	int (*fn)(void) = (int (*)(void))x;

	memcpy(w, probe_code, sizeof(probe_code));
	__builtin___clear_cache((char *)x, (char *)x + sizeof(probe_code));
	if (fn() != 42)
		return 2;
	return probe_escaped("ran code written through a writable alias of the segment");
}

/*
 * The segment memfd mapped read-write (MAP_SHARED, as the client does) and
 * a second time executable, in the way named by how:
 *   shared   MAP_SHARED PROT_READ|PROT_EXEC
 *   private  MAP_PRIVATE PROT_READ|PROT_EXEC (shows the file's pages
 *            until written itself)
 *   mprotect MAP_SHARED PROT_READ, then mprotect to add PROT_EXEC
 *   pkey     likewise with pkey_mprotect (pkey -1: no key)
 */
static int probe_wx_alias(const char *how)
{
	const size_t len = 4096;
	unsigned char *w;
	void *x;
	int fd, rc;

	if (!(sizeof(void *) == 8 && PROBE_X86_64))
		return 2;
	rc = probe_hello_segment(&fd);
	if (rc < 0) {
		fprintf(stderr, "escape-probe: hello: %s\n", strerror(-rc));
		return 2;
	}
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		return 2;
	if (strcmp(how, "shared") == 0 || strcmp(how, "private") == 0) {
		x = mmap(NULL, len, PROT_READ | PROT_EXEC, how[0] == 's' ? MAP_SHARED : MAP_PRIVATE, fd, 0);
		if (x == MAP_FAILED)
			return probe_blocked(errno);
		return probe_run_alias(w, x);
	}
	x = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (x == MAP_FAILED)
		return 2;
	if (strcmp(how, "mprotect") == 0)
		rc = mprotect(x, len, PROT_READ | PROT_EXEC);
	else
		rc = (int)syscall(SYS_pkey_mprotect, x, len, PROT_READ | PROT_EXEC, -1);
	if (rc < 0)
		return probe_blocked(errno);
	return probe_run_alias(w, x);
}
#endif

static void *probe_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/*
 * A private read-only executable mapping of our own (bound, read-only)
 * program file, once a second thread exists: allowed with one thread (the
 * loader does it), refused with two, since the fd could be swapped by the
 * other thread between the supervisor's check and the call.
 */
static int probe_exec_map_threaded(void)
{
	pthread_t t;
	void *x;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 2;
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (x == MAP_FAILED) {
		fprintf(stderr, "escape-probe: one thread: %s\n", strerror(errno));
		return 2;
	}
	munmap(x, 4096);
	if (pthread_create(&t, NULL, probe_idle, NULL) != 0)
		return 2;
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	return x == MAP_FAILED ? probe_blocked(errno) : probe_escaped("executable mapping with two threads");
}

/* Memory both writable and executable that we were born with (the
 * kernel's mapping of our ELF file or our stack). */
static int probe_wx_self(void)
{
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x') {
			fclose(f);
			return probe_escaped("writable and executable memory from execve");
		}
	fclose(f);
	return probe_blocked(EPERM);
}

static int probe_setns(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return probe_blocked(errno);
	return probe_check(setns(fd, CLONE_NEWNET), "setns");
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";

	probe_name = a;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The sandbox's report follows this line when it kills us. */
	printf("trying %s\n", a);
	if (strcmp(a, "true") == 0)
		return 0;
	if (strcmp(a, "pause") == 0) {
		printf("ready\n");
		pause();
		return 0;
	}
	if (strcmp(a, "inet") == 0)
		return probe_inet(AF_INET);
	if (strcmp(a, "inet6") == 0)
		return probe_inet(AF_INET6);
	if (strcmp(a, "packet") == 0)
		return probe_socket(AF_PACKET, SOCK_RAW);
	if (strcmp(a, "netlink") == 0)
		return probe_socket(AF_NETLINK, SOCK_RAW);
	if (strcmp(a, "unix") == 0)
		return probe_socket(AF_UNIX, SOCK_SEQPACKET);
	if (strcmp(a, "socketpair") == 0) {
		int sv[2];

		return probe_check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	}
	if (strcmp(a, "connect") == 0)
		return probe_connect(arg);
	if (strcmp(a, "open") == 0)
		return probe_open(arg, O_RDONLY);
	if (strcmp(a, "create") == 0)
		return probe_open(arg, O_WRONLY | O_CREAT);
	if (strcmp(a, "devshm") == 0)
		return probe_open("/dev/shm/sdds-escape", O_WRONLY | O_CREAT);
	if (strcmp(a, "ptrace") == 0)
		return probe_check(ptrace(PTRACE_ATTACH, atoi(arg), NULL, NULL), "ptrace attached");
	if (strcmp(a, "kill") == 0)
		return probe_check(kill(atoi(arg), 0), "may signal");
	if (strcmp(a, "exec-sh") == 0) {
		char *const sh[] = {"/bin/sh", "-c", "true", NULL};

		execve(sh[0], sh, NULL);
		return probe_blocked(errno);
	}
	if (strcmp(a, "execveat") == 0) {
		char *const sh[] = {"/bin/sh", "-c", "true", NULL};

		syscall(SYS_execveat, AT_FDCWD, sh[0], sh, NULL, 0);
		return probe_blocked(errno);
	}
	if (strcmp(a, "exec-copy") == 0)
		return probe_exec_copy(arg);
	if (strcmp(a, "segment") == 0)
		return probe_segment(arg);
	if (strcmp(a, "pidfd-getfd") == 0)
		return probe_pidfd_getfd(arg);
	if (strcmp(a, "memfd") == 0)
		return probe_check(memfd_create("x", MFD_CLOEXEC), "memfd created");
	if (strcmp(a, "mount") == 0)
		return probe_check(mount("none", "/", "tmpfs", 0, NULL), "mounted");
	if (strcmp(a, "unshare") == 0)
		return probe_check(unshare(CLONE_NEWUSER), "unshared");
	if (strcmp(a, "setns") == 0)
		return probe_setns();
	if (strcmp(a, "bpf") == 0)
		return probe_bpf();
	if (strcmp(a, "perf") == 0)
		return probe_perf();
	if (strcmp(a, "keyctl") == 0)
		return probe_check(syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0), "keyring");
	if (strcmp(a, "vm-readv") == 0)
		return probe_vm_readv(arg);
	if (strcmp(a, "fork") == 0)
		return probe_fork();
	if (strcmp(a, "attest") == 0)
		return probe_attest();
	if (strcmp(a, "wx-mmap") == 0)
		return probe_wx();
	if (strcmp(a, "wx-self") == 0)
		return probe_wx_self();
	if (strcmp(a, "exec-map-threaded") == 0)
		return probe_exec_map_threaded();
#ifndef PROBE_STATIC
	if (strcmp(a, "wx-alias") == 0)
		return probe_wx_alias(arg);
#endif
	fprintf(stderr, "escape-probe: unknown attempt '%s'\n", a);
	return 2;
}
