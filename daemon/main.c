/* SPDX-License-Identifier: MIT */
/*
 * main.c - sddsd: arguments, config, run the Manager.
 *
 * OVERVIEW
 * Order of precedence: built-in defaults, then the file of -c, then the
 * command-line options (wherever they appear on the line). Exit codes:
 * 0 clean shutdown (SIGINT/SIGTERM) or --check-config/--help success,
 * 1 a usage or configuration error, 2 a runtime failure (cannot listen,
 * out of memory, ...).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "log.h"
#include "manager.h"
#include "netconf.h"
#include <sddsxml/nodecfg.h>
#include "policy.h"

enum { EXIT_CONFIG = 1, EXIT_RUNTIME = 2 };

enum {
	OPT_SOCKET = 0x100,
	OPT_POLL,
	OPT_LOG_LEVEL,
	OPT_CHECK_CONFIG,
	OPT_POLICY,
	OPT_NODE_CONFIG,
};

static void usage(FILE *f)
{
	fputs("Usage: sddsd [OPTIONS]\n"
	      "The sDDS broker daemon: applications reach each other through it.\n"
	      "\n"
	      "  -c, --config FILE   read settings from FILE (key = value lines)\n"
	      "      --socket PATH   control socket path (default: $SDDS_SOCKET, /run/sdds/sddsd.sock\n"
	      "                      for root, else $XDG_RUNTIME_DIR/sdds/sddsd.sock)\n"
	      "      --poll          polling mode: the daemon never sleeps (lowest latency, one busy core)\n"
	      "      --log-level N   0..7 or err, warning, notice, info, debug\n"
	      "      --policy FILE   access policy (docs/policy.md); reloaded on SIGHUP\n"
	      "      --node-config FILE  sDDS node config (sdds.xml): network topics, interface,\n"
	      "                      port, static subscriptions; turns the network on (docs/DESIGN.md)\n"
	      "      --check-config  parse the configuration, print the effective settings, exit\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "Exit status: 0 clean shutdown, 1 configuration error, 2 runtime failure.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"socket", required_argument, NULL, OPT_SOCKET},
	    {"poll", no_argument, NULL, OPT_POLL},
	    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
	    {"check-config", no_argument, NULL, OPT_CHECK_CONFIG},
	    {"policy", required_argument, NULL, OPT_POLICY},
	    {"node-config", required_argument, NULL, OPT_NODE_CONFIG},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *file = NULL, *socket = NULL, *level = NULL, *policy = NULL;
	const char *node_config = NULL;
	bool poll = false, check = false;
	struct sddsd_config cfg;
	struct config_error err;
	struct manager *m;
	int c, rc;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			file = optarg;
			break;
		case OPT_SOCKET:
			socket = optarg;
			break;
		case OPT_POLL:
			poll = true;
			break;
		case OPT_LOG_LEVEL:
			level = optarg;
			break;
		case OPT_CHECK_CONFIG:
			check = true;
			break;
		case OPT_POLICY:
			policy = optarg;
			break;
		case OPT_NODE_CONFIG:
			node_config = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_CONFIG;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sddsd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EXIT_CONFIG;
	}

	config_init(&cfg);
	if (file != NULL && config_parse_file(&cfg, file, &err) < 0)
		goto fail_config;
	if (socket != NULL && config_set(&cfg, "--socket", "socket", socket, &err) < 0)
		goto fail_config;
	if (poll && config_set(&cfg, "--poll", "poll", "true", &err) < 0)
		goto fail_config;
	if (level != NULL && config_set(&cfg, "--log-level", "log_level", level, &err) < 0)
		goto fail_config;
	if (policy != NULL && config_set(&cfg, "--policy", "policy", policy, &err) < 0)
		goto fail_config;
	if (node_config != NULL && config_set(&cfg, "--node-config", "node_config", node_config, &err) < 0)
		goto fail_config;
	if (config_validate(&cfg, file != NULL ? file : "sddsd", &err) < 0)
		goto fail_config;

	if (check) {
		struct sddsd_config shown = cfg;

		/* Show where the socket really goes, not just "default". */
		if (shown.socket[0] == '\0')
			ctl_default_path(shown.socket, sizeof(shown.socket));
		if (shown.policy[0] != '\0') {
			struct policy_error perr;
			struct policy *p;

			if (policy_load_file(shown.policy, &p, &perr) < 0) {
				fprintf(stderr, "sddsd: %s\n", perr.msg);
				return EXIT_CONFIG;
			}
			policy_free(p);
		}
		if (shown.node_config[0] != '\0') {
			struct nodecfg_error nerr;
			struct nodecfg *nc;

			if (nodecfg_load(shown.node_config, &nc, &nerr) < 0) {
				fprintf(stderr, "sddsd: %s\n", nerr.msg);
				return EXIT_CONFIG;
			}
			/* Discovery as in effect: the node config's <define>s where not given. */
			if (netconf_wanted(&shown)) {
				netconf_discovery(&shown, nc);
				printf(
				    "# discovery* as in effect: the keys given here, else %s's <define>s\n",
				    shown.node_config);
			}
			free(nc);
		}
		config_print(&shown, stdout);
		return 0;
	}

	log_set_level(cfg.log_level);
	rc = manager_new(&cfg, &m);
	if (rc < 0) {
		log_err("cannot start: %s", strerror(-rc));
		/* A policy that does not parse is a configuration error (logged above). */
		return rc == -EINVAL || rc == -EFBIG ? EXIT_CONFIG : EXIT_RUNTIME;
	}
	rc = manager_run(m);
	manager_free(m);
	if (rc < 0) {
		log_err("stopped on an error: %s", strerror(-rc));
		return EXIT_RUNTIME;
	}
	return 0;

fail_config:
	fprintf(stderr, "sddsd: %s\n", err.msg);
	return EXIT_CONFIG;
}
