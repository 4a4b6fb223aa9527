/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the fixed frame-buffer pool of netdev.h: a free list threaded
 * through the descriptors, so alloc and free are O(1) and nothing is
 * allocated after init.
 */
#include <errno.h>
#include <stdlib.h>

#include <netdev/netdev.h>

void netdev_pool_init_on(struct netdev_pool *p, struct netdev_buf *desc, uint8_t *mem, uint32_t n,
			 uint32_t size)
{
	*p = (struct netdev_pool){.bufs = desc, .mem = mem, .n = n, .size = size};
	/* Thread the free list backwards so the first allocation is buffer 0. */
	for (uint32_t i = n; i-- > 0;) {
		struct netdev_buf *b = &desc[i];

		*b = (struct netdev_buf){.data = mem + (size_t)i * size, .cap = size, .idx = i};
		b->next_free = p->free_head;
		p->free_head = b;
	}
}

int netdev_pool_init(struct netdev_pool *p, uint32_t n, uint32_t size)
{
	struct netdev_buf *desc;
	uint8_t *mem;

	if (n == 0 || size < NETDEV_ETH_HLEN)
		return -EINVAL;
	desc = calloc(n, sizeof(*desc));
	mem = malloc((size_t)n * size);
	if (desc == NULL || mem == NULL) {
		free(desc);
		free(mem);
		return -ENOMEM;
	}
	netdev_pool_init_on(p, desc, mem, n, size);
	p->own_mem = true;
	return 0;
}

void netdev_pool_fini(struct netdev_pool *p)
{
	if (p->own_mem) {
		free(p->bufs);
		free(p->mem);
	}
	*p = (struct netdev_pool){0};
}

struct netdev_buf *netdev_buf_alloc(struct netdev_pool *p)
{
	struct netdev_buf *b = p->free_head;

	if (b == NULL) {
		p->alloc_fail++;
		return NULL;
	}
	p->free_head = b->next_free;
	b->next_free = NULL;
	b->out = true;
	b->len = 0;
	b->flags = 0;
	b->ts_ns = 0;
	b->cookie = 0;
	b->gso_size = 0;
	if (++p->out > p->out_max)
		p->out_max = p->out;
	return b;
}

void netdev_buf_free(struct netdev_pool *p, struct netdev_buf *b)
{
	if (b == NULL)
		return;
	/* A buffer that is not out, or not this pool's, would corrupt the free list: stop here. */
	if (!b->out || b < p->bufs || b >= p->bufs + p->n)
		abort();
	b->out = false;
	b->next_free = p->free_head;
	p->free_head = b;
	p->out--;
}
