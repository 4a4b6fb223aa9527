/* SPDX-License-Identifier: MIT */
/*
 * fuzz_policy.c - sddsd's access policy parser and the cgroup reader fed
 * with arbitrary text.
 *
 * OVERVIEW
 * Input: byte 0 is a mode, the rest is the text.
 *   mode even  a policy file (policy_parse_text), then a few decisions
 *   mode odd   the text of a /proc/PID/cgroup file (policy_unit_from_cgroup)
 * Checked per input: the parser returns 0 or one of its documented errors;
 * on error *ret is untouched and the message is NUL-terminated, starts
 * with the name and holds no control bytes; on success the tables stay
 * within their caps, every decision returns 0 and names a valid identity
 * or none. The cgroup reader returns 0, -ENOENT or -ENAMETOOLONG, and a
 * unit it returns is a bounded "*.service" name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "policy.h"

static void fuzz_check_text(const char *msg, size_t cap)
{
	size_t n = strnlen(msg, cap);

	FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)msg[i] >= 0x20 && (unsigned char)msg[i] != 0x7f);
}

static void fuzz_decide(const struct policy *p)
{
	static const struct {
		uid_t uid;
		const char *exe, *unit, *attested;
	} peers[] = {
	    {0, "", "", ""},
	    {1000, "/usr/bin/app", "sdds-app@cam.service", ""},
	    {65534, "", "", "nav"},
	};
	static const uint32_t topics[][2] = {{0, 0}, {1, 1}, {1, 10}, {UINT32_MAX, UINT32_MAX}};

	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		struct policy_peer peer;

		memset(&peer, 0, sizeof(peer));
		peer.uid = peers[i].uid;
		peer.gid = peers[i].uid;
		snprintf(peer.exe, sizeof(peer.exe), "%s", peers[i].exe);
		snprintf(peer.unit, sizeof(peer.unit), "%s", peers[i].unit);
		snprintf(peer.attested, sizeof(peer.attested), "%s", peers[i].attested);
		for (size_t t = 0; t < sizeof(topics) / sizeof(topics[0]); t++) {
			for (int op = POLICY_READ; op <= POLICY_WRITE; op++) {
				struct policy_verdict v;

				FUZZ_CHECK(policy_check(p, &peer, (enum policy_op)op, topics[t][0],
							topics[t][1], &v) == 0);
				FUZZ_CHECK(v.identity == NULL ||
					   policy_name_valid(v.identity, strlen(v.identity)));
				FUZZ_CHECK(v.allowed ? v.line > 0 : true);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	if ((data[0] & 1) == 0) {
		struct policy *p = (struct policy *)0x1;
		struct policy_error err;
		int rc;

		memset(&err, 0x7f, sizeof(err));
		rc = policy_parse_text("fuzz", text, len, &p, &err);
		if (rc < 0) {
			FUZZ_CHECK(rc == -EINVAL || rc == -EFBIG || rc == -ENOSPC || rc == -ENOMEM);
			FUZZ_CHECK(p == (struct policy *)0x1);
			fuzz_check_text(err.msg, sizeof(err.msg));
			FUZZ_CHECK(strncmp(err.msg, "fuzz", 4) == 0);
			return 0;
		}
		FUZZ_CHECK(policy_n_identities(p) <= POLICY_MAX_IDENTITIES);
		FUZZ_CHECK(policy_n_rules(p) <= POLICY_MAX_RULES);
		fuzz_decide(p);
		policy_free(p);
	} else {
		char unit[POLICY_UNIT_MAX];
		int rc = policy_unit_from_cgroup(text, len, unit, sizeof(unit));

		FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -ENAMETOOLONG);
		if (rc == 0) {
			size_t n = strnlen(unit, sizeof(unit));

			FUZZ_CHECK(n < sizeof(unit) && n > strlen(".service"));
			FUZZ_CHECK(strcmp(unit + n - strlen(".service"), ".service") == 0);
			fuzz_check_text(unit, sizeof(unit));
		}
	}
	return 0;
}
