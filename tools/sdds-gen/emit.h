/* SPDX-License-Identifier: MIT */
/*
 * emit.h - write the C code of a resolved gen_project.
 *
 * OVERVIEW
 * Two files per project, named after it: <name>_sdds_impl.h declares, per
 * topic Foo (the topic name with its first letter upper-cased), the struct
 * Foo, Foo_SAMPLE_SIZE, Foo_desc (the field layout given to sddsd),
 * Foo_marshal()/Foo_unmarshal(), DDS_FooDataWriter_write(),
 * DDS_FooDataReader_take_next_sample(), the globals g_Foo_topic and
 * g_Foo_writer / g_Foo_reader (by role), and sDDS_init(); <name>_sdds_impl.c
 * defines them on the runtime of <sdds/dcps.h>.
 *
 * The generated code is plain C11 and compiles without warnings under
 * -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes (helpers
 * are static and emitted only when used). Samples are marshalled as SNPS
 * puts them on the wire (snps-wire.md §6): declaration order, packed,
 * multi-byte integers big-endian, structs flattened, strings K+1 bytes
 * (the K bytes of the text zero-filled after it, then 0x00).
 *
 * The emitters only read the project and write to the caller's FILE.
 */
#ifndef SDDS_GEN_EMIT_H
#define SDDS_GEN_EMIT_H

#include <stdio.h>

#include <sddsxml/model.h>

/* "<name>_sdds_impl" into buf (cap bytes). Returns 0 or -ENAMETOOLONG. */
int emit_basename(const gen_project *p, char *buf, size_t cap);

/* Write the header. Returns 0 or -EIO when out reports an error. */
int emit_header(const gen_project *p, FILE *out);
/* Write the source; it includes "<header_name>". Returns 0 or -EIO. */
int emit_source(const gen_project *p, const char *header_name, FILE *out);
/* Describe the model in text (sdds-gen --dump). Returns 0 or -EIO. */
int emit_dump(const gen_project *p, FILE *out);

#endif /* SDDS_GEN_EMIT_H */
