// SPDX-License-Identifier: MIT
/*
 * pci.c - the 82576 as a PCI function under uio_pci_generic: discovery
 * through /sys/bus/pci/devices, binding the UIO driver, config space,
 * BAR0 through resource0, and the interrupt count of /dev/uioN.
 *
 * OVERVIEW
 * Everything goes through sysfs files the PCI core exports for each
 * function (Documentation/PCI/sysfs-pci.rst): vendor and device (the ids
 * read from config space), driver (a link to the bound driver), uio/uioN
 * (the UIO device uio_pci_generic registered), config (config space,
 * writable by root) and resource0 (BAR0, mmap-able). Binding uses the
 * driver core's driver_override: the function is told which driver may
 * claim it, let go by its current driver, and offered again to all
 * drivers (drivers_probe), so no other device of the same id is touched,
 * as writing a new_id would.
 *
 * Order at open: /dev/uioN is opened before bus mastering is enabled,
 * because uio_pci_generic clears bus master when its last fd closes: the
 * fd then lives exactly as long as the device may do DMA. At close bus
 * master goes first, so the device stops reaching memory before the
 * caller frees its DMA memory (PCI Local Bus 3.0, 6.2.2: with Bus Master
 * clear the function generates no memory accesses).
 *
 * Ownership: the caller owns struct igb_pci from igb_pci_open until
 * igb_pci_close. Threads: none. Errors: 0 or -errno with a sentence in
 * why; sysfs files are written only by root, so -EPERM/-EACCES say so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci.h"
#include "why.h"

#define SYSFS_PCI "/sys/bus/pci"
#define UIO_DRIVER "uio_pci_generic"

/* PCI Local Bus 3.0, 6.2.2: the command register at config offset 4. */
#define PCI_CMD_OFF 4
#define PCI_CMD_MEMORY (1u << 1)
#define PCI_CMD_MASTER (1u << 2)
#define PCI_CMD_INTX_DISABLE (1u << 10)

/*
 * The 82576's device ids (the Device ID register of its PCIe configuration
 * space, datasheet chapter 9, per SKU; the list Linux igb's e1000_hw.h and
 * QEMU's igb model carry). The virtual function (0x10ca) is not one.
 */
static const uint16_t igb_82576_ids[] = {
    0x10c9, /* 82576 copper */
    0x10e6, /* fiber */
    0x10e7, /* SerDes */
    0x10e8, /* quad copper */
    0x150a, /* 82576NS */
    0x1518, /* 82576NS SerDes */
    0x1526, /* quad copper ET2 */
    0x150d, /* SerDes quad */
};

bool igb_pci_is_82576(uint16_t vendor, uint16_t device)
{
	if (vendor != IGB_PCI_VENDOR_INTEL)
		return false;
	for (size_t i = 0; i < sizeof(igb_82576_ids) / sizeof(igb_82576_ids[0]); i++)
		if (igb_82576_ids[i] == device)
			return true;
	return false;
}

/* Reads a small sysfs file (one line) into buf without its newline; 0 or -errno. */
static int sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Writes s to a sysfs attribute in one write(), as the kernel takes it; 0 or -errno. */
static int sysfs_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

