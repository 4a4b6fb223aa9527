/* SPDX-License-Identifier: MIT */
/*
 * snps.h - the SNPS wire codec: the one header users of the library include.
 *
 * OVERVIEW
 * SNPS is the wire protocol of sDDS nodes; shared/docs/snps-wire.md
 * describes it as the reference implementation really speaks it and
 * docs/snps.md says which parts this library covers and how. The library is
 * freestanding C11 (see wire.h): the daemon, test peers and the STM32F4
 * firmware build the same sources. Modules:
 *
 *   wire.h     error codes, protocol constants, byte-order helpers (§1-§3)
 *   submsg.h   submessage header byte and type table (§4.1, §4.2)
 *   address.h  ADDRESS submessage and compressed multicast groups (§4.6, §5)
 *   decoder.h  datagram -> events, with a rejection reason (§3, §4, §8)
 *   frame.h    frame builder giving the §7 recipes byte for byte
 *   marshal.h  sample layouts, byte-order conversion, validation (§6, §2)
 *   builtin.h  builtin topic samples (§10.1)
 */
#ifndef SDDS_SNPS_SNPS_H
#define SDDS_SNPS_SNPS_H

#include "snps/wire.h"
#include "snps/submsg.h"
#include "snps/address.h"
#include "snps/decoder.h"
#include "snps/frame.h"
#include "snps/marshal.h"
#include "snps/builtin.h"

#endif /* SDDS_SNPS_SNPS_H */
