/* SPDX-License-Identifier: MIT */
/*
 * wire.c - texts for the SNPS error codes.
 *
 * OVERVIEW
 * Pure functions over static tables; see wire.h for the conventions every
 * module of the library follows.
 */
#include "snps/wire.h"

const char *snps_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case SNPS_EINVAL:
		return "invalid argument or value the wire cannot carry";
	case SNPS_EMSGSIZE:
		return "does not fit";
	case SNPS_ENOSPC:
		return "too many submessages in one frame";
	case SNPS_ENOENT:
		return "no such topic, field or builtin";
	case SNPS_EPROTO:
		return "datagram breaks the SNPS protocol";
	case SNPS_EBADMSG:
		return "sample content breaks its layout";
	default:
		return "unknown error";
	}
}
