/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 fragmentation: see ip4_frag.h. */
#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "ip4_frag.h"

/* Copy the options of @opt (length @len) that later fragments carry
 * (RFC 791: copy bit 0x80) into @dst; returns their length padded to 4. */
static uint32_t copied_options(const uint8_t *opt, uint32_t len, uint8_t *dst)
{
	uint32_t i = 0, o = 0;

	while (i < len) {
		uint8_t type = opt[i], olen;

		if (type == 0) /* end of list */
			break;
		if (type == 1) { /* no-op: copy bit clear */
			i++;
			continue;
		}
		if (i + 1 >= len)
			break;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > len)
			break; /* malformed: copy no further */
		if (type & 0x80) {
			memcpy(dst + o, opt + i, olen);
			o += olen;
		}
		i += olen;
	}
	while (o % 4)
		dst[o++] = 0; /* end of list, padding */
	return o;
}

int ip4_fragment(const struct rte_mbuf *m, uint16_t mtu, struct rte_mempool *mp,
		 struct rte_mbuf **out, unsigned int max)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	uint32_t ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length), plen = tot - ihl;
	uint16_t off0 = rte_be_to_cpu_16(ip->fragment_offset);
	uint32_t base = (uint32_t)(off0 & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	int last_mf = !!(off0 & RTE_IPV4_HDR_MF_FLAG);
	uint8_t later_opts[40];
	uint32_t later_ihl, pos = 0;
	unsigned int n = 0;

	later_ihl = sizeof(*ip) +
		    copied_options((const uint8_t *)(ip + 1), ihl - sizeof(*ip), later_opts);
	if (mtu < ihl + 8 || mtu < later_ihl + 8)
		return -EINVAL;
	/* a fragment whose data would end past 65535 (offset 8125 with
	 * 1600 bytes, say): its pieces' offsets would not fit the 13-bit
	 * field and run into the flags */
	if (base + plen > 65535)
		return -EINVAL;
	while (pos < plen) {
		uint32_t hl = n == 0 ? ihl : later_ihl;
		uint32_t chunk = (uint32_t)(mtu - hl) & ~7u;
		int more;
		struct rte_mbuf *f;
		struct rte_ether_hdr *feth;
		struct rte_ipv4_hdr *fip;
		char *p;

		if (chunk >= plen - pos)
			chunk = plen - pos;
		more = pos + chunk < plen || last_mf;
		if (n == max) {
			rte_pktmbuf_free_bulk(out, n);
			return -E2BIG;
		}
		f = rte_pktmbuf_alloc(mp);
		if (f == NULL) {
			rte_pktmbuf_free_bulk(out, n);
			return -ENOBUFS;
		}
		p = rte_pktmbuf_append(f, (uint16_t)(sizeof(*eth) + hl + chunk));
		if (p == NULL) {
			rte_pktmbuf_free(f);
			rte_pktmbuf_free_bulk(out, n);
			return -ENOBUFS;
		}
		feth = (struct rte_ether_hdr *)p;
		*feth = *eth;
		fip = (struct rte_ipv4_hdr *)(feth + 1);
		*fip = *ip;
		if (n == 0)
			memcpy(fip + 1, ip + 1, ihl - sizeof(*ip));
		else
			memcpy(fip + 1, later_opts, later_ihl - sizeof(*ip));
		fip->version_ihl = (uint8_t)(0x40 | hl / 4);
		fip->total_length = rte_cpu_to_be_16((uint16_t)(hl + chunk));
		fip->fragment_offset = rte_cpu_to_be_16(
			(uint16_t)(((base + pos) / 8) | (more ? RTE_IPV4_HDR_MF_FLAG : 0)));
		{
			char *dst = p + sizeof(*eth) + hl;
			const void *src =
				rte_pktmbuf_read(m, (uint32_t)sizeof(*eth) + ihl + pos, chunk, dst);

			if (src == NULL) { /* shorter than its header says: refuse */
				rte_pktmbuf_free(f);
				rte_pktmbuf_free_bulk(out, n);
				return -EINVAL;
			}
			if (src != dst)
				memcpy(dst, src, chunk);
		}
		fip->hdr_checksum = 0;
		fip->hdr_checksum = rte_ipv4_cksum(fip);
		out[n++] = f;
		pos += chunk;
	}
	return (int)n;
}