/* A hexadecimal id file ("0x8086\n"); 0 or -errno. */
static int sysfs_read_id(const char *bdf, const char *attr, uint16_t *ret)
{
	char path[PATH_MAX], buf[32], *end;
	unsigned long v;
	int err;

	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/%s", bdf, attr);
	err = sysfs_read(path, buf, sizeof(buf));
	if (err < 0)
		return err;
	errno = 0;
	v = strtoul(buf, &end, 16);
	if (errno != 0 || end == buf || v > 0xffff)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

/* The name of the driver bound to bdf, "" when none; 0 or -errno. */
static int pci_driver(const char *bdf, char *name, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/driver", bdf);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		if (errno != ENOENT)
			return -errno;
		name[0] = '\0';
		return 0;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

/* Whether name is a BDF with its domain ("0000:00:03.0"), not one of sysfs's other entries. */
static bool bdf_full(const char *name)
{
	unsigned int dom, bus, dev, fn;
	char tail;

	return sscanf(name, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

int igb_pci_find(const char *want, char bdf[32], char *why, size_t why_len)
{
	char path[PATH_MAX], name[32];
	uint16_t vendor, device;
	struct dirent *e;
	DIR *dir;
	int err;

	if (want != NULL && want[0] != '\0') {
		if (strlen(want) > 16) {
			igb_why(why, why_len, "'%.32s' is not a PCI address (0000:00:03.0 or 00:03.0)", want);
			return -EINVAL;
		}
		/* "00:03.0" names domain 0, as lspci prints it. */
		if (bdf_full(want))
			snprintf(name, sizeof(name), "%s", want);
		else
			snprintf(name, sizeof(name), "0000:%s", want);
		if (!bdf_full(name)) {
			igb_why(why, why_len, "'%s' is not a PCI address (0000:00:03.0 or 00:03.0)", want);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s", name);
		if (access(path, F_OK) != 0) {
			igb_why(why, why_len, "no PCI device %s (%s does not exist)", name, path);
			return -ENODEV;
		}
		err = sysfs_read_id(name, "vendor", &vendor);
		if (err == 0)
			err = sysfs_read_id(name, "device", &device);
		if (err < 0) {
			igb_why(why, why_len, "cannot read the ids of PCI device %s: %s", name,
				strerror(-err));
			return err;
		}
		if (!igb_pci_is_82576(vendor, device)) {
			igb_why(why, why_len, "PCI device %s is %04x:%04x, not an Intel 82576", name, vendor,
				device);
			return -ENODEV;
		}
		snprintf(bdf, 32, "%s", name);
		return 0;
	}

	dir = opendir(SYSFS_PCI "/devices");
	if (dir == NULL) {
		err = -errno;
		igb_why(why, why_len, "cannot list " SYSFS_PCI "/devices: %s", strerror(-err));
		return err;
	}
	/* readdir's order is not the bus order: keep the lowest address for a stable choice. */
	name[0] = '\0';
	while ((e = readdir(dir)) != NULL) {
		if (strlen(e->d_name) >= sizeof(name) || !bdf_full(e->d_name))
			continue;
		if (sysfs_read_id(e->d_name, "vendor", &vendor) < 0 ||
		    sysfs_read_id(e->d_name, "device", &device) < 0)
			continue;
		if (!igb_pci_is_82576(vendor, device))
			continue;
		if (name[0] == '\0' || strcmp(e->d_name, name) < 0)
			memcpy(name, e->d_name, strlen(e->d_name) + 1);
	}
	closedir(dir);
	if (name[0] == '\0') {
		igb_why(why, why_len, "no Intel 82576 (8086:10c9 and its variants) in " SYSFS_PCI "/devices");
		return -ENODEV;
	}
	snprintf(bdf, 32, "%s", name);
	return 0;
}

static int bind_denied(int err, const char *what, char *why, size_t why_len)
{
	if (err == -EACCES || err == -EPERM) {
		igb_why(why, why_len, "cannot write %s: only root may rebind a PCI device", what);
		return -EPERM;
	}
	igb_why(why, why_len, "cannot write %s: %s", what, strerror(-err));
	return err;
}

int igb_pci_bind_uio(const char *bdf, char *why, size_t why_len)
{
	char path[PATH_MAX], drv[NAME_MAX + 1];
	int err;

	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s", bdf);
	if (access(path, F_OK) != 0) {
		igb_why(why, why_len, "no PCI device %s (%s does not exist)", bdf, path);
		return -ENODEV;
	}
	err = pci_driver(bdf, drv, sizeof(drv));
	if (err < 0) {
		igb_why(why, why_len, "cannot read the driver of %s: %s", bdf, strerror(-err));
		return err;
	}
	if (strcmp(drv, UIO_DRIVER) == 0)
		return 0;
	if (access(SYSFS_PCI "/drivers/" UIO_DRIVER, F_OK) != 0) {
		igb_why(why, why_len, UIO_DRIVER " is not loaded: modprobe " UIO_DRIVER);
		return -ENOENT;
	}

	/* Only uio_pci_generic may claim the function from now on, whatever its id. */
	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/driver_override", bdf);
	err = sysfs_write(path, UIO_DRIVER);
	if (err < 0)
		return bind_denied(err, path, why, why_len);

	if (drv[0] != '\0') {
		snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/driver/unbind", bdf);
		err = sysfs_write(path, bdf);
		if (err < 0 && err != -ENODEV)
			return bind_denied(err, path, why, why_len);
		err = pci_driver(bdf, drv, sizeof(drv));
		if (err == 0 && drv[0] != '\0') {
			igb_why(why, why_len, "%s is bound to %s, which did not let it go (unbind refused)",
				bdf, drv);
			return -EBUSY;
		}
	}

	err = sysfs_write(SYSFS_PCI "/drivers_probe", bdf);
	if (err < 0)
		return bind_denied(err, SYSFS_PCI "/drivers_probe", why, why_len);
	err = pci_driver(bdf, drv, sizeof(drv));
	if (err < 0 || strcmp(drv, UIO_DRIVER) != 0) {
		/* uio_pci_generic refuses a function without INTx masking (pci_intx_mask_supported). */
		igb_why(why, why_len, UIO_DRIVER " did not claim %s (driver now '%s'): see dmesg", bdf,
			err < 0 ? "?" : drv);
		return -EIO;
	}
	return 0;
}

/* The /dev/uioN of bdf, from the uio/uioN entry uio_pci_generic registered; 0 or -errno. */
static int uio_dev(const char *bdf, char *dev, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int err = -ENOENT;

	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/uio", bdf);
	dir = opendir(path);
	if (dir == NULL)
		return -errno;
	while ((e = readdir(dir)) != NULL) {
		unsigned int n;
		char tail;

		if (sscanf(e->d_name, "uio%u%c", &n, &tail) == 1) {
			snprintf(dev, len, "/dev/uio%u", n);
			err = 0;
			break;
		}
	}
	closedir(dir);
	return err;
}

static int cfg_read16(int fd, uint32_t off, uint16_t *ret)
{
	uint8_t b[2];
	ssize_t n = pread(fd, b, sizeof(b), off);

	if (n < 0)
		return -errno;
	if (n != sizeof(b))
		return -EIO;
	*ret = (uint16_t)(b[0] | b[1] << 8); /* config space is little-endian */
	return 0;
}

static int cfg_write16(int fd, uint32_t off, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	ssize_t n = pwrite(fd, b, sizeof(b), off);

	if (n < 0)
		return -errno;
	return n == sizeof(b) ? 0 : -EIO;
}

int igb_pci_open(const char *bdf, struct igb_pci *ret, char *why, size_t why_len)
{
	struct igb_pci p = {.cfg_fd = -1, .uio_fd = -1};
	char path[PATH_MAX], dev[64];
	uint16_t cmd = 0, vendor;
	struct stat st;
	void *bar0;
	int err, fd;

	if (strlen(bdf) >= sizeof(p.bdf)) {
		igb_why(why, why_len, "'%s' is not a PCI address", bdf);
		return -EINVAL;
	}
	snprintf(p.bdf, sizeof(p.bdf), "%s", bdf);
	err = sysfs_read_id(bdf, "vendor", &vendor);
	if (err == 0)
		err = sysfs_read_id(bdf, "device", &p.device);
	if (err < 0) {
		igb_why(why, why_len, "no PCI device %s: %s", bdf, strerror(-err));
		return err == -ENOENT ? -ENODEV : err;
	}

	err = uio_dev(bdf, dev, sizeof(dev));
	if (err < 0) {
		igb_why(why, why_len, "%s has no UIO device: not bound to " UIO_DRIVER " (bind it first)",
			bdf);
		return -ENODEV;
	}
	/* First, so the kernel's release (bus master off) comes after anything this opens (OVERVIEW). */
	p.uio_fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (p.uio_fd < 0) {
		err = -errno;
		igb_why(why, why_len, "cannot open %s: %s%s", dev, strerror(-err),
			err == -EACCES ? " (root only)" : "");
		return err;
	}

	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/config", bdf);
	p.cfg_fd = open(path, O_RDWR | O_CLOEXEC);
	if (p.cfg_fd < 0) {
		err = -errno;
		igb_why(why, why_len, "cannot open %s read-write: %s%s", path, strerror(-err),
			err == -EACCES ? " (root only)" : "");
		goto fail_close_uio;
	}

	/* O_SYNC: the PCI core maps the BAR uncached (pgprot_noncached) only when asked for synchronous
	 * access. */
	snprintf(path, sizeof(path), SYSFS_PCI "/devices/%s/resource0", bdf);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		igb_why(why, why_len, "cannot open %s: %s", path, strerror(-err));
		goto fail_close_cfg;
	}
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		err = st.st_size <= 0 ? -ENXIO : -errno;
		igb_why(why, why_len, "%s: no BAR0 size", path);
		close(fd);
		goto fail_close_cfg;
	}
	bar0 = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = bar0 == MAP_FAILED ? -errno : 0;
	close(fd); /* the mapping keeps the BAR */
	if (err < 0) {
		igb_why(why, why_len, "cannot map %s: %s", path, strerror(-err));
		goto fail_close_cfg;
	}
	p.bar0 = bar0;
	p.bar0_len = (size_t)st.st_size;

	/*
	 * PCI Local Bus 3.0, 6.2.2: Memory Space (bit 1) lets BAR0 answer,
	 * Bus Master (bit 2) lets the 82576 read and write descriptors and
	 * buffers; uio_pci_generic enables neither for DMA. Interrupt Disable
	 * (bit 10) is the kernel's INTx mask and stays as it is.
	 */
	err = cfg_read16(p.cfg_fd, PCI_CMD_OFF, &cmd);
	if (err == 0)
		err = cfg_write16(p.cfg_fd, PCI_CMD_OFF, (uint16_t)(cmd | PCI_CMD_MEMORY | PCI_CMD_MASTER));
	if (err == 0)
		err = cfg_read16(p.cfg_fd, PCI_CMD_OFF, &cmd);
	if (err < 0) {
		igb_why(why, why_len, "%s: config space command register: %s", bdf, strerror(-err));
		goto fail_unmap;
	}
	if ((cmd & (PCI_CMD_MEMORY | PCI_CMD_MASTER)) != (PCI_CMD_MEMORY | PCI_CMD_MASTER)) {
		igb_why(why, why_len, "%s: memory space and bus master did not stick (command 0x%04x)", bdf,
			cmd);
		err = -EIO;
		goto fail_unmap;
	}
	*ret = p;
	return 0;

fail_unmap:
	munmap((void *)(uintptr_t)p.bar0, p.bar0_len);
fail_close_cfg:
	close(p.cfg_fd);
fail_close_uio:
	close(p.uio_fd);
	return err;
}

int igb_pci_irq_take(struct igb_pci *p, uint32_t *count)
{
	uint32_t n;
	ssize_t r = read(p->uio_fd, &n, sizeof(n));

	if (r < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (r != sizeof(n))
		return -EIO;
	*count = n;
	return 1;
}

int igb_pci_intx_unmask(struct igb_pci *p)
{
	uint16_t cmd = 0;
	int err = cfg_read16(p->cfg_fd, PCI_CMD_OFF, &cmd);

	if (err < 0)
		return err;
	/*
	 * The kernel sets Interrupt Disable only in its handler, which cannot
	 * run while INTx is masked: nothing changes the register between this
	 * read and the write.
	 */
	if (!(cmd & PCI_CMD_INTX_DISABLE))
		return 0;
	return cfg_write16(p->cfg_fd, PCI_CMD_OFF, (uint16_t)(cmd & ~PCI_CMD_INTX_DISABLE));
}

void igb_pci_close(struct igb_pci *p)
{
	uint16_t cmd = 0;

	if (p->bar0 == NULL)
		return;
	/* Bus master off first: no DMA after this, before the caller frees the memory (6.2.2). */
	if (cfg_read16(p->cfg_fd, PCI_CMD_OFF, &cmd) == 0)
		(void)cfg_write16(p->cfg_fd, PCI_CMD_OFF, (uint16_t)(cmd & ~PCI_CMD_MASTER));
	munmap((void *)(uintptr_t)p->bar0, p->bar0_len);
	close(p->cfg_fd);
	close(p->uio_fd);
	p->bar0 = NULL;
	p->bar0_len = 0;
	p->cfg_fd = -1;
	p->uio_fd = -1;
}
