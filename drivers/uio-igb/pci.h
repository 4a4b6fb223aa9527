/* SPDX-License-Identifier: MIT */
/*
 * pci.h - the 82576 as a PCI function under uio_pci_generic, through sysfs
 * and /dev/uioN: discovery by vendor and device id, binding the UIO
 * driver, config space (memory space and bus master enable, the INTx
 * mask), BAR0 mapped through resource0, and the interrupt count.
 *
 * OVERVIEW
 * uio_pci_generic claims the function and exports its interrupt, nothing
 * more: it does not enable bus mastering (so igb_pci_open sets it in the
 * command register, PCI Local Bus 3.0 section 6.2.2), its interrupt
 * handler masks INTx (command register bit 10, Interrupt Disable) on every
 * interrupt and it has no irqcontrol hook (write() to /dev/uioN fails), so
 * the re-enable protocol is: read() the event count from /dev/uioN, clear
 * the device's cause (ICR read), then clear Interrupt Disable through the
 * config space file. Closing /dev/uioN makes the kernel clear bus master
 * (uio_pci_generic's release), so the fd stays open while the device runs.
 *
 * Ownership: igb_pci_open fills a struct igb_pci the caller owns until
 * igb_pci_close. Threads: none.
 * Errors: 0 or -errno; `why` gets a sentence naming what is missing.
 */
#ifndef SDDS_DRIVERS_UIO_IGB_PCI_H
#define SDDS_DRIVERS_UIO_IGB_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IGB_PCI_VENDOR_INTEL 0x8086u

struct igb_pci {
	char bdf[32];		/* 0000:00:03.0 */
	uint16_t device;	/* PCI device id (0x10c9, ...) */
	int cfg_fd;		/* /sys/bus/pci/devices/BDF/config, read-write */
	int uio_fd;		/* /dev/uioN, O_NONBLOCK */
	volatile uint8_t *bar0; /* resource0 mapped */
	size_t bar0_len;
};

/* Whether (vendor, device) is an 82576 function this driver drives. */
bool igb_pci_is_82576(uint16_t vendor, uint16_t device);

/*
 * The device to drive: want (a BDF, "0000:00:03.0" or "00:03.0") checked
 * to exist and be an 82576, or with want NULL or "" the first 82576 found
 * in /sys/bus/pci/devices. Writes the full BDF to bdf. -ENODEV: none.
 */
int igb_pci_find(const char *want, char bdf[32], char *why, size_t why_len);

/*
 * Binds bdf to uio_pci_generic (driver_override, unbind from its current
 * driver, drivers_probe); nothing to do when it already is. -ENOENT with
 * why saying "modprobe uio_pci_generic" when the driver is not loaded,
 * -EPERM when sysfs refuses (not root).
 */
int igb_pci_bind_uio(const char *bdf, char *why, size_t why_len);

/* Opens bdf (bound to uio_pci_generic): /dev/uioN, config space, BAR0; enables memory and bus master. */
int igb_pci_open(const char *bdf, struct igb_pci *ret, char *why, size_t why_len);

/*
 * Consumes the interrupt events /dev/uioN has (non-blocking read): 1 and
 * *count the kernel's total when there was one, 0 when none.
 */
int igb_pci_irq_take(struct igb_pci *p, uint32_t *count);
/* Clears INTx Disable in the command register: the device may interrupt again. */
int igb_pci_intx_unmask(struct igb_pci *p);
/* Clears bus master (no DMA after this returns), unmaps BAR0, closes the fds. */
void igb_pci_close(struct igb_pci *p);

#endif /* SDDS_DRIVERS_UIO_IGB_PCI_H */
