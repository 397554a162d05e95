/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FR_EAL_H
#define FR_EAL_H

/*
 * DPDK keeps a runtime directory per --file-prefix (/var/run/dpdk/PREFIX:
 * its shared config and memory segment arrays, about 7.5 MiB with
 * --no-huge) and leaves it behind when the process ends, and with
 * hugepages (no --huge-unlink) its hugepage files too, each holding its
 * page. Call this right after a successful rte_eal_init(): the directory
 * and the files are removed when the process exits, so runs with a prefix
 * of their own (every test, fuzzer and benchmark process) do not pile up
 * on disk or in hugepages, and a stopped router gives its memory back.
 * Only a primary that holds the prefix's config lock removes them: one
 * started with --in-memory or --no-shconf owns nothing there.
 */
void fr_eal_runtime_dir_remove_at_exit(void);

/*
 * After a failed rte_eal_init(): its runtime directory (and hugepage
 * files) removed now when this process took the prefix's config lock
 * before the failure (no usable hugepages, say); left alone when another
 * process holds it ("Cannot init config").
 */
void fr_eal_runtime_dir_remove_failed(void);

#endif
