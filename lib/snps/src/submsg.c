/* SPDX-License-Identifier: MIT */
/*
 * submsg.c - the §4.2 table of submessage types: names and lengths.
 *
 * OVERVIEW
 * Two static tables indexed by nibble. The lengths are those a receiver
 * uses to step over a submessage it does not act on; the variable-length
 * types are left to the decoder, which knows the topic table.
 */
#include "snps/submsg.h"

/* Total length by basic type; 0 = variable (DATA, ADDRESS) or extended. */
static const uint8_t basic_len[16] = {
    [SNPS_BT_DOMAIN] = 1,
    [SNPS_BT_TOPIC] = 1,
    [SNPS_BT_DATA] = 0,
    [SNPS_BT_SEQNR] = 1,
    [SNPS_BT_TS] = 3,
    [SNPS_BT_ACKSEQ] = 1,
    [SNPS_BT_NACKSEQ] = 1,
    [SNPS_BT_STATUS] = 1,
    [SNPS_BT_ADDRESS] = 0,
    [0x9] = 1,
    [0xA] = 1,
    [0xB] = 1,
    [0xC] = 1,
    [0xD] = 1,
    [0xE] = 1,
    [SNPS_BT_EXT] = 0,
};

/* Total length by extended type; 0 = variable (SECURE) or undefined. */
static const uint8_t ext_len[16] = {
    [SNPS_XT_ACK] = 1,	     [SNPS_XT_NACK] = 1,       [SNPS_XT_TSDDS] = 9, [SNPS_XT_SEQNR_SMALL] = 2,
    [SNPS_XT_SEQNR_BIG] = 3, [SNPS_XT_SEQNR_HUGE] = 5, [SNPS_XT_TOPIC] = 3,
};

static const char *const basic_name[16] = {
    "DOMAIN",	    "TOPIC",	    "DATA",	    "SEQNR",	    "TS",	    "ACKSEQ",
    "NACKSEQ",	    "STATUS",	    "ADDRESS",	    "unassigned 9", "unassigned A", "unassigned B",
    "unassigned C", "unassigned D", "unassigned E", "ext",
};

static const char *const ext_name[16] = {
    "ext ACK",	  "ext NACK",	  "ext SEP",	     "ext TSDDS",     "ext ADDR16",	"ext CRC",
    "ext TSUSEC", "ext TSMSEC",	  "ext SEQNR_SMALL", "ext SEQNR_BIG", "ext SEQNR_HUGE", "ext TOPIC",
    "ext FRAG",	  "ext FRAGNACK", "ext SECURE",	     "ext EXTENDED",
};

unsigned snps_submsg_fixed_len(uint8_t hdr)
{
	if (snps_submsg_is_ext(hdr))
		return ext_len[snps_submsg_value(hdr)];
	return basic_len[snps_submsg_type(hdr)];
}

bool snps_submsg_is_desync(uint8_t hdr)
{
	if (!snps_submsg_is_ext(hdr))
		return false;
	/* SECURE has no fixed length but a length byte: it is skippable. */
	return snps_submsg_value(hdr) != SNPS_XT_SECURE && ext_len[snps_submsg_value(hdr)] == 0;
}

const char *snps_submsg_name(uint8_t hdr)
{
	if (snps_submsg_is_ext(hdr))
		return ext_name[snps_submsg_value(hdr)];
	return basic_name[snps_submsg_type(hdr)];
}
