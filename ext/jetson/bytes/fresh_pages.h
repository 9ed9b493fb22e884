#ifndef JETSON_BYTES_FRESH_PAGES_H
#define JETSON_BYTES_FRESH_PAGES_H

/* Large buffers' pages, handed in by the kernel in one call instead of one
 * page fault per 4 KiB written (see fresh_pages.c). */

#include "bytes/base.h"

/* Below this size a buffer's faults are not worth a system call: 32 pages
 * fault in for about what mincore and madvise cost. From here on the pages
 * come in one call (twitter.json, 467 KB, in bench/large.rb's steady heap:
 * 527 calls a second against 276 faulting them in, AMD EPYC VM). */
#define JT_FRESH_PAGES_MIN ((size_t)128 * 1024)

/* Makes the whole pages of [ptr, ptr + len) that are not in memory present
 * and writable, as writing them would, without changing a byte. Memory the
 * caller owns and is about to write; does nothing where the system cannot. */
void jt_fresh_pages_populate(char *ptr, size_t len);

/* Populates `len` bytes of a fresh mapping and counts its resident pages
 * afterwards (for the tests). */
void jt_fresh_pages_probe(size_t len, size_t *resident, size_t *pages);

#endif
