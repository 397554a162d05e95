/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation (RFC 791 3.2, RFC 1812 5.2.6), for the control thread:
 * it allocates, so the data path hands such packets over.
 */
#ifndef FR_IP4_FRAG_H
#define FR_IP4_FRAG_H

#include <stdint.h>

#include <rte_mbuf.h>

/*
 * Split the Ethernet+IPv4 frame @m (DF clear) into frames whose IP packets
 * fit @mtu: payload in multiples of 8 bytes, offsets and MF set (a fragment
 * of a fragment keeps its place and its last piece the original MF), the
 * first fragment with every option, the others with the options whose copy
 * bit is set. @m is left untouched.
 * @return the number of fragments written to @out (at most @max), or
 *   -EINVAL (MTU too small for the header plus 8 bytes), -ENOBUFS (no mbufs),
 *   -E2BIG (more than @max fragments needed).
 */
int ip4_fragment(const struct rte_mbuf *m, uint16_t mtu, struct rte_mempool *mp,
		 struct rte_mbuf **out, unsigned int max);

#endif /* FR_IP4_FRAG_H */
