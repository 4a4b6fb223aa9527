/* SPDX-License-Identifier: MIT */
/*
 * elfdeps.c - ELF dependency walk (see elfdeps.h).
 *
 * OVERVIEW
 * Each file is mapped read-only and parsed through elf_* helpers that return
 * NULL for anything out of bounds. Addresses in the dynamic section are
 * virtual; elf_vaddr_to_off maps them through the PT_LOAD headers. The walk
 * is breadth-first over deps->paths itself: every path added is parsed once,
 * in order, so a cycle of libraries ends.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfdeps.h"

#define ELFDEPS_MAX_NEEDED 256

struct elf_file {
	const unsigned char *base;
	size_t size;
	const ElfW(Ehdr) * eh;
	const ElfW(Phdr) * ph;
	size_t n_ph;
};

int elfdeps_add(struct elfdeps *deps, const char *path)
{
	char **grown;
	size_t i;

	for (i = 0; i < deps->n; i++)
		if (strcmp(deps->paths[i], path) == 0)
			return 0;
	if (deps->n == deps->cap) {
		size_t cap = deps->cap ? deps->cap * 2 : 32;

		grown = realloc(deps->paths, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		deps->paths = grown;
		deps->cap = cap;
	}
	deps->paths[deps->n] = strdup(path);
	if (!deps->paths[deps->n])
		return -ENOMEM;
	deps->n++;
	return 0;
}

void elfdeps_free(struct elfdeps *deps)
{
	size_t i;

	for (i = 0; i < deps->n; i++)
		free(deps->paths[i]);
	free(deps->paths);
	deps->paths = NULL;
	deps->n = deps->cap = 0;
}

static const void *elf_at(const struct elf_file *f, uint64_t off, uint64_t len)
{
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->base + off;
}

/* Open and check path; the mapping is released with elf_close. */
static int elf_open(const char *path, struct elf_file *f)
{
	struct stat st;
	void *p;
	int fd, rc;

	/* Non-blocking: a FIFO named by the program (PT_INTERP, DT_NEEDED) must
	 * not stop the supervisor before fstat tells it is no file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = -errno;
	close(fd);
	if (p == MAP_FAILED)
		return rc;
	memset(f, 0, sizeof(*f));
	f->base = p;
	f->size = (size_t)st.st_size;
	f->eh = p;
	if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    f->eh->e_ident[EI_CLASS] != ELFCLASS64 - (sizeof(void *) == 4) ||
	    f->eh->e_ident[EI_DATA] !=
		(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    f->eh->e_phentsize != sizeof(ElfW(Phdr))) {
		munmap(p, f->size);
		return -ENOEXEC;
	}
	/* The tables are read in place: their offsets must suit their types'
	 * alignment (the file is mapped page-aligned), as a linker writes them. */
	f->ph = f->eh->e_phoff % _Alignof(ElfW(Phdr)) == 0
		    ? elf_at(f, f->eh->e_phoff, (uint64_t)f->eh->e_phnum * sizeof(ElfW(Phdr)))
		    : NULL;
	if (!f->ph) {
		munmap(p, f->size);
		return -ENOEXEC;
	}
	f->n_ph = f->eh->e_phnum;
	return 0;
}

static void elf_close(struct elf_file *f)
{
	munmap((void *)f->base, f->size);
}

static bool elf_vaddr_to_off(const struct elf_file *f, uint64_t vaddr, uint64_t *ret_off)
{
	size_t i;

	for (i = 0; i < f->n_ph; i++) {
		const ElfW(Phdr) *p = &f->ph[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*ret_off = p->p_offset + (vaddr - p->p_vaddr);
			return true;
		}
	}
	return false;
}

/* A NUL-terminated string at off, or NULL. */
static const char *elf_str(const struct elf_file *f, uint64_t off)
{
	const char *s = elf_at(f, off, 1);

	if (!s || !memchr(s, '\0', f->size - off))
		return NULL;
	return s;
}

/* The same class and machine as this process: what ld.so would load. */
static bool elf_usable(const char *path, uint16_t machine)
{
	struct elf_file f;
	bool ok;

	if (elf_open(path, &f) < 0)
		return false;
	ok = f.eh->e_machine == machine;
	elf_close(&f);
	return ok;
}

struct elf_search {
	const char *origin; /* directory of the object, for $ORIGIN */
	const char *rpath;
	const char *runpath;
	uint16_t machine;
};

/* Try every directory of a ':'-separated list for name. */
static bool elf_search_list(const struct elf_search *s, const char *list, const char *name, char *out,
			    size_t cap)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char dir[PATH_MAX];

		if (len >= 7 && (strncmp(p, "$ORIGIN", 7) == 0 || strncmp(p, "${ORIGIN}", 9) == 0)) {
			size_t skip = p[1] == '{' ? 9 : 7;

			snprintf(dir, sizeof(dir), "%s%.*s", s->origin, (int)(len - skip), p + skip);
		} else {
			snprintf(dir, sizeof(dir), "%.*s", (int)len, p);
		}
		if (dir[0] == '/' && (size_t)snprintf(out, cap, "%s/%s", dir, name) < cap &&
		    elf_usable(out, s->machine))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Directories of /etc/ld.so.conf.d/ *.conf (one level of include, which is
 * what Debian ships), then the defaults, as one ':' list in buf. */
