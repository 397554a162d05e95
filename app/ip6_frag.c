/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 fragmentation at the source: see ip6_frag.h. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "ip6.h"
#include "ip6_frag.h"

#define IP6_FRAG_HDR_LEN 8
#define IP6_NH_FRAGMENT	 44

int ip6_fragment(const struct rte_mbuf *m, uint16_t mtu, uint32_t id, struct rte_mempool *mp,
		 struct rte_mbuf **out, unsigned int max)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);
	const uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
	/* the payload a fragment carries: whole 8-byte units */
	const uint32_t piece = (uint32_t)(mtu - sizeof(*ip) - IP6_FRAG_HDR_LEN) & ~7u;
	uint32_t pos = 0;
	unsigned int n = 0;

	if (mtu < sizeof(*ip) + IP6_FRAG_HDR_LEN + 8 || plen == 0 ||
	    rte_pktmbuf_pkt_len(m) < sizeof(*eth) + sizeof(*ip) + plen)
		return -EINVAL;
	/* extension headers would have to be split into the unfragmentable
	 * and fragmentable parts; the router's own packets carry none */
	if (ip->proto == 0 || ip->proto == 43 || ip->proto == IP6_NH_FRAGMENT || ip->proto == 60)
		return -EINVAL;
	while (pos < plen) {
		const uint32_t chunk = plen - pos > piece ? piece : plen - pos;
		const int more = pos + chunk < plen;
		struct rte_ether_hdr *feth;
		struct rte_ipv6_hdr *fip;
		struct rte_mbuf *f;
		uint8_t *fh;
		uint16_t offm;
		uint32_t idn = rte_cpu_to_be_32(id);
		char *p;

		if (n == max) {
			rte_pktmbuf_free_bulk(out, n);
			return -E2BIG;
		}
		f = rte_pktmbuf_alloc(mp);
		p = f ? rte_pktmbuf_append(f, (uint16_t)(sizeof(*eth) + sizeof(*ip) +
							 IP6_FRAG_HDR_LEN + chunk))
		      : NULL;
		if (p == NULL) {
			rte_pktmbuf_free(f);
			rte_pktmbuf_free_bulk(out, n);
			return -ENOBUFS;
		}
		feth = (struct rte_ether_hdr *)p;
		*feth = *eth;
		fip = (struct rte_ipv6_hdr *)(feth + 1);
		*fip = *ip;
		fip->payload_len = rte_cpu_to_be_16((uint16_t)(IP6_FRAG_HDR_LEN + chunk));
		fip->proto = IP6_NH_FRAGMENT;
		fh = (uint8_t *)(fip + 1);
		fh[0] = ip->proto; /* the next header: what follows the fragments once joined */
		fh[1] = 0;
		offm = rte_cpu_to_be_16(
			(uint16_t)(pos | (more ? 1u : 0u))); /* pos: 8-byte aligned */
		memcpy(fh + 2, &offm, 2);
		memcpy(fh + 4, &idn, 4);
		{
			uint8_t *dst = fh + IP6_FRAG_HDR_LEN;
			const void *src = rte_pktmbuf_read(
				m, (uint32_t)(sizeof(*eth) + sizeof(*ip) + pos), chunk, dst);

			if (src == NULL) {
				rte_pktmbuf_free(f);
				rte_pktmbuf_free_bulk(out, n);
				return -EINVAL;
			}
			if (src != dst)
				memcpy(dst, src, chunk);
		}
		out[n++] = f;
		pos += chunk;
	}
	return (int)n;
}
