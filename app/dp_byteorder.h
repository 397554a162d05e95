/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Byte order for the data path. DPDK's rte_be_to_cpu_16/32() are inline
 * assembly on x86, which the compiler can neither merge (the IPv4 total
 * length was read twice per packet) nor schedule; the builtins are plain
 * operations.
 */
#ifndef FR_DP_BYTEORDER_H
#define FR_DP_BYTEORDER_H

#include <rte_byteorder.h>

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define dp_ntohs(x) __builtin_bswap16(x)
#define dp_ntohl(x) __builtin_bswap32(x)
#else
#define dp_ntohs(x) ((uint16_t)(x))
#define dp_ntohl(x) ((uint32_t)(x))
#endif

#endif /* FR_DP_BYTEORDER_H */
