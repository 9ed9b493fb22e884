#include "bytes/fresh_pages.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* A large document's buffer is often memory the kernel has just taken back:
 * Ruby frees the dead results of earlier calls in bulk when it sweeps, and
 * glibc then returns its heap's top (or a mapping) to the kernel. Writing
 * into it then costs one page fault per 4 KiB, and on virtual machines each
 * fault is dear: 5 MB of fresh pages took 24 ms here against 0.1 ms for the
 * same writes into resident ones (AMD EPYC VM, Linux 6.18), and a large
 * document ran in two modes, fast while its buffer stayed resident and 10 to
 * 50 times slower after each trim (issue 55). MADV_POPULATE_WRITE (Linux
 * 5.14) maps the same pages in one call: 14.5 ms for the 5 MB. It is asked
 * only for runs of pages mincore reports absent: on resident pages it still
 * walks every page (0.12 ms for 5 MB, as much as writing them), mincore
 * 4 us. Where the system has neither (another OS, an older kernel's
 * EINVAL), the writes fault the pages in as before. */
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23 /* <linux/mman.h>; headers older than the kernel may lack it */
#endif

#if defined(__linux__)
/* Pages looked at per mincore call: its vector is a byte per page. */
#define PAGES_PER_PROBE 1024
/* Absent runs this close are populated as one: a resident page costs the
 * call about 0.1 us, a call of its own about 1 us. */
#define GAP_PAGES 8

static void populate_run(uintptr_t start, uintptr_t end)
{
    if (end > start) (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
#endif

/* JETSON_FRESH_PAGES=0 leaves the pages to the writes' faults: for a
 * kernel where populating misbehaves, and for bench/large.rb's contender
 * that shows what populating saves. Read on each large buffer, not once at
 * load, so that the benchmark can switch it between slices. */
static bool fresh_pages_off(void)
{
    const char *setting = getenv("JETSON_FRESH_PAGES");
    return setting && strcmp(setting, "0") == 0;
}

void jt_fresh_pages_populate(char *ptr, size_t len)
{
#if defined(__linux__)
    if (len < JT_FRESH_PAGES_MIN || fresh_pages_off()) return;
    const long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return;
    const uintptr_t page = (uintptr_t)page_size;
    /* Only whole pages: the partial ones at either end may hold another
     * allocation's bytes, and are written (faulted) as usual. */
    uintptr_t at = ((uintptr_t)ptr + page - 1) & ~(page - 1);
    const uintptr_t end = ((uintptr_t)ptr + len) & ~(page - 1);
    unsigned char resident[PAGES_PER_PROBE];
    uintptr_t run_start = 0, run_end = 0; /* the absent pages to populate next */
    while (at < end) {
        size_t pages = (size_t)((end - at) / page);
        if (pages > PAGES_PER_PROBE) pages = PAGES_PER_PROBE;
        if (mincore((void *)at, pages * page, resident) != 0) break;
        for (size_t i = 0; i < pages; i++) {
            if (resident[i] & 1) continue;
            const uintptr_t here = at + i * page;
            if (!run_start || here - run_end > GAP_PAGES * page) {
                if (run_start) populate_run(run_start, run_end);
                run_start = here;
            }
            run_end = here + page;
        }
        at += pages * page;
    }
    if (run_start) populate_run(run_start, run_end);
#else
    (void)ptr;
    (void)len;
#endif
}

/* For the tests (test/fresh_pages_test.rb): maps `len` bytes the process has
 * never touched, populates them as a buffer would be, and returns how many
 * of its whole pages are then in memory and how many there are (on a system
 * without populating, resident stays 0). */
void jt_fresh_pages_probe(size_t len, size_t *resident, size_t *pages)
{
    *resident = 0;
    *pages = 0;
#if defined(__linux__)
    const long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return;
    const size_t page = (size_t)page_size;
    len = (len + page - 1) / page * page;
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) rb_sys_fail("mmap");
    /* From the second byte, as a malloc'd buffer starts past its header: the
     * partial first page is left to the writes. */
    jt_fresh_pages_populate((char *)map + 1, len - 1);
    unsigned char vector[PAGES_PER_PROBE];
    for (size_t at = 0; at < len; at += PAGES_PER_PROBE * page) {
        size_t n = (len - at) / page;
        if (n > PAGES_PER_PROBE) n = PAGES_PER_PROBE;
        if (mincore((char *)map + at, n * page, vector) != 0) break;
        for (size_t i = 0; i < n; i++) *resident += vector[i] & 1;
        *pages += n;
    }
    munmap(map, len);
#else
    (void)len;
#endif
}