static void elf_system_dirs(char *buf, size_t cap)
{
	static const char *const defaults =
#if defined(__x86_64__)
	    "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
#elif defined(__aarch64__)
	    "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
#endif
	    "/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	glob_t g;
	size_t used = 0, i;

	buf[0] = '\0';
	if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			FILE *fp = fopen(g.gl_pathv[i], "re");
			char line[PATH_MAX];

			if (!fp)
				continue;
			while (fgets(line, sizeof(line), fp)) {
				line[strcspn(line, " \t\r\n#")] = '\0';
				if (line[0] == '/' && used + strlen(line) + 2 < cap)
					used += (size_t)snprintf(buf + used, cap - used, "%s:", line);
			}
			fclose(fp);
		}
		globfree(&g);
	}
	snprintf(buf + used, cap - used, "%s", defaults);
}

static int elf_resolve(const struct elf_search *s, const char *name, char *out, size_t cap)
{
	char sys[4096];

	if (strchr(name, '/')) {
		if (name[0] == '/')
			snprintf(out, cap, "%s", name);
		else
			snprintf(out, cap, "%s/%s", s->origin, name);
		return access(out, R_OK) == 0 ? 0 : -ENOENT;
	}
	if (!s->runpath && elf_search_list(s, s->rpath, name, out, cap))
		return 0;
	if (elf_search_list(s, getenv("LD_LIBRARY_PATH"), name, out, cap))
		return 0;
	if (elf_search_list(s, s->runpath, name, out, cap))
		return 0;
	elf_system_dirs(sys, sizeof(sys));
	if (elf_search_list(s, sys, name, out, cap))
		return 0;
	return -ENOENT;
}

