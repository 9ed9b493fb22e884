#ifndef JETSON_BENCH_PAGE_COST_H
#define JETSON_BENCH_PAGE_COST_H

#include <ruby.h>

/* Defines JetsonBench::PageCost.sample (page_cost.c) under mJetsonBench. */
void jetson_bench_init_page_cost(VALUE mJetsonBench);

#endif
