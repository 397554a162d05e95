/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 fragmentation at the source (RFC 8200 4.5), for the packets the
 * router originates itself (an echo reply larger than its port's MTU):
 * routers never fragment what they forward. Control thread: it allocates.
 */
#ifndef FR_IP6_FRAG_H
#define FR_IP6_FRAG_H

#include <stdint.h>

#include <rte_mbuf.h>

/*
 * Split the Ethernet+IPv6 frame @m, whose IPv6 header is followed directly
 * by its upper-layer header (no extension headers), into frames that fit
 * @mtu: each an IPv6 header, a Fragment header (identification @id, the
 * offset in 8-byte units, M on all but the last) and a piece of the
 * payload, a multiple of 8 bytes but the last. @m is left untouched.
 * @return the number of fragments written to @out (at most @max), or
 *   -EINVAL (an MTU that holds no 8 bytes of payload after the two
 *   headers, or @m not such a frame), -ENOBUFS (no mbufs),
 *   -E2BIG (more than @max needed).
 */
int ip6_fragment(const struct rte_mbuf *m, uint16_t mtu, uint32_t id, struct rte_mempool *mp,
		 struct rte_mbuf **out, unsigned int max);

#endif /* FR_IP6_FRAG_H */
