/* SPDX-License-Identifier: MIT */
/*
 * regs.h - the Intel 82576 registers, bits and descriptor layouts the
 * uio-igb driver uses, from the Intel 82576EB GbE Controller Datasheet
 * (rev 2.x), each group with the section that describes it.
 *
 * OVERVIEW
 * Offsets are bytes into BAR0. Only what igb.c (and the fake register
 * file of the unit tests) touches is here. The descriptors are the
 * advanced formats (SRRCTL.DESCTYPE one buffer, TX DEXT set), whose layouts
 * the device reads and writes by DMA: they are pinned with _Static_assert.
 * The driver runs on little-endian hosts only (x86-64, as the 82576's
 * users do), so the descriptor fields are host-order integers.
 */
#ifndef SDDS_DRIVERS_UIO_IGB_REGS_H
#define SDDS_DRIVERS_UIO_IGB_REGS_H

#include <stddef.h>
#include <stdint.h>

/* 8.2 General registers: 8.2.1 CTRL, 8.2.2 STATUS, 8.2.3 EECD, 8.2.4 MDIC. */
#define IGB_CTRL 0x00000u
#define IGB_STATUS 0x00008u
#define IGB_EECD 0x00010u
#define IGB_MDIC 0x00020u

#define IGB_CTRL_SLU (1u << 6)	/* set link up */
#define IGB_CTRL_RST (1u << 26) /* global software reset, self-clearing */
#define IGB_STATUS_LU (1u << 1) /* link up */

#define IGB_MDIC_DATA_MASK 0xffffu
#define IGB_MDIC_REG_SHIFT 16
#define IGB_MDIC_PHY_SHIFT 21
#define IGB_MDIC_OP_WRITE (1u << 26)
#define IGB_MDIC_OP_READ (2u << 26)
#define IGB_MDIC_READY (1u << 28)
#define IGB_MDIC_ERROR (1u << 30)
#define IGB_PHY_ADDR 1u /* the internal PHY */

/* The PHY's IEEE 802.3 clause 22 registers (8.24 PHY registers): BMCR. */
#define IGB_PHY_BMCR 0u
#define IGB_BMCR_ANRESTART (1u << 9)
#define IGB_BMCR_PDOWN (1u << 11)
#define IGB_BMCR_AUTOEN (1u << 12)

/* 8.8 Interrupt registers: ICR (read to clear), IMS, IMC, EIMC. */
#define IGB_ICR 0x000c0u
#define IGB_IMS 0x000d0u
#define IGB_IMC 0x000d8u
#define IGB_EIMC 0x01528u

#define IGB_INT_TXDW (1u << 0) /* TX descriptor written back */
#define IGB_INT_LSC (1u << 2)  /* link status change */
#define IGB_INT_RXDW (1u << 7) /* RX descriptor written back */

/* 8.10 Receive registers: 8.10.1 RCTL, 8.10.x MTA, RAL/RAH, SRRCTL, ring 0. */
#define IGB_RCTL 0x00100u
#define IGB_RCTL_EN (1u << 1)
#define IGB_RCTL_UPE (1u << 3)	    /* unicast promiscuous */
#define IGB_RCTL_MPE (1u << 4)	    /* multicast promiscuous */
#define IGB_RCTL_MO_MASK (3u << 12) /* multicast offset: 0 = bits 47:36 */
#define IGB_RCTL_BAM (1u << 15)	    /* broadcast accept */
#define IGB_RCTL_SECRC (1u << 26)   /* strip the FCS */

#define IGB_MTA(i) (0x05200u + 4u * (i))
#define IGB_MTA_N 128u
#define IGB_RAL0 0x05400u
#define IGB_RAH0 0x05404u
#define IGB_RAH_AV (1u << 31) /* address valid */

#define IGB_RDBAL0 0x0c000u
#define IGB_RDBAH0 0x0c004u
#define IGB_RDLEN0 0x0c008u
#define IGB_SRRCTL0 0x0c00cu
#define IGB_RDH0 0x0c010u
#define IGB_RDT0 0x0c018u
#define IGB_RXDCTL0 0x0c028u

#define IGB_SRRCTL_BSIZEPKT_SHIFT 0	    /* packet buffer size, 1 KiB units */
#define IGB_SRRCTL_DESCTYPE_ADV1 (1u << 25) /* advanced, one buffer */
#define IGB_SRRCTL_DROP_EN (1u << 31)	    /* drop when the ring has no descriptor */
#define IGB_QUEUE_ENABLE (1u << 25)	    /* RXDCTL / TXDCTL */

/* 8.10.x ETQF: EtherType queue filters. */
#define IGB_ETQF(n) (0x05cb0u + 4u * (n))
#define IGB_ETQF_FILTER_EN (1u << 26)
#define IGB_ETQF_1588 (1u << 30) /* time stamp frames this filter matches */
#define IGB_ETHERTYPE_1588 0x88f7u

