/* SPDX-License-Identifier: MIT */
/*
 * sddsxml.h - read an sDDS node configuration (sdds.xml) into a gen_project.
 *
 * OVERVIEW
 * The format is sDDS's (snps-wire.md §13.2): a <project> root with
 * <include filename>, <topic>, <enum>, <struct>, <datatype>, <role>,
 * <subscription> and <define> children. An include is replaced by the
 * children of the included file's root element (usually <domain id>, whose
 * id is the default domain of the topics inside), so includes may nest.
 * Include paths are relative to the including file; nesting is limited to
 * SDDSXML_MAX_DEPTH files and a file that includes one of the files being
 * read is an include cycle (files are compared by their real path).
 *
 * libxml2 parses with no network, no DTD loading, no entity substitution
 * and big line numbers; a document with a DOCTYPE is refused. Parser
 * messages never reach stderr: the first one becomes the error.
 *
 * Errors: 0, -EINVAL with d->error set to "FILE:LINE: what is wrong"
 * (FILE as the path was given or resolved), or -ENOMEM. On success the
 * project is resolved (gen_project_resolve) and d may hold warnings.
 * *ret_project is written only on success; the caller frees it.
 */
#ifndef SDDS_GEN_SDDSXML_H
#define SDDS_GEN_SDDSXML_H

#include <stddef.h>

#include "sddsxml/model.h"

/* Deepest chain of files: the main file plus nested includes. */
#define SDDSXML_MAX_DEPTH 16u
/* Largest XML file read. */
#define SDDSXML_MAX_FILE (4u << 20)

/* Read the file at path (and what it includes). */
int sddsxml_load_file(const char *path, gen_project **ret_project, gen_diag *d);

/*
 * Read an sdds.xml from memory (len bytes of buf, borrowed for the call).
 * name is used in messages. Includes are resolved relative to include_dir,
 * or refused (an error) when include_dir is NULL.
 */
int sddsxml_load_memory(const void *buf, size_t len, const char *name, const char *include_dir,
			gen_project **ret_project, gen_diag *d);

#endif /* SDDS_GEN_SDDSXML_H */