/* Parse one object and add its interpreter and libraries to deps. */
static int elf_walk_one(struct elfdeps *deps, const char *path, const char **ret_missing)
{
	static char missing[NAME_MAX + 1];
	const ElfW(Dyn) *dyn = NULL;
	size_t n_dyn = 0, i;
	uint64_t strtab_off = 0, strsz = 0;
	uint64_t needed[ELFDEPS_MAX_NEEDED];
	size_t n_needed = 0;
	uint64_t rpath = UINT64_MAX, runpath = UINT64_MAX;
	char origin[PATH_MAX], real[PATH_MAX], found[PATH_MAX];
	struct elf_search s;
	struct elf_file f;
	int rc;

	rc = elf_open(path, &f);
	if (rc < 0)
		return rc;
	if (!realpath(path, real)) {
		rc = -errno;
		goto out;
	}
	memcpy(origin, real, sizeof(origin));
	*strrchr(origin, '/') = '\0';

	for (i = 0; i < f.n_ph; i++) {
		const ElfW(Phdr) *p = &f.ph[i];

		if (p->p_type == PT_INTERP) {
			const char *interp = elf_at(&f, p->p_offset, p->p_filesz);

			if (!interp || p->p_filesz == 0 || interp[p->p_filesz - 1] != '\0') {
				rc = -ENOEXEC;
				goto out;
			}
			rc = elfdeps_add(deps, interp);
			if (rc < 0)
				goto out;
		} else if (p->p_type == PT_DYNAMIC) {
			/* Read in place: a misaligned table is no program a linker made. */
			if (p->p_offset % _Alignof(ElfW(Dyn)) != 0) {
				rc = -ENOEXEC;
				goto out;
			}
			dyn = elf_at(&f, p->p_offset, p->p_filesz);
			n_dyn = dyn ? p->p_filesz / sizeof(ElfW(Dyn)) : 0;
		}
	}
	for (i = 0; i < n_dyn && dyn[i].d_tag != DT_NULL; i++) {
		switch (dyn[i].d_tag) {
		case DT_NEEDED:
			if (n_needed == ELFDEPS_MAX_NEEDED) {
				rc = -E2BIG;
				goto out;
			}
			needed[n_needed++] = dyn[i].d_un.d_val;
			break;
		case DT_STRTAB:
			if (!elf_vaddr_to_off(&f, dyn[i].d_un.d_ptr, &strtab_off)) {
				rc = -ENOEXEC;
				goto out;
			}
			break;
		case DT_STRSZ:
			strsz = dyn[i].d_un.d_val;
			break;
		case DT_RPATH:
			rpath = dyn[i].d_un.d_val;
			break;
		case DT_RUNPATH:
			runpath = dyn[i].d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (n_needed == 0) {
		rc = 0;
		goto out;
	}
	if (!elf_at(&f, strtab_off, strsz)) {
		rc = -ENOEXEC;
		goto out;
	}
	s.origin = origin;
	s.machine = f.eh->e_machine;
	s.rpath = rpath < strsz ? elf_str(&f, strtab_off + rpath) : NULL;
	s.runpath = runpath < strsz ? elf_str(&f, strtab_off + runpath) : NULL;
	for (i = 0; i < n_needed; i++) {
		const char *name = needed[i] < strsz ? elf_str(&f, strtab_off + needed[i]) : NULL;

		if (!name) {
			rc = -ENOEXEC;
			goto out;
		}
		rc = elf_resolve(&s, name, found, sizeof(found));
		if (rc < 0) {
			strncpy(missing, name, sizeof(missing) - 1);
			*ret_missing = missing;
			goto out;
		}
		rc = elfdeps_add(deps, found);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	elf_close(&f);
	return rc;
}

int elfdeps_collect(struct elfdeps *deps, const char *exe, const char **ret_missing)
{
	size_t first = deps->n, i;
	int rc;

	rc = elfdeps_add(deps, exe);
	if (rc < 0)
		return rc;
	/* The exe may have been in the set already: walk from its slot. */
	for (i = 0; i < deps->n; i++)
		if (strcmp(deps->paths[i], exe) == 0)
			break;
	if (i < first)
		first = i;
	for (; first < deps->n; first++) {
		rc = elf_walk_one(deps, deps->paths[first], ret_missing);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * -EPERM when the kernel would give the file W+X memory at execve: a
 * PT_LOAD both writable and executable, or PT_GNU_STACK with PF_X. (A
 * missing PT_GNU_STACK means a non-executable stack for 64-bit x86 and
 * arm64 programs.) The PT_INTERP path goes to interp (cap bytes), "" when
 * none.
 */
static int elf_wx_one(const char *path, char *interp, size_t cap)
{
	struct elf_file f;
	size_t i;
	int rc;

	interp[0] = '\0';
	rc = elf_open(path, &f);
	if (rc < 0)
		return rc;
	for (i = 0; i < f.n_ph && rc == 0; i++) {
		const ElfW(Phdr) *p = &f.ph[i];

		if ((p->p_type == PT_LOAD && (p->p_flags & (PF_W | PF_X)) == (PF_W | PF_X)) ||
		    (p->p_type == PT_GNU_STACK && (p->p_flags & PF_X)))
			rc = -EPERM;
		if (p->p_type == PT_INTERP) {
			const char *s = elf_at(&f, p->p_offset, p->p_filesz);

			if (s && p->p_filesz > 0 && p->p_filesz <= cap && s[p->p_filesz - 1] == '\0')
				memcpy(interp, s, p->p_filesz);
		}
	}
	elf_close(&f);
	return rc;
}

/*
 * The interpreter of a "#!" script, as binfmt_script reads it (fs/binfmt_script.c):
 * the first line within BINPRM_BUF_SIZE (256) bytes, blanks after "#!"
 * skipped, the name up to the next blank or the line's end. 1 with the name
 * in out (cap bytes), 0 when path is no script, -errno.
 */
static int script_interp(const char *path, char *out, size_t cap)
{
	char buf[256];
	ssize_t n;
	size_t i = 2, len;
	struct stat st;
	int fd;

	/* Not a FIFO or a device: execve runs regular files only, and open must not block. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	len = strcspn(buf + i, " \t\n");
	if (len == 0 || len >= cap)
		return -ENOEXEC;
	memcpy(out, buf + i, len);
	out[len] = '\0';
	return 1;
}

/*
 * Linux follows at most this many "#!" scripts before the ELF program
 * (fs/exec.c: a sixth gives ELOOP; checked on 6.18 with a chain of /bin/sh).
 */
#define ELFDEPS_MAX_SCRIPTS 5

int elfdeps_check_wx(const char *exe)
{
	char path[PATH_MAX], interp[PATH_MAX], none[1];
	int rc, level;

	if (strlen(exe) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, exe);
	/* A script: the kernel maps its interpreter (maybe a script itself), not it. */
	for (level = 0;; level++) {
		rc = script_interp(path, interp, sizeof(interp));
		if (rc <= 0)
			break;
		if (level == ELFDEPS_MAX_SCRIPTS)
			return -ELOOP;
		/* A relative name is the exec's cwd's, which we cannot know here. */
		if (interp[0] != '/')
			return -ENOEXEC;
		strcpy(path, interp);
	}
	if (rc < 0)
		return rc;
	rc = elf_wx_one(path, interp, sizeof(interp));
	if (rc == -ENOEXEC)
		return 0; /* neither ELF nor a script: the exec fails (unless binfmt_misc runs it) */
	if (rc < 0 || interp[0] == '\0')
		return rc;
	rc = elf_wx_one(interp, none, sizeof(none));
	return rc == -ENOEXEC ? 0 : rc;
}
