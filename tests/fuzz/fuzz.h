/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - the libFuzzer entry points a fuzz target defines.
 *
 * OVERVIEW
 * A target defines LLVMFuzzerTestOneInput and may define
 * LLVMFuzzerInitialize. The same object links either with libFuzzer
 * (-Dfuzz=true) or with replay_main.c, which feeds it the seed corpus.
 * The input buffer belongs to the caller and is valid during the call only.
 * A target reports a finding by crashing (a sanitizer report or
 * __builtin_trap()); returning means "nothing wrong".
 */
#ifndef SDDS_TESTS_FUZZ_H
#define SDDS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken invariant: crash so that libFuzzer (or the replay) reports it. */
#define FUZZ_CHECK(cond)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			__builtin_trap();                                                                    \
	} while (0)

#endif /* SDDS_TESTS_FUZZ_H */
