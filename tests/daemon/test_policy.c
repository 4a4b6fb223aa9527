/* SPDX-License-Identifier: MIT */
/*
 * test_policy.c - the access policy: the parser (syntax, errors with
 * FILE:LINE, caps), identities and their precedence, the decision (deny
 * wins, wildcards, ranges, default deny), peer facts from a fake /proc and
 * cgroup texts; then sddsd end to end: allow/deny by uid, exe, attested
 * name and systemd unit (a real cgroup under the system slice, when the
 * machine lets us make one), Attest refused from an untrusted uid and when
 * not first, SIGHUP reload (good, then malformed: the last good policy
 * stays and the log names FILE:LINE), denial counters in stats and in
 * sddsctl's output.
 *
 * Usage: test_policy PATH_TO_SDDSD [PATH_TO_EXAMPLE_POLICY [PATH_TO_SDDSCTL]]
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "config.h"
#include "layout.h"
#include "policy.h"
#include "tclient.h"

#define NOBODY 65534

static const char *sddsd_path;
static const char *example_path;
static const char *sddsctl_path;

/* ---------------- helpers ------------------------------------------------- */

static struct policy *parse_ok(const char *text)
{
	struct policy_error err;
	struct policy *p = NULL;
	int rc = policy_parse_text("t.conf", text, strlen(text), &p, &err);

	if (rc < 0)
		fail_msg("policy did not parse: %s", err.msg);
	return p;
}

/* Parse must fail; returns the message (static). */
static const char *parse_err(const char *text, int want_rc)
{
	static struct policy_error err;
	struct policy *p = (struct policy *)0x1;
	int rc = policy_parse_text("t.conf", text, strlen(text), &p, &err);

	assert_int_equal(rc, want_rc);
	assert_ptr_equal(p, (struct policy *)0x1); /* untouched on failure */
	return err.msg;
}

static struct policy_peer peer_of(uid_t uid, gid_t gid, const char *exe, const char *unit,
				  const char *attested)
{
	struct policy_peer p;

	memset(&p, 0, sizeof(p));
	p.pid = 1234;
	p.uid = uid;
	p.gid = gid;
	snprintf(p.exe, sizeof(p.exe), "%s", exe ? exe : "");
	snprintf(p.unit, sizeof(p.unit), "%s", unit ? unit : "");
	snprintf(p.attested, sizeof(p.attested), "%s", attested ? attested : "");
	return p;
}

