/*
 * JetsonBench::PageCost: what a page the process has never written costs
 * on this machine, for the header of bench/large.rb's results. Built with
 * the floor (bench/support/floor.rb); not part of the gem.
 *
 * A large document's result often lands on such pages (issue 55), and what
 * they cost is the machine's, not the generator's: on bare metal or under
 * hardware-assisted paging, a fresh page costs its fault and its zeroing,
 * and a page populated ahead (MADV_POPULATE_WRITE, as
 * ext/jetson/bytes/fresh_pages.c does) is then written at memory speed. A
 * hypervisor that maps a guest's pages lazily or through shadow page tables
 * charges the first write of each page again, in a fault the guest kernel
 * never sees: populated pages then still cost several microseconds each,
 * with 0 faults counted. sample() measures both passes on fresh mappings,
 * so that a results file says which kind of machine it came from.
 *
 * C99 and Ruby's public C API; Linux only (elsewhere sample returns nil).
 */
#include "page_cost.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long minor_faults(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

struct pass {
    double us_per_page;
    double faults_per_page;
};

/* One byte written into each page of [map, map + len): what it took. */
static struct pass write_pages(volatile char *map, size_t len, size_t page, char value)
{
    const size_t pages = len / page;
    const long faults = minor_faults();
    const double start = now();
    for (size_t at = 0; at < len; at += page) map[at] = value;
    struct pass result = {(now() - start) * 1e6 / (double)pages,
                          (double)(minor_faults() - faults) / (double)pages};
    return result;
}

static char *fresh_map(size_t len)
{
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) rb_sys_fail("mmap");
    return map;
}

static void set_pass(VALUE hash, const char *us, const char *faults, struct pass pass)
{
    rb_hash_aset(hash, ID2SYM(rb_intern(us)), DBL2NUM(pass.us_per_page));
    if (faults) rb_hash_aset(hash, ID2SYM(rb_intern(faults)), DBL2NUM(pass.faults_per_page));
}

/* PageCost.sample(bytes) -> Hash: two fresh mappings of `bytes`, microseconds
 * and faults per page. The first is written (:written_us, :written_faults),
 * then written again (:resident_us). The second is populated first
 * (:populate_us; nil where the kernel cannot), then written
 * (:after_populate_us, :after_populate_faults). */
static VALUE page_cost_sample(VALUE self, VALUE bytes)
{
    (void)self;
    const long page_size = sysconf(_SC_PAGESIZE);
    const long requested = NUM2LONG(bytes);
    if (page_size <= 0 || requested < page_size) rb_raise(rb_eArgError, "at least one page");
    const size_t page = (size_t)page_size;
    const size_t len = (size_t)requested / page * page;
    VALUE result = rb_hash_new();
    rb_hash_aset(result, ID2SYM(rb_intern("page_size")), SIZET2NUM(page));

    char *map = fresh_map(len);
    set_pass(result, "written_us", "written_faults", write_pages(map, len, page, 1));
    set_pass(result, "resident_us", NULL, write_pages(map, len, page, 2));
    munmap(map, len);

    map = fresh_map(len);
    const double start = now();
    if (madvise(map, len, MADV_POPULATE_WRITE) == 0) {
        rb_hash_aset(result, ID2SYM(rb_intern("populate_us")), DBL2NUM((now() - start) * 1e6 / (double)(len / page)));
        set_pass(result, "after_populate_us", "after_populate_faults", write_pages(map, len, page, 1));
    } else {
        rb_hash_aset(result, ID2SYM(rb_intern("populate_us")), Qnil);
    }
    munmap(map, len);
    return result;
}
#else
static VALUE page_cost_sample(VALUE self, VALUE bytes)
{
    (void)self;
    (void)bytes;
    return Qnil;
}
#endif

void jetson_bench_init_page_cost(VALUE mJetsonBench)
{
    VALUE mPageCost = rb_define_module_under(mJetsonBench, "PageCost");
    rb_define_module_function(mPageCost, "sample", page_cost_sample, 1);
}