/* 8.12 Transmit registers: 8.12.1 TCTL, ring 0. */
#define IGB_TCTL 0x00400u
#define IGB_TCTL_EN (1u << 1)
#define IGB_TCTL_PSP (1u << 3) /* pad short packets to 64 bytes */
#define IGB_TCTL_CT_SHIFT 4    /* collision threshold */
#define IGB_TCTL_COLD_SHIFT 12 /* collision distance */
#define IGB_TCTL_CT 0x0fu
#define IGB_TCTL_COLD 0x3fu /* full duplex (4.6.8) */

#define IGB_TDBAL0 0x0e000u
#define IGB_TDBAH0 0x0e004u
#define IGB_TDLEN0 0x0e008u
#define IGB_TDH0 0x0e010u
#define IGB_TDT0 0x0e018u
#define IGB_TXDCTL0 0x0e028u

/* 8.16 Time sync (IEEE 1588) registers. */
#define IGB_SYSTIML 0x0b600u
#define IGB_SYSTIMH 0x0b604u
#define IGB_TIMINCA 0x0b608u
#define IGB_TIMADJL 0x0b60cu
#define IGB_TIMADJH 0x0b610u
#define IGB_TSYNCTXCTL 0x0b614u
#define IGB_TXSTMPL 0x0b618u
#define IGB_TXSTMPH 0x0b61cu
#define IGB_TSYNCRXCTL 0x0b620u
#define IGB_RXSTMPL 0x0b624u
#define IGB_RXSTMPH 0x0b628u

#define IGB_TIMINCA_PERIOD_SHIFT 24 /* INCPERIOD: 16 ns units */
#define IGB_TIMADJH_SIGN (1u << 31) /* subtract the value */
#define IGB_TSYNC_VALID (1u << 0)   /* TSYNCTXCTL / TSYNCRXCTL: a stamp is latched */
#define IGB_TSYNC_EN (1u << 4)
#define IGB_TSYNCRXCTL_TYPE_L2_V2 (0u << 1)

/*
 * 7.2.2.3 Advanced transmit data descriptor. Read format: buffer address,
 * DTALEN/DTYP/DCMD, PAYLEN; write-back: the DD bit in olinfo_status.
 */
struct igb_tx_desc {
	uint64_t addr;
	uint32_t cmd_type_len;
	uint32_t olinfo_status;
};
_Static_assert(sizeof(struct igb_tx_desc) == 16, "7.2.2.3: 16-byte descriptor");
_Static_assert(offsetof(struct igb_tx_desc, cmd_type_len) == 8, "7.2.2.3: DTALEN at byte 8");
_Static_assert(offsetof(struct igb_tx_desc, olinfo_status) == 12, "7.2.2.3: PAYLEN at byte 12");

#define IGB_TXD_DTALEN_MASK 0xffffu
#define IGB_TXD_TSTAMP (1u << 19)    /* MAC timestamp this frame */
#define IGB_TXD_DTYP_DATA (3u << 20) /* advanced data descriptor */
#define IGB_TXD_EOP (1u << 24)
#define IGB_TXD_IFCS (1u << 25) /* insert the FCS */
#define IGB_TXD_RS (1u << 27)	/* report status (DD) */
#define IGB_TXD_DEXT (1u << 29) /* extended (advanced) format */
#define IGB_TXD_PAYLEN_SHIFT 14
#define IGB_TXD_STA_DD (1u << 0)

/*
 * 7.1.5 Advanced receive descriptor, one buffer. Read format: packet and
 * header buffer addresses (hdr_addr 0; bit 0 overlays DD, so writing it
 * hands the descriptor to the device); write-back: status and errors,
 * length.
 */
union igb_rx_desc {
	struct {
		uint64_t pkt_addr;
		uint64_t hdr_addr;
	} read;
	struct {
		uint16_t pkt_info;
		uint16_t hdr_info;
		uint32_t rss;
		uint32_t status_error;
		uint16_t length;
		uint16_t vlan;
	} wb;
};
_Static_assert(sizeof(union igb_rx_desc) == 16, "7.1.5: 16-byte descriptor");
_Static_assert(offsetof(union igb_rx_desc, wb.status_error) == 8, "7.1.5: status at byte 8");
_Static_assert(offsetof(union igb_rx_desc, wb.length) == 12, "7.1.5: length at byte 12");

#define IGB_RXD_STAT_DD (1u << 0)
#define IGB_RXD_STAT_EOP (1u << 1)
#define IGB_RXD_STAT_TS (1u << 16) /* the frame's time is latched in RXSTMP */
/* Extended errors (bits 31:20): CRC/symbol, sequence, carrier extension, RX data error. */
#define IGB_RXD_ERR_CE (1u << 24)
#define IGB_RXD_ERR_SE (1u << 25)
#define IGB_RXD_ERR_SEQ (1u << 26)
#define IGB_RXD_ERR_CXE (1u << 28)
#define IGB_RXD_ERR_RXE (1u << 31)
#define IGB_RXD_ERR_FRAME                                                                                    \
	(IGB_RXD_ERR_CE | IGB_RXD_ERR_SE | IGB_RXD_ERR_SEQ | IGB_RXD_ERR_CXE | IGB_RXD_ERR_RXE)

#endif /* SDDS_DRIVERS_UIO_IGB_REGS_H */