static bool allowed(const struct policy *p, const struct policy_peer *peer, enum policy_op op, uint32_t d,
		    uint32_t t)
{
	struct policy_verdict v;

	assert_int_equal(policy_check(p, peer, op, d, t, &v), 0);
	return v.allowed;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ---------------- parser ------------------------------------------------- */

static void test_parse_syntax(void **state)
{
	struct policy *p;

	(void)state;
	p = parse_ok("# comment\n"
		     "\n"
		     "   identity cam unit=camera   # trailing comment\n"
		     "identity cam uid=1000\n"
		     "identity log exe=/usr/bin/logger\n"
		     "identity grp gid=27\r\n"
		     "identity full unit=other.service\n"
		     "allow cam write 1:10 1:11\n"
		     "allow * read *:*\n"
		     "deny\tlog\tread,write\t0-3:100-200\n"
		     "allow grp write,read 5:*");
	assert_int_equal(policy_n_identities(p), 5);
	assert_int_equal(policy_n_rules(p), 5);
	policy_free(p);

	/* Empty and comment-only texts are valid: nothing is allowed then. */
	p = parse_ok("");
	assert_int_equal(policy_n_rules(p), 0);
	policy_free(p);
	policy_free(NULL);
}

static void test_parse_errors(void **state)
{
	(void)state;
	assert_string_equal(parse_err("allow a read 1:1\nbogus x\n", -EINVAL),
			    "t.conf:2: unknown statement 'bogus' (identity, allow or deny)");
	assert_non_null(strstr(parse_err("identity a\n", -EINVAL), "t.conf:1: expected 'identity NAME"));
	assert_non_null(
	    strstr(parse_err("\n\nidentity a uid=x\n", -EINVAL), "t.conf:3: 'x' is not a numeric uid"));
	assert_non_null(strstr(parse_err("identity a uid=4294967295\n", -EINVAL), "t.conf:1:"));
	assert_non_null(strstr(parse_err("identity a foo=1\n", -EINVAL), "unknown selector 'foo'"));
	assert_non_null(strstr(parse_err("identity a exe=relative\n", -EINVAL), "absolute path"));
	assert_non_null(strstr(parse_err("identity a unit=a/b\n", -EINVAL), "not a unit name"));
	assert_non_null(strstr(parse_err("identity * uid=1\n", -EINVAL), "not an identity name"));
	assert_non_null(strstr(parse_err("identity a b c uid=1\n", -EINVAL), "t.conf:1:"));
	assert_non_null(strstr(parse_err("allow a read\n", -EINVAL), "expected 'allow NAME|*"));
	assert_non_null(strstr(parse_err("allow a exec 1:1\n", -EINVAL), "not read, write or read,write"));
	assert_non_null(strstr(parse_err("allow a read 1\n", -EINVAL), "is not DOMAIN:TOPIC"));
	assert_non_null(strstr(parse_err("allow a read 1:5-4\n", -EINVAL), "N <= M"));
	assert_non_null(strstr(parse_err("allow a read 1:-4\n", -EINVAL), "not DOMAIN:TOPIC"));
	assert_non_null(strstr(parse_err("allow a read 4294967296:1\n", -EINVAL), "not DOMAIN:TOPIC"));
	assert_non_null(strstr(parse_err("deny a/b read 1:1\n", -EINVAL), "not an identity name or '*'"));
	assert_non_null(strstr(parse_err("allow a read 1:1\x01\n", -EINVAL), "control character"));
	{
		const char nul[] = "allow a read 1:1\n\0";

		struct policy_error err;
		struct policy *p = NULL;

		assert_int_equal(policy_parse_text("n", nul, sizeof(nul) - 1, &p, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "n:2:"));
	}
}

static void test_parse_caps(void **state)
{
	struct policy_error err;
	struct policy *p = NULL;
	size_t len = POLICY_FILE_MAX + 1;
	char *big = malloc(len), *rules;
	size_t n = 0;

	(void)state;
	assert_non_null(big);
	memset(big, '\n', len);
	assert_int_equal(policy_parse_text("big", big, len, &p, &err), -EFBIG);
	free(big);

	/* One line with more topics than the rule table holds. */
	rules = malloc(16 * (POLICY_MAX_RULES + 2));
	assert_non_null(rules);
	n += (size_t)sprintf(rules + n, "allow a read");
	for (int line = 0; line < POLICY_MAX_RULES / 200 + 1; line++) {
		for (int i = 0; i < 200; i++)
			n += (size_t)sprintf(rules + n, " 1:%d", i);
		n += (size_t)sprintf(rules + n, "\nallow a read");
	}
	n += (size_t)sprintf(rules + n, " 1:1\n");
	assert_int_equal(policy_parse_text("many", rules, n, &p, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "more than"));
	free(rules);
}

static void test_load_file(void **state)
{
	char dir[] = "/tmp/policy-test.XXXXXX", path[64];
	struct policy_error err;
	struct policy *p = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.conf", dir);
	assert_int_equal(policy_load_file(path, &p, &err), -ENOENT);
	assert_non_null(strstr(err.msg, path));
	write_file(path, "allow * read 1:1\nallow x wrote 1:1\n");
	assert_int_equal(policy_load_file(path, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":2: 'wrote'"));
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	write_file(path, "allow * read 1:1\n");
	assert_int_equal(policy_load_file(path, &p, &err), 0);
	assert_int_equal(policy_n_rules(p), 1);
	policy_free(p);
	unlink(path);
	rmdir(dir);
}

/* The example shipped in systemd/ parses, and means what its comments say. */
static void test_example_policy(void **state)
{
	struct policy_error err;
	struct policy *p = NULL;
	struct policy_peer op = peer_of(1000, 1000, NULL, NULL, NULL);
	struct policy_peer cam = peer_of(0, 0, NULL, "sdds-app@camera.service", NULL);

	(void)state;
	if (example_path == NULL)
		skip();
	if (policy_load_file(example_path, &p, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(allowed(p, &cam, POLICY_WRITE, 1, 10));
	assert_false(allowed(p, &cam, POLICY_WRITE, 1, 20));
	assert_true(allowed(p, &op, POLICY_READ, 1, 29));
	assert_false(allowed(p, &op, POLICY_WRITE, 1, 29));
	assert_true(allowed(p, &op, POLICY_WRITE, 1, 28));
	policy_free(p);
}

/* ---------------- identity and decision ---------------------------------- */

static void test_identity_precedence(void **state)
{
	struct policy *p = parse_ok("identity by_gid gid=100\n"
				    "identity by_uid uid=1000\n"
				    "identity by_uid2 uid=1000\n"
				    "identity by_exe exe=/usr/bin/app\n"
				    "identity by_unit unit=cam\n"
				    "identity by_full unit=other.service\n");
	struct policy_peer a;

	(void)state;
	a = peer_of(1000, 100, "/usr/bin/app", "sdds-app@cam.service", NULL);
	assert_string_equal(policy_identity(p, &a), "by_unit");
	a = peer_of(1000, 100, "/usr/bin/app", "sdds-app@dog.service", NULL);
	assert_string_equal(policy_identity(p, &a), "by_exe");
	a = peer_of(1000, 100, "/usr/bin/other", NULL, NULL);
	assert_string_equal(policy_identity(p, &a), "by_uid"); /* first in file order */
	a = peer_of(1001, 100, NULL, NULL, NULL);
	assert_string_equal(policy_identity(p, &a), "by_gid");
	a = peer_of(1001, 101, NULL, "other.service", NULL);
	assert_string_equal(policy_identity(p, &a), "by_full");
	a = peer_of(1001, 101, NULL, NULL, NULL);
	assert_null(policy_identity(p, &a));
	/* An attested name beats everything, known to the file or not. */
	a = peer_of(1000, 100, "/usr/bin/app", "sdds-app@cam.service", "nav");
	assert_string_equal(policy_identity(p, &a), "nav");
	assert_string_equal(policy_identity(NULL, &a), "nav");
	a = peer_of(1000, 100, NULL, NULL, NULL);
	assert_null(policy_identity(NULL, &a));
	policy_free(p);
}

static void test_decision(void **state)
{
	struct policy *p = parse_ok("identity cam uid=1000\n"
				    "identity log uid=1001\n"
				    "allow cam write 1:10-12 2:*\n"
				    "allow cam read 1:20\n"
				    "allow log read *:*\n"
				    "deny log read 7:7\n"
				    "allow * read 0:1\n"
				    "deny * write 2:99\n");
	struct policy_peer cam = peer_of(1000, 0, NULL, NULL, NULL);
	struct policy_peer log = peer_of(1001, 0, NULL, NULL, NULL);
	struct policy_peer anon = peer_of(2000, 0, NULL, NULL, NULL);
	struct policy_verdict v;

	(void)state;
	assert_true(allowed(p, &cam, POLICY_WRITE, 1, 10));
	assert_true(allowed(p, &cam, POLICY_WRITE, 1, 12));
	assert_false(allowed(p, &cam, POLICY_WRITE, 1, 13));
	assert_false(allowed(p, &cam, POLICY_READ, 1, 10)); /* write only */
	assert_true(allowed(p, &cam, POLICY_READ, 1, 20));
	assert_true(allowed(p, &cam, POLICY_WRITE, 2, 0));
	assert_true(allowed(p, &cam, POLICY_WRITE, 2, UINT32_MAX));
	assert_false(allowed(p, &cam, POLICY_WRITE, 2, 99)); /* the `*` deny wins */
	assert_true(allowed(p, &cam, POLICY_READ, 0, 1));    /* the `*` allow */
	assert_true(allowed(p, &log, POLICY_READ, 9, 9));
	assert_false(allowed(p, &log, POLICY_READ, 7, 7)); /* deny after allow still wins */
	assert_false(allowed(p, &log, POLICY_WRITE, 9, 9));
	assert_true(allowed(p, &anon, POLICY_READ, 0, 1));
	assert_false(allowed(p, &anon, POLICY_READ, 0, 2)); /* default deny */

	assert_int_equal(policy_check(p, &log, POLICY_READ, 7, 7, &v), 0);
	assert_false(v.allowed);
	assert_int_equal(v.line, 6);
	assert_string_equal(v.identity, "log");
	assert_int_equal(policy_check(p, &anon, POLICY_WRITE, 3, 3, &v), 0);
	assert_int_equal(v.line, 0);
	assert_null(v.identity);
	assert_int_equal(policy_check(p, &cam, POLICY_READ, 1, 20, &v), 0);
	assert_int_equal(v.line, 4);
	assert_int_equal(policy_check(p, &cam, (enum policy_op)3, 1, 20, &v), -EINVAL);

	/* Without a policy everything is allowed. */
	assert_true(allowed(NULL, &anon, POLICY_WRITE, 5, 5));
	policy_free(p);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(policy_name_valid("a", 1));
	assert_true(policy_name_valid("cam-1.x_y:z@q", 13));
	assert_false(policy_name_valid("", 0));
	assert_false(policy_name_valid("a b", 3));
	assert_false(policy_name_valid("*", 1));
	assert_false(policy_name_valid("a\n", 2));
	{
		char longname[POLICY_NAME_MAX + 1];

		memset(longname, 'a', sizeof(longname));
		assert_true(policy_name_valid(longname, POLICY_NAME_MAX - 1));
		assert_false(policy_name_valid(longname, POLICY_NAME_MAX));
	}
}

/* ---------------- peer facts --------------------------------------------- */

static int unit_of(const char *text, char *unit)
{
	return policy_unit_from_cgroup(text, strlen(text), unit, POLICY_UNIT_MAX);
}

static void test_cgroup_units(void **state)
{
	char unit[POLICY_UNIT_MAX];

	(void)state;
	assert_int_equal(unit_of("0::/system.slice/sdds-app@cam.service\n", unit), 0);
	assert_string_equal(unit, "sdds-app@cam.service");
	/* v2 line preferred; a sub-cgroup of the unit still counts. */
	assert_int_equal(unit_of("1:name=systemd:/system.slice/a.service\n"
				 "0::/system.slice/b.service/payload\n",
				 unit),
			 0);
	assert_string_equal(unit, "b.service");
	/* v1 name=systemd when the v2 line has no unit. */
	assert_int_equal(unit_of("9:name=systemd:/system.slice/sdds-app@x.service\n0::/\n", unit), 0);
	assert_string_equal(unit, "sdds-app@x.service");
	/* Outside the system slice (a user's delegated subtree): not trusted. */
	assert_int_equal(unit_of("0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
				 "sdds-app@cam.service\n",
				 unit),
			 -ENOENT);
	assert_int_equal(unit_of("0::/system.slice\n", unit), -ENOENT);
	assert_int_equal(unit_of("0::/system.slice/\n", unit), -ENOENT);
	assert_int_equal(unit_of("0::/system.slice/foo.scope\n", unit), -ENOENT);
	/* Template instances live in a slice of their own (systemd >= 239). */
	assert_int_equal(unit_of("0::/system.slice/system-sdds\\x2dapp.slice/sdds-app@temp.service\n", unit),
			 0);
	assert_string_equal(unit, "sdds-app@temp.service");
	assert_int_equal(unit_of("0::/system.slice/a.slice/b.slice/c.service/sub\n", unit), 0);
	assert_string_equal(unit, "c.service");
	assert_int_equal(unit_of("0::/system.slice/system-x.slice\n", unit), -ENOENT);
	assert_int_equal(unit_of("0::/system.slice/system-x.slice/\n", unit), -ENOENT);
	/* A delegated service's sub-cgroups come after it: the service counts. */
	assert_int_equal(unit_of("0::/system.slice/docker.service/sdds-app@cam.service\n", unit), 0);
	assert_string_equal(unit, "docker.service");
	assert_int_equal(unit_of("0::/system.slice/a b.service\n", unit), -ENOENT);
	assert_int_equal(unit_of("garbage", unit), -ENOENT);
	assert_int_equal(unit_of("", unit), -ENOENT);
	assert_int_equal(policy_unit_from_cgroup("0::/system.slice/long.service", 29, unit, 4),
			 -ENAMETOOLONG);
}

static void test_peer_probe_fake_proc(void **state)
{
	char dir[] = "/tmp/policy-proc.XXXXXX", p[128];
	struct policy_peer peer;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/42", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/42/exe", dir);
	assert_int_equal(symlink("/opt/vendor/bin/cam", p), 0);
	snprintf(p, sizeof(p), "%s/42/cgroup", dir);
	write_file(p, "1:name=systemd:/\n0::/system.slice/sdds-app@cam.service\n");
	assert_int_equal(policy_peer_probe(&peer, 42, 7, 8, -1, dir), 0);
	assert_int_equal(peer.pid, 42);
	assert_int_equal(peer.uid, 7);
	assert_int_equal(peer.gid, 8);
	assert_string_equal(peer.exe, "/opt/vendor/bin/cam");
	assert_string_equal(peer.unit, "sdds-app@cam.service");
	assert_string_equal(peer.attested, "");
	/* A process we know nothing of: only the credentials. */
	assert_int_equal(policy_peer_probe(&peer, 43, 7, 8, -1, dir), 0);
	assert_string_equal(peer.exe, "");
	assert_string_equal(peer.unit, "");
	unlink(p);
	snprintf(p, sizeof(p), "%s/42/exe", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/42", dir);
	rmdir(p);
	rmdir(dir);
}

/* Write a fake /proc/PID with an exe link and a cgroup file under dir. */
static void fake_proc(const char *dir, pid_t pid, bool make)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/%d/exe", dir, (int)pid);
	if (!make) {
		unlink(p);
		snprintf(p, sizeof(p), "%s/%d/cgroup", dir, (int)pid);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%d", dir, (int)pid);
		rmdir(p);
		return;
	}
	snprintf(p, sizeof(p), "%s/%d", dir, (int)pid);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/%d/exe", dir, (int)pid);
	assert_int_equal(symlink("/usr/bin/x", p), 0);
	snprintf(p, sizeof(p), "%s/%d/cgroup", dir, (int)pid);
	write_file(p, "0::/system.slice/x.service\n");
}

/*
 * A pidfd pins the peer: facts read while it lives count, facts read under
 * the pid of a process that is gone (the pid may be someone else's) do not.
 */
static void test_peer_probe_pidfd(void **state)
{
	char dir[] = "/tmp/policy-pidfd.XXXXXX";
	struct policy_peer peer;
	int pidfd, st;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0) {
		rmdir(dir);
		skip(); /* kernel older than 5.3 */
	}
	fake_proc(dir, getpid(), true);
	assert_int_equal(policy_peer_probe(&peer, getpid(), 1, 1, pidfd, dir), 0);
	assert_string_equal(peer.exe, "/usr/bin/x");
	assert_string_equal(peer.unit, "x.service");
	close(pidfd);
	fake_proc(dir, getpid(), false);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	assert_true(pidfd >= 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	fake_proc(dir, pid, true);
	assert_int_equal(policy_peer_probe(&peer, pid, 1, 1, pidfd, dir), 0);
	assert_string_equal(peer.exe, "");
	assert_string_equal(peer.unit, "");
	assert_int_equal(peer.uid, 1); /* the credentials stay: the kernel recorded them */
	close(pidfd);
	fake_proc(dir, pid, false);

	/*
	 * A daemon that may not signal its peer (another uid, as sddsd under
	 * DynamicUser= with root clients): the peer is alive, the facts count.
	 */
	if (geteuid() == 0) {
		assert_int_equal(chmod(dir, 0755), 0);
		fake_proc(dir, getpid(), true);
		pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		assert_true(pidfd >= 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
				_exit(2);
			if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno != EPERM)
				_exit(3);
			policy_peer_probe(&peer, getppid(), 0, 0, pidfd, dir);
			_exit(strcmp(peer.exe, "/usr/bin/x") == 0 && strcmp(peer.unit, "x.service") == 0 ? 0
													 : 4);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
		close(pidfd);
		fake_proc(dir, getpid(), false);
	}
	rmdir(dir);
}

static void test_denials_ring(void **state)
{
	struct policy_denials d;
	struct policy_denial x = {0};

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_null(policy_denials_get(&d, 0));
	for (uint32_t i = 1; i <= POLICY_DENIALS_MAX + 3; i++) {
		x.topic_id = i;
		policy_denials_push(&d, &x);
	}
	assert_int_equal(policy_denials_get(&d, 0)->topic_id, POLICY_DENIALS_MAX + 3);
	assert_int_equal(policy_denials_get(&d, POLICY_DENIALS_MAX - 1)->topic_id, 4);
	assert_null(policy_denials_get(&d, POLICY_DENIALS_MAX));
}

/* ---------------- the config keys of the policy work ---------------------- */

static void test_config_keys(void **state)
{
	struct sddsd_config cfg, back;
	struct config_error err;
	char text[2048], *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f;

	(void)state;
	config_init(&cfg);
	assert_string_equal(cfg.policy, "");
	assert_int_equal(cfg.n_attest_uids, 0);
	snprintf(text, sizeof(text),
		 "policy = /etc/sdds/policy.conf\nattest_uid = 1000\nattest_uid = 7\nattest_uid = 1000\n");
	assert_int_equal(config_parse_text(&cfg, "c.conf", text, strlen(text), &err), 0);
	assert_string_equal(cfg.policy, "/etc/sdds/policy.conf");
	assert_int_equal(cfg.n_attest_uids, 2); /* repeated values count once */
	assert_int_equal(cfg.attest_uids[0], 1000);
	assert_int_equal(cfg.attest_uids[1], 7);
	/* Printed, the config reads back the same. */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	config_print(&cfg, f);
	fclose(f);
	config_init(&back);
	assert_int_equal(config_parse_text(&back, "printed", buf, len, &err), 0);
	/* The printed file sets (nearly) every key: compare the values, not the given mask. */
	back.given = cfg.given;
	assert_memory_equal(&back, &cfg, sizeof(cfg));
	free(buf);
	/* Errors: a name, the cap, a second policy line. */
	assert_int_equal(config_set(&cfg, "--x", "attest_uid", "root", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a numeric uid"));
	for (int i = 0; i <= CONFIG_ATTEST_UIDS_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "attest_uid = %d\n", 100 + i);
	config_init(&cfg);
	assert_int_equal(config_parse_text(&cfg, "c.conf", text, n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "c.conf:17: attest_uid: more than 16 uids"));
	snprintf(text, sizeof(text), "policy = /a\npolicy = /b\n");
	assert_int_equal(config_parse_text(&cfg, "c.conf", text, strlen(text), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "duplicate key 'policy'"));
}

/* ---------------- sddsd end to end --------------------------------------- */

struct env {
	char dir[64];
	char policy[96];
	char log[96];
	struct tc_daemon d;
};

/*
 * Start sddsd with a policy text and extra config; its stderr goes to
 * e->log. The daemon's directory is opened to other users (nobody tests).
 */
static int env_start(struct env *e, const char *policy_text, const char *config)
{
	const char *extra[] = {"--policy", e->policy, NULL};
	int saved, fd, rc;

	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/policy-e2e.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	assert_int_equal(chmod(e->dir, 0755), 0);
	snprintf(e->policy, sizeof(e->policy), "%s/policy.conf", e->dir);
	snprintf(e->log, sizeof(e->log), "%s/sddsd.log", e->dir);
	write_file(e->policy, policy_text);
	fd = open(e->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	rc = tc_daemon_start(&e->d, sddsd_path, extra, config);
	dup2(saved, 2);
	close(saved);
	close(fd);
	if (rc == 0)
		chmod(e->d.dir, 0755);
	return rc;
}

static void env_stop(struct env *e)
{
	int st = tc_daemon_stop(&e->d);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("sddsd did not exit cleanly: status 0x%x", st);
	unlink(e->policy);
	unlink(e->log);
	rmdir(e->dir);
}

static bool log_has(const struct env *e, const char *needle)
{
	char buf[16384];
	FILE *f = fopen(e->log, "r");
	size_t n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Member key of JSON object o as text ("2", "true", "r"); "" when absent. */
static const char *json_member_text(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *text;

	if (!json_object_object_get_ex(o, key, &v))
		return "";
	text = json_object_get_string(v);
	return text != NULL ? text : "";
}

/* An element of array key of o whose members k1 and k2 have the texts v1 and v2. */
static bool json_array_has(struct json_object *o, const char *key, const char *k1, const char *v1,
			   const char *k2, const char *v2)
{
	struct json_object *a;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *el = json_object_array_get_idx(a, i);

		if (strcmp(json_member_text(el, k1), v1) == 0 && strcmp(json_member_text(el, k2), v2) == 0)
			return true;
	}
	return false;
}

/*
 * `sddsctl --json stats` in path, parsed: the policy is loaded with 2
 * denials, the client of identity r was denied twice, and the newest
 * denial, listed first, is the reader of 1:6.
 */
static void ctl_json_check(const char *path)
{
	struct json_object *doc = json_object_from_file(path), *policy, *denial;

	if (doc == NULL)
		fail_msg("sddsctl --json stats did not print JSON: %s", json_util_get_last_err());
	assert_true(json_object_object_get_ex(doc, "policy", &policy));
	assert_string_equal(json_member_text(policy, "loaded"), "true");
	assert_string_equal(json_member_text(policy, "denied"), "2");
	assert_true(json_array_has(doc, "clients", "identity", "r", "denied", "2"));
	assert_true(json_object_object_get_ex(doc, "denials", &denial));
	denial = json_object_array_get_idx(denial, 0);
	assert_string_equal(json_member_text(denial, "domain"), "1");
	assert_string_equal(json_member_text(denial, "topic_id"), "6");
	json_object_put(doc);
}

/* Register (domain, id) and try to create a writer or a reader on it. */
static int try_endpoint(struct tc_client *c, uint32_t domain, uint32_t topic_id, bool reader)
{
	uint32_t th = 0, id = 0;
	int rc = tc_register_topic(c, domain, topic_id, "t", 8, &th);

	if (rc < 0)
		return rc;
	return reader ? tc_create_reader(c, th, false, 4, &id, NULL) : tc_create_writer(c, th, false, 0, &id);
}

/* Like try_endpoint, but the reply's reason is returned too (caller frees). */
static int try_writer_reason(struct tc_client *c, uint32_t domain, uint32_t topic_id, char **ret_reason)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateWriter cw = SDDS__CTL__CREATE_WRITER__INIT;
	Sdds__Ctl__Qos qos = SDDS__CTL__QOS__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	uint32_t th = 0;
	int rc = tc_register_topic(c, domain, topic_id, "named_topic", 8, &th);

	if (rc < 0)
		return rc;
	cw.topic_handle = th;
	cw.qos = &qos;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_WRITER;
	req.create_writer = &cw;
	rc = tc_call(c, &req, &rep);
	if (rc < 0)
		return rc;
	rc = rep->status;
	*ret_reason = strdup(rep->reason != NULL ? rep->reason : "");
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

/* Connect; send Attest (name) first if given; then Hello. Returns Attest's status. */
static int open_attested(struct tc_client *c, const char *sock, const char *name, bool attest_twice)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Attest at = SDDS__CTL__ATTEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0;
	int status, rc;

	memset(c, 0, sizeof(*c));
	c->efd = -1;
	c->seg.fd = -1;
	c->fd = tc_connect(sock);
	assert_true(c->fd >= 0);
	at.identity = (char *)name;
	req.body_case = SDDS__CTL__REQUEST__BODY_ATTEST;
	req.attest = &at;
	assert_int_equal(tc_call(c, &req, &rep), 0);
	status = rep->status;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	if (attest_twice) {
		assert_int_equal(tc_call(c, &req, &rep), 0);
		status = rep->status;
		sdds__ctl__reply__free_unpacked(rep, NULL);
	}
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = "attested";
	req.id = ++c->next_id;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	assert_int_equal(ctl_send_request(c->fd, &req, NULL, 0), 0);
	rc = ctl_recv_reply(c->fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	assert_int_equal(rc, 0);
	assert_int_equal(rep->status, 0);
	assert_int_equal(n_fds, 2);
	c->session_id = rep->hello->session_id;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* Readers need the segment: their rings live in it. */
	c->efd = fds[1];
	assert_int_equal(segment_attach(fds[0], &c->seg), 0);
	c->attached = true;
	return status;
}

/* Stats as root (the test runs as root or the daemon's uid). */
static Sdds__Ctl__Reply *stats_of(const char *sock)
{
	struct tc_client obs;
	Sdds__Ctl__Reply *rep = NULL;

	assert_int_equal(tc_client_open(&obs, sock, "observer"), 0);
	assert_int_equal(tc_stats(&obs, &rep), 0);
	tc_client_close(&obs);
	return rep;
}

static const Sdds__Ctl__ClientInfo *client_by_session(const Sdds__Ctl__Stats *st, uint32_t id)
{
	for (size_t i = 0; i < st->n_clients; i++) {
		if (st->clients[i]->session_id == id)
			return st->clients[i];
	}
	return NULL;
}

/* Run fn in a child as uid/gid NOBODY; returns its exit code (77: could not switch). */
static int as_nobody(int (*fn)(const char *sock), const char *sock)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
			_exit(77);
		_exit(fn(sock));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_e2e_no_policy(void **state)
{
	struct tc_daemon d;
	struct tc_client c;
	Sdds__Ctl__Reply *rep;

	(void)state;
	assert_int_equal(tc_daemon_start(&d, sddsd_path, NULL, NULL), 0);
	assert_int_equal(tc_client_open(&c, d.sock, "open"), 0);
	assert_int_equal(try_endpoint(&c, 3, 3, false), 0);
	assert_int_equal(try_endpoint(&c, 4, 4, true), 0);
	rep = stats_of(d.sock);
	assert_false(rep->stats->policy_loaded);
	assert_int_equal(rep->stats->policy_denied, 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	tc_client_close(&c);
	assert_int_equal(tc_daemon_stop(&d), 0);
}

static void test_e2e_bad_policy_at_start(void **state)
{
	char cmd[512];
	struct env e;
	int st;

	(void)state;
	assert_int_equal(env_start(&e, "allow x read 1:1\nallow y maybe 1:1\n", NULL), -ECHILD);
	assert_true(log_has(&e, "policy.conf:2: 'maybe'"));
	/* --check-config reads the policy too: exit 1 and FILE:LINE. */
	snprintf(cmd, sizeof(cmd), "'%s' --check-config --policy '%s' >/dev/null 2>'%s'", sddsd_path,
		 e.policy, e.log);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	assert_true(log_has(&e, "policy.conf:2: 'maybe'"));
	write_file(e.policy, "allow x read 1:1\n");
	snprintf(cmd, sizeof(cmd), "'%s' --check-config --policy '%s' >'%s' 2>&1", sddsd_path, e.policy,
		 e.log);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(log_has(&e, "policy = "));
	unlink(e.policy);
	unlink(e.log);
	rmdir(e.dir);
}

static int nobody_client(const char *sock)
{
	struct tc_client c;
	int rc;

	if (tc_client_open(&c, sock, "nobody") < 0)
		return 10;
	rc = try_endpoint(&c, 1, 1, false) == 0 ? 0 : 11;
	if (rc == 0 && try_endpoint(&c, 1, 2, false) != -EACCES)
		rc = 12;
	if (rc == 0 && try_endpoint(&c, 1, 1, true) != -EACCES)
		rc = 13;
	tc_client_close(&c);
	return rc;
}

static void test_e2e_uid(void **state)
{
	struct tc_client c;
	struct env e;
	char *reason = NULL;
	int rc;

	(void)state;
	assert_int_equal(env_start(&e,
				   "identity root uid=0\n"
				   "identity nob uid=65534\n"
				   "allow root read,write 2:*\n"
				   "allow nob write 1:1\n",
				   NULL),
			 0);
	assert_int_equal(tc_client_open(&c, e.d.sock, "root-client"), 0);
	assert_int_equal(try_endpoint(&c, 2, 5, false), 0);
	assert_int_equal(try_endpoint(&c, 2, 6, true), 0);
	assert_int_equal(try_writer_reason(&c, 9, 9, &reason), -EACCES);
	/* The reason names the identity and the topic. */
	assert_non_null(strstr(reason, "identity 'root'"));
	assert_non_null(strstr(reason, "may not write topic 9:9 'named_topic'"));
	free(reason);
	tc_client_close(&c);
	if (geteuid() == 0) {
		rc = as_nobody(nobody_client, e.d.sock);
		assert_int_equal(rc, 0);
	}
	env_stop(&e);
}

static void test_e2e_exe(void **state)
{
	char self[POLICY_EXE_MAX], text[1024];
	struct tc_client c;
	struct env e;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	snprintf(text, sizeof(text),
		 "identity me exe=%s\n"
		 "identity other exe=/nonexistent/bin/x\n"
		 "identity fallback uid=0\n"
		 "allow me write 1:1\n"
		 "allow other write 1:2\n"
		 "allow fallback write 1:3\n",
		 self);
	assert_int_equal(env_start(&e, text, NULL), 0);
	assert_int_equal(tc_client_open(&c, e.d.sock, "exe"), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), 0);
	assert_int_equal(try_endpoint(&c, 1, 2, false), -EACCES);
	/* exe= beats uid=: the uid identity's rule does not apply. */
	assert_int_equal(try_endpoint(&c, 1, 3, false), -EACCES);
	tc_client_close(&c);
	env_stop(&e);
}

static int nobody_attest(const char *sock)
{
	struct tc_client c;
	int rc = 0;

	/* Refused: nobody is not trusted; the session stays un-attested. */
	if (open_attested(&c, sock, "cam", false) != -EPERM)
		rc = 20;
	if (rc == 0 && try_endpoint(&c, 1, 1, false) != -EACCES)
		rc = 21;
	tc_client_close(&c);
	return rc;
}

static int nobody_attest_trusted(const char *sock)
{
	struct tc_client c;
	int rc = 0;

	if (open_attested(&c, sock, "cam", false) != 0)
		rc = 30;
	if (rc == 0 && try_endpoint(&c, 1, 1, false) != 0)
		rc = 31;
	tc_client_close(&c);
	return rc;
}

static void test_e2e_attest(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Attest at = SDDS__CTL__ATTEST__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	const Sdds__Ctl__ClientInfo *ci;
	struct tc_client c;
	struct env e;
	int rc;

	(void)state;
	assert_int_equal(env_start(&e,
				   "identity cam uid=4242\n"
				   "allow cam write 1:1\n"
				   "allow nav read 1:1\n",
				   geteuid() == 0 ? "attest_uid = 4243\n" : NULL),
			 0);
	/* Root attests "nav": its rules apply, the credentials' do not. */
	assert_int_equal(open_attested(&c, e.d.sock, "nav", false), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, true), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), -EACCES);
	rep = stats_of(e.d.sock);
	ci = client_by_session(rep->stats, c.session_id);
	assert_non_null(ci);
	assert_string_equal(ci->identity, "nav");
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* Attest after Hello: refused, the session goes on. */
	at.identity = "cam";
	req.body_case = SDDS__CTL__REQUEST__BODY_ATTEST;
	req.attest = &at;
	assert_int_equal(tc_call(&c, &req, &rep), 0);
	assert_int_equal(rep->status, -EPERM);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_int_equal(try_endpoint(&c, 1, 1, false), -EACCES);
	tc_client_close(&c);

	/* A second Attest before Hello: refused, the first one stays. */
	assert_int_equal(open_attested(&c, e.d.sock, "cam", true), -EPERM);
	assert_int_equal(try_endpoint(&c, 1, 1, false), 0);
	tc_client_close(&c);

	/* A name that is not an identity name. */
	assert_int_equal(open_attested(&c, e.d.sock, "bad name", false), -EINVAL);
	tc_client_close(&c);

	if (geteuid() == 0) {
		rc = as_nobody(nobody_attest, e.d.sock);
		assert_int_equal(rc, 0);
	}
	env_stop(&e);

	/* attest_uid makes an ordinary uid a trusted launcher. */
	if (geteuid() == 0) {
		assert_int_equal(
		    env_start(&e, "allow cam write 1:1\n", "attest_uid = 1\nattest_uid = 65534\n"), 0);
		rc = as_nobody(nobody_attest_trusted, e.d.sock);
		assert_int_equal(rc, 0);
		env_stop(&e);
	}
}

/* The cgroup v2 mount, if the machine has one we may write. */
static int cgroup2_root(char *buf, size_t cap)
{
	char line[512], dev[128], mnt[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int rc = -ENOENT;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%127s %255s %63s", dev, mnt, type) == 3 && strcmp(type, "cgroup2") == 0) {
			snprintf(buf, cap, "%s", mnt);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int unit_child(const char *sock)
{
	struct tc_client c;
	int rc;

	if (tc_client_open(&c, sock, "unit") < 0)
		return 40;
	rc = try_endpoint(&c, 1, 1, false) == 0 ? 0 : 41;
	if (rc == 0 && try_endpoint(&c, 1, 2, false) != -EACCES)
		rc = 42;
	tc_client_close(&c);
	return rc;
}

static void test_e2e_unit(void **state)
{
	char root[256], slice[300], cg[400], procs[450], pidtxt[96];
	bool made_slice = false;
	struct tc_client c;
	struct env e;
	pid_t pid;
	int st, fd;

	(void)state;
	if (geteuid() != 0 || cgroup2_root(root, sizeof(root)) < 0)
		skip();
	snprintf(slice, sizeof(slice), "%s/system.slice", root);
	if (mkdir(slice, 0755) == 0)
		made_slice = true;
	else if (errno != EEXIST)
		skip();
	snprintf(cg, sizeof(cg), "%s/sdds-app@ptest%d.service", slice, (int)getpid());
	if (mkdir(cg, 0755) < 0) {
		if (made_slice)
			rmdir(slice);
		skip();
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(pidtxt, sizeof(pidtxt), "identity u unit=ptest%d\nallow u write 1:1\n", (int)getpid());
	assert_int_equal(env_start(&e, pidtxt, NULL), 0);

	/* The same process outside the unit: no identity, denied. */
	assert_int_equal(tc_client_open(&c, e.d.sock, "outside"), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), -EACCES);
	tc_client_close(&c);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char me[32];
		int n = snprintf(me, sizeof(me), "%d\n", (int)getpid());

		fd = open(procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, me, (size_t)n) != n)
			_exit(77);
		close(fd);
		_exit(unit_child(e.d.sock));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	env_stop(&e);
	rmdir(cg);
	if (made_slice)
		rmdir(slice);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Wait until the daemon counted `want` reloads or failures (SIGHUP is asynchronous). */
static Sdds__Ctl__Reply *wait_reload(const char *sock, uint64_t reloads, uint64_t failures)
{
	for (int i = 0; i < 500; i++) {
		Sdds__Ctl__Reply *rep = stats_of(sock);

		if (rep->stats->policy_reloads == reloads && rep->stats->policy_reload_failures == failures)
			return rep;
		sdds__ctl__reply__free_unpacked(rep, NULL);
		tc_sleep_ms(10);
	}
	fail_msg("the daemon did not count reload %" PRIu64 "/%" PRIu64, reloads, failures);
	return NULL;
}

static void test_e2e_reload_and_counters(void **state)
{
	const Sdds__Ctl__ClientInfo *ci;
	Sdds__Ctl__Reply *rep;
	struct tc_client c;
	struct env e;

	(void)state;
	assert_int_equal(env_start(&e, "identity r uid=0\nallow r write 1:1\n", NULL), 0);
	assert_int_equal(tc_client_open(&c, e.d.sock, "reloader"), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), 0);
	assert_int_equal(try_endpoint(&c, 1, 5, false), -EACCES);
	assert_int_equal(try_endpoint(&c, 1, 6, true), -EACCES);

	rep = stats_of(e.d.sock);
	assert_true(rep->stats->policy_loaded);
	assert_int_equal(rep->stats->policy_denied, 2);
	ci = client_by_session(rep->stats, c.session_id);
	assert_non_null(ci);
	assert_int_equal(ci->denied, 2);
	assert_true(ci->counters->rejected >= 2);
	assert_string_equal(ci->identity, "r");
	assert_int_equal(rep->stats->n_denials, 2);
	/* Newest first. */
	assert_true(rep->stats->denials[0]->reader);
	assert_int_equal(rep->stats->denials[0]->topic_id, 6);
	assert_false(rep->stats->denials[1]->reader);
	assert_int_equal(rep->stats->denials[1]->domain, 1);
	assert_int_equal(rep->stats->denials[1]->topic_id, 5);
	assert_string_equal(rep->stats->denials[1]->identity, "r");
	assert_int_equal(rep->stats->denials[1]->session_id, c.session_id);
	sdds__ctl__reply__free_unpacked(rep, NULL);

	/* sddsctl shows them: the counters, the newest denials, the identity. */
	if (sddsctl_path != NULL) {
		char cmd[512];
		int st;

		snprintf(cmd, sizeof(cmd), "'%s' --socket '%s' denials > '%s' 2>&1", sddsctl_path, e.d.sock,
			 e.log);
		st = system(cmd);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		assert_true(log_has(&e, "requests denied           2"));
		assert_true(log_has(&e, "writer 1      5"));
		snprintf(cmd, sizeof(cmd), "'%s' --socket '%s' --json stats > '%s' 2>&1", sddsctl_path,
			 e.d.sock, e.log);
		st = system(cmd);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		ctl_json_check(e.log);
	}

	/* A good new file: 1:5 becomes allowed, 1:1 is no longer (the old writer stays). */
	write_file(e.policy, "identity r uid=0\nallow r write 1:5\n");
	assert_int_equal(kill(e.d.pid, SIGHUP), 0);
	rep = wait_reload(e.d.sock, 1, 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_int_equal(try_endpoint(&c, 1, 5, false), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), -EACCES);
	assert_true(log_has(&e, "1 endpoints created earlier are not allowed by the new policy"));

	/* A malformed file: refused with FILE:LINE, the last good policy stays. */
	write_file(e.policy, "identity r uid=0\nallow r write 1:1\nallow r write nonsense\n");
	assert_int_equal(kill(e.d.pid, SIGHUP), 0);
	rep = wait_reload(e.d.sock, 1, 1);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_int_equal(try_endpoint(&c, 1, 5, false), 0);
	assert_int_equal(try_endpoint(&c, 1, 1, false), -EACCES);
	assert_true(log_has(&e, "policy.conf:3: 'nonsense'"));
	assert_true(log_has(&e, "keeping the last good policy"));

	/* A vanished file: refused the same way. */
	unlink(e.policy);
	assert_int_equal(kill(e.d.pid, SIGHUP), 0);
	rep = wait_reload(e.d.sock, 1, 2);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_int_equal(try_endpoint(&c, 1, 5, false), 0);
	write_file(e.policy, "");
	tc_client_close(&c);
	env_stop(&e);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_syntax),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_caps),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_example_policy),
	    cmocka_unit_test(test_identity_precedence),
	    cmocka_unit_test(test_decision),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_cgroup_units),
	    cmocka_unit_test(test_peer_probe_fake_proc),
	    cmocka_unit_test(test_peer_probe_pidfd),
	    cmocka_unit_test(test_denials_ring),
	    cmocka_unit_test(test_config_keys),
	    cmocka_unit_test_teardown(test_e2e_no_policy, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_bad_policy_at_start, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_uid, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_exe, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_attest, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_unit, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_e2e_reload_and_counters, tc_daemon_cleanup),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH_TO_SDDSD [EXAMPLE_POLICY]\n", argv[0]);
		return 2;
	}
	sddsd_path = argv[1];
	example_path = argc > 2 ? argv[2] : NULL;
	sddsctl_path = argc > 3 ? argv[3] : NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
