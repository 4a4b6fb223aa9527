/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c - sddsd's config parser fed with arbitrary text.
 *
 * OVERVIEW
 * Input: byte 0 is a mode, the rest is the text.
 *   mode even  the rest is a whole config file (config_parse_text)
 *   mode odd   the rest is "key\0value" for config_set (an override)
 * Checked per input: the parser returns 0 or -EINVAL/-ENOENT/-EFBIG only;
 * on error the config is untouched and the message is NUL-terminated,
 * starts with the origin and holds no control bytes (it quotes sanitised
 * input); on success the result passes config_validate (file mode) and
 * survives a round trip through config_print and a second parse unchanged.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

static void fuzz_check_error(const struct config_error *err, const char *origin)
{
	size_t n = strnlen(err->msg, sizeof(err->msg));

	FUZZ_CHECK(n < sizeof(err->msg));
	FUZZ_CHECK(strncmp(err->msg, origin, strlen(origin)) == 0);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)err->msg[i] >= 0x20 && (unsigned char)err->msg[i] != 0x7f);
}

static void fuzz_round_trip(const struct sddsd_config *cfg)
{
	struct sddsd_config back;
	struct config_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return;
	config_print(cfg, f);
	fclose(f);
	config_init(&back);
	FUZZ_CHECK(config_parse_text(&back, "printed", buf, len, &err) == 0);
	/* The printed file sets (nearly) every key; which ones the input set is not a value. */
	back.given = cfg->given;
	FUZZ_CHECK(memcmp(&back, cfg, sizeof(back)) == 0);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sddsd_config cfg, before;
	struct config_error err;
	int rc;

	if (size < 1)
		return 0;
	config_init(&cfg);
	before = cfg;
	memset(&err, 0, sizeof(err));
	if ((data[0] & 1) == 0) {
		rc = config_parse_text(&cfg, "fuzz.conf", (const char *)data + 1, size - 1, &err);
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EFBIG);
		if (rc < 0) {
			FUZZ_CHECK(memcmp(&cfg, &before, sizeof(cfg)) == 0);
			fuzz_check_error(&err, "fuzz.conf");
			return 0;
		}
		FUZZ_CHECK(config_validate(&cfg, "fuzz.conf", &err) == 0);
		fuzz_round_trip(&cfg);
	} else {
		/* "key\0value": both NUL-terminated copies, as argv would give. */
		char *key = calloc(1, size);
		const uint8_t *nul;
		const char *value;

		if (key == NULL)
			return 0;
		memcpy(key, data + 1, size - 1);
		nul = memchr(data + 1, '\0', size - 1);
		value = nul != NULL ? key + (nul - (data + 1)) + 1 : "";
		rc = config_set(&cfg, "--fuzz", key, value, &err);
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT);
		if (rc < 0) {
			FUZZ_CHECK(memcmp(&cfg, &before, sizeof(cfg)) == 0);
			fuzz_check_error(&err, "--fuzz");
		} else if (config_validate(&cfg, "--fuzz", &err) == 0 && strchr(value, '#') == NULL &&
			   value[0] != ' ' && value[0] != '\t' && value[strlen(value) - 1] != ' ' &&
			   value[strlen(value) - 1] != '\t') {
			/* A file line would trim blanks and cut comments; other values must come back. */
			fuzz_round_trip(&cfg);
		}
		free(key);
	}
	return 0;
}
