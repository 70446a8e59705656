/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU masks sized by CONFIG_NR_CPUS (pure; unit-tested). */
#ifndef SHIMK_CPUMASK_H
#define SHIMK_CPUMASK_H

#include <shimk/compiler.h>
#include <shimk/types.h>

#define NR_CPUS       CONFIG_NR_CPUS
#define CPUMASK_WORDS ((NR_CPUS + 63) / 64)

typedef struct cpumask
{
    uint64_t bits[CPUMASK_WORDS];
} cpumask_t;

/*
 * Single-bit updates are atomic (LOCK BTS/BTR), since masks such as an
 * address space's "CPUs that may cache it" change under other CPUs'
 * feet.  Whole-mask operations are plain: callers own their masks.
 */
static inline void cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
    __atomic_fetch_or(&m->bits[cpu / 64], 1ull << (cpu % 64),
                      __ATOMIC_SEQ_CST);
}

static inline void cpumask_clear_cpu(unsigned int cpu, cpumask_t *m)
{
    __atomic_fetch_and(&m->bits[cpu / 64], ~(1ull << (cpu % 64)),
                       __ATOMIC_SEQ_CST);
}

/* Clear cpu and say whether it was set, in one atomic step. */
static inline bool cpumask_test_and_clear_cpu(unsigned int cpu, cpumask_t *m)
{
    uint64_t bit = 1ull << (cpu % 64);

    return __atomic_fetch_and(&m->bits[cpu / 64], ~bit, __ATOMIC_SEQ_CST) &
           bit;
}

static inline bool cpumask_test_cpu(unsigned int cpu, const cpumask_t *m)
{
    return (__atomic_load_n(&m->bits[cpu / 64], __ATOMIC_RELAXED) >>
            (cpu % 64)) & 1;
}

void cpumask_clear(cpumask_t *m);
void cpumask_setall(cpumask_t *m, unsigned int nr);   /* CPUs 0..nr-1 */
void cpumask_copy(cpumask_t *dst, const cpumask_t *src);
void cpumask_and(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
void cpumask_or(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
void cpumask_andnot(cpumask_t *dst, const cpumask_t *a, const cpumask_t *b);
bool cpumask_equal(const cpumask_t *a, const cpumask_t *b);
bool cpumask_empty(const cpumask_t *m);
bool cpumask_subset(const cpumask_t *a, const cpumask_t *b);
bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b);
unsigned int cpumask_weight(const cpumask_t *m);

/* First set CPU >= from, or NR_CPUS when there is none. */
unsigned int cpumask_next(const cpumask_t *m, unsigned int from);

static inline unsigned int cpumask_first(const cpumask_t *m)
{
    return cpumask_next(m, 0);
}

/* "0-3,6" style, for logs; returns buf. */
char *cpumask_format(char *buf, size_t size, const cpumask_t *m);

#define for_each_cpu(cpu, mask)                                           \
    for ( (cpu) = cpumask_first(mask); (cpu) < NR_CPUS;                   \
          (cpu) = cpumask_next(mask, (cpu) + 1) )

#endif /* SHIMK_CPUMASK_H */
