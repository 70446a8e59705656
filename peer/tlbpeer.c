/* SPDX-License-Identifier: GPL-2.0-only */
/* tlbpeer: tlbbench's remap and churn cells, run by a Linux guest. */

/*
 * Linux measured beside shimk under the same L0 boot (issue #16, item
 * 4; docs/linux-peer.md).  A static program for the host's GCC and
 * glibc that does what tlbbench's remap cell and churn cell do inside
 * shimk, the same way: rdtsc around the call that makes the kernel
 * flush other CPUs, blocks repeated in a shuffled order, the median of
 * the block medians, and a check on every read.  Its lines are
 * tlbbench's (docs/tlbbench.md, "Line format") with os=linux added.
 *
 * As PID 1 of the peer's initramfs it is also the init: it mounts
 * /proc, runs the benchmark in a child, prints "tlbpeer: exit N" and
 * powers the guest off.  Otherwise it runs the benchmark and exits:
 *
 *     tlbpeer [quick|full]      (default: peer= on /proc/cmdline, else
 *                                quick)
 *
 * Exit status: 0 when every cell checked reads and none was stale, 1
 * when a read was stale or a workload did no work (the figures are
 * wrong), 2 when the benchmark could not run (a thread could not be
 * pinned, a reader stopped answering, ...).
 */

#define _GNU_SOURCE
#include <cpuid.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * shimk's own pure files, linked in: tlbbench's statistics, and the rule
 * that names the L0.
 */
#include <guest/cpuid-leaves.h>
#include <shimk/bench-stats.h>
#include <shimk/tlbb-line.h>

#define PAGE 4096ul
#define SLOTS 8                 /* tagged slots per remap block, as tlbbench */
#define MAX_CPUS 64
#define MAX_REPS 8
#define MAX_CELLS 16
#define CHURN_PAGES 8           /* pages each churn thread maps per pass */
#define CHURN_THREADS 16        /* tlbbench's churn caps its threads too */
#define CHURN_BLOCK_NS 3000000000ull    /* tlbbench's 3 s churn deadline */
#define PROGRESS_NS 20000000000ull  /* at most one progress line per 20 s */
/* A thread that does not answer for this long has stopped: not slowness. */
#define ANSWER_NS 60000000000ull
#define TAG_MAGIC 0x7470656572746167ull     /* "gatreept" */
#define SINK_MAGIC 0x6b6e697372656570ull    /* "peersink" */
#define CHURN_TAG(me, r, p) (0xc4ull << 56 | (uint64_t)(me) << 48 | \
                             (uint64_t)(r) << 16 | (p))

struct profile
{
    const char *name;
    unsigned int reps;          /* blocks per remap cell */
    unsigned int flushes;       /* timed calls per remap block */
    unsigned int churn_passes;  /* passes per churn thread, at most */
    unsigned int churn_reps;    /* churn blocks */
    bool all_counts;            /* 1, 2, 4, ... or just 1 and all others */
    unsigned int init_bound_s;  /* how long init waits for the benchmark */
};

/* tlbbench's own quick and full profiles (kernel/tlbbench/run.c). */
static const struct profile profiles[] = {
    { "quick", 3, 60, 150, 3, false, 900 },
    { "full", 5, 400, 200, 7, true, 7200 },
};

struct lat
{
    uint64_t p50, p90, p99, max;
};

enum { WL_REMAP, WL_CHURN };

struct cell
{
    unsigned int wl, n;         /* n: remap targets, churn threads */
    unsigned int reps;
    struct lat rep_lat[MAX_REPS];
    uint64_t rep_fps[MAX_REPS]; /* flushes/s, or churn ops/s */
    uint64_t rep_ops[MAX_REPS];
    uint64_t rep_ipis[MAX_REPS];
    uint64_t ipis, checked, stale;
    unsigned int idle;          /* blocks that did no work */
};

static struct cell cells[MAX_CELLS];
static unsigned int nr_cells;
static int cpus[MAX_CPUS];      /* online CPUs; cpus[0] is the initiator's */
static unsigned int nr_cpus;
static uint64_t tsc_khz;
static char hv[16];
static char prefix[160];

/* --- small helpers --- */

static void die(int code, const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    printf("tlbpeer: error: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    exit(code);
}

/* rdtsc ordered against the code around it, as shimk's rdtsc_ordered(). */
static inline uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;

    __asm__ __volatile__("lfence; rdtsc; lfence"
                         : "=a"(lo), "=d"(hi) :: "memory");
    return (uint64_t)hi << 32 | lo;
}

static inline void cpu_relax(void)
{
    __asm__ __volatile__("pause" ::: "memory");
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long futex(uint32_t *word, int op, uint32_t val)
{
    return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static int pin_to(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if ( sched_setaffinity(0, sizeof(set), &set) )
        return -errno;
    /* The call returns with the thread migrated, but say so if not. */
    return sched_getcpu() == cpu ? 0 : -EAGAIN;
}

/*
 * TLB shootdowns this guest's CPUs have taken, from /proc/interrupts'
 * "TLB" line (Linux counts one in flush_tlb_func() for every remote
 * flush a CPU handles).  A flush Linux skipped (a lazy CPU) or left to
 * the L0 (KVM's PV flush of a preempted vCPU) is not counted.
 */
static uint64_t tlb_interrupts(void)
{
    FILE *f = fopen("/proc/interrupts", "r");
    char line[4096];
    uint64_t sum = 0;

    if ( !f )
        return 0;
    while ( fgets(line, sizeof(line), f) )
    {
        char *p = line, *end;

        while ( *p == ' ' )
            p++;
        if ( strncmp(p, "TLB:", 4) )
            continue;
        p += 4;
        for ( ;; )
        {
            unsigned long long v = strtoull(p, &end, 10);

            if ( end == p )
                break;
            sum += v;
            p = end;
        }
        break;
    }
    fclose(f);
    return sum;
}

/* --- what this guest is --- */

/* The CPUID instruction, as the shared rule reads it. */
static void peer_cpuid(uint32_t leaf, uint32_t subleaf, struct cpuid_leaf *r)
{
    __cpuid_count(leaf, subleaf, r->a, r->b, r->c, r->d);
}

/*
 * The L0 by shimk's own rule, linked from guest/cpuid-leaves.c and
 * guest/hyperv/leaves.c (hv_identify()), so that the peer's hv= is
 * shimk's on the same L0: Xen first, then Hyper-V (KVM with Hyper-V
 * enlightenments counts as hyperv when it recommends its remote flush,
 * as shimk then uses it), KVM, TCG.
 */
static void detect_hv(void)
{
    struct hv_leaves l;
    uint32_t a, b, c, d;

    __cpuid(1, a, b, c, d);
    hv_identify(peer_cpuid, c & 1u << 31, hyperv_leaves_want_flush, true,
                &l);
    snprintf(hv, sizeof(hv), "%s", hv_type_name(l.type));
}

/*
 * How this kernel flushes remote TLBs and sends IPIs, from what it
 * logged at boot: Linux picks a PV flush by rule when the L0 offers
 * one (arch/x86/kernel/kvm.c, arch/x86/hyperv/mmu.c), and under Xen
 * HVM/PVH sends its call-function IPIs as event channels, which
 * /proc/interrupts names.  Unknown is said as such, never guessed.
 */
static void flush_path(const char **flush, const char **ipi, char *l0,
                       size_t l0_size)
{
    int size = klogctl(10, NULL, 0);    /* SYSLOG_ACTION_SIZE_BUFFER */
    char *log = size > 0 ? malloc((size_t)size + 1) : NULL;
    int got = log ? klogctl(3, log, size) : -1;     /* READ_ALL */
    FILE *f;
    char line[512], *p;

    *flush = "unknown";
    *ipi = "unknown";
    snprintf(l0, l0_size, "unknown");
    if ( got >= 0 )
    {
        log[got] = '\0';
        /* Which L0 interface Linux took, as one word: "Xen HVM" xen-hvm. */
        snprintf(l0, l0_size, "none");
        if ( (p = strstr(log, "Hypervisor detected: ")) )
        {
            size_t i = 0;

            for ( p += 21; *p && *p != '\n' && i + 1 < l0_size; p++ )
                l0[i++] = *p == ' ' ? '-' : (char)tolower((unsigned char)*p);
            l0[i] = '\0';
        }
        *flush = "ipi";
        *ipi = "apic";
        if ( strstr(log, "KVM setup pv remote TLB flush") )
            *flush = "kvm-pv";
        if ( strstr(log, "Using hypercall for remote TLB flush") )
            *flush = "hyperv";
        if ( strstr(log, "KVM setup pv IPIs") )
            *ipi = "kvm-pv";
        if ( strstr(log, "Using IPI hypercalls") )
            *ipi = "hyperv";
    }
    free(log);
    f = fopen("/proc/interrupts", "r");
    while ( f && fgets(line, sizeof(line), f) )
        if ( strstr(line, "callfunc") && strstr(line, "xen") )
            *ipi = "xen-evtchn";
    if ( f )
        fclose(f);
}

/* TSC kHz against CLOCK_MONOTONIC over about 100 ms. */
static uint64_t calibrate_tsc(void)
{
    uint64_t n0, n1, t0, t1;

    n0 = now_ns();
    t0 = rdtsc_ordered();
    do
        n1 = now_ns();
    while ( n1 - n0 < 100000000ull );
    t1 = rdtsc_ordered();
    return (uint64_t)((unsigned __int128)(t1 - t0) * 1000000 / (n1 - n0));
}

static void find_cpus(void)
{
    cpu_set_t set;

    if ( sched_getaffinity(0, sizeof(set), &set) )
        die(2, "sched_getaffinity: %s", strerror(errno));
    for ( int c = 0; c < CPU_SETSIZE && nr_cpus < MAX_CPUS; c++ )
        if ( CPU_ISSET(c, &set) )
            cpus[nr_cpus++] = c;
    if ( !nr_cpus )
        die(2, "no CPU to run on");
}

/* --- remap: one CPU changes tagged slots, n others read them --- */

struct tag
{
    uint64_t magic, slot, gen;
};

struct reader
{
    pthread_t th;
    struct remap *rm;
    int cpu;
    int err;                    /* pinning failed: -errno */
    uint64_t checked, stale;
    uint64_t bad_slot, bad_magic, bad_gen, bad_want;
};

struct remap
{
    unsigned char *slots;
    uint64_t gen[SLOTS];        /* the generation each slot must show */
    uint32_t round;             /* futex word: the round readers wait for */
    uint32_t flushed;           /* the last round whose flush returned */
    uint32_t armed;             /* reader arrivals, all rounds together */
    uint32_t started;
    uint32_t stop;
    struct reader rd[MAX_CPUS];
};

/*
 * Every slot must hold its own tag of at least the generation published
 * before the read.  A slot whose mapping was changed and flushed but that
 * still shows an older generation, another slot's tag, the sink's marker
 * or anything else was read through a translation that should be gone.
 */
static void check_slots(struct remap *rm, struct reader *r)
{
    for ( unsigned int s = 0; s < SLOTS; s++ )
    {
        uint64_t want = __atomic_load_n(&rm->gen[s], __ATOMIC_ACQUIRE);
        const volatile struct tag *t =
            (const volatile struct tag *)(rm->slots + s * PAGE);
        uint64_t magic = t->magic, slot = t->slot, gen = t->gen;

        r->checked++;
        if ( magic == TAG_MAGIC && slot == s && gen >= want )
            continue;
        if ( !r->stale++ )
        {
            r->bad_slot = s;
            r->bad_magic = magic;
            r->bad_gen = gen;
            r->bad_want = want;
        }
    }
}

static void *remap_reader(void *arg)
{
    struct reader *r = arg;
    struct remap *rm = r->rm;
    uint32_t last = 0;

    r->err = pin_to(r->cpu);
    __atomic_fetch_add(&rm->started, 1, __ATOMIC_RELEASE);
    if ( r->err )
        return NULL;
    /*
     * Wait for each round asleep (futex), so that between flushes this
     * vCPU gives its host CPU back, as tlbbench's halting readers do.
     * Once a round starts: read every slot (the TLB now holds them),
     * say so, and spin in user space until the flush is done.  A
     * spinning thread is what Linux flushes: a CPU that sleeps goes
     * idle in lazy-TLB mode and Linux skips it (flush_tlb_multi() asks
     * only the CPUs that are not lazy), so a reader that slept through
     * the flush would not be a target and the cell would measure n = 0
     * under another name.  Then read every slot again: the checked read
     * after the flush.
     */
    for ( ;; )
    {
        uint32_t cur;

        while ( (cur = __atomic_load_n(&rm->round, __ATOMIC_ACQUIRE)) ==
                last && !__atomic_load_n(&rm->stop, __ATOMIC_ACQUIRE) )
            futex(&rm->round, FUTEX_WAIT_PRIVATE, last);
        if ( __atomic_load_n(&rm->stop, __ATOMIC_ACQUIRE) )
            break;
        check_slots(rm, r);
        __atomic_fetch_add(&rm->armed, 1, __ATOMIC_RELEASE);
        while ( __atomic_load_n(&rm->flushed, __ATOMIC_ACQUIRE) != cur &&
                !__atomic_load_n(&rm->stop, __ATOMIC_ACQUIRE) )
            cpu_relax();
        check_slots(rm, r);
        last = cur;
    }
    return NULL;
}

/* Spin until *word reaches want; die naming who did not come. */
static void await(uint32_t *word, uint32_t want, const char *what,
                  unsigned int round)
{
    uint64_t start = now_ns();
    unsigned int spins = 0;

    while ( __atomic_load_n(word, __ATOMIC_ACQUIRE) < want )
    {
        cpu_relax();
        if ( ++spins % 4096 == 0 && now_ns() - start > ANSWER_NS )
            die(2, "remap: %s: %u of %u after %llu s (round %u): a reader "
                "stopped answering", what,
                __atomic_load_n(word, __ATOMIC_ACQUIRE), want,
                ANSWER_NS / 1000000000ull, round);
    }
}

static void remap_block(struct cell *c, const struct profile *pf,
                        unsigned int rep)
{
    struct remap *rm;
    unsigned char *sink;
    uint64_t *lat = calloc(pf->flushes, sizeof(*lat));
    uint64_t start, elapsed, ipis0, stale = 0, checked = 0;
    struct reader self = { 0 };
    unsigned int n = c->n;

    rm = mmap(NULL, sizeof(*rm), PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ( !lat || rm == MAP_FAILED )
        die(2, "remap: out of memory");
    /*
     * The slots are one anonymous mapping, written by this thread.  The
     * sink has a page per flush: right after each madvise() this thread
     * writes the next sink page, which takes the frame the slot just
     * gave back (Linux hands a CPU's last freed page out first), and
     * only then the slot's new page.  So a reader still reaching the
     * old frame finds the sink's marker there, not the slot's new tag.
     */
    rm->slots = mmap(NULL, SLOTS * PAGE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    sink = mmap(NULL, pf->flushes * PAGE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ( rm->slots == MAP_FAILED || sink == MAP_FAILED )
        die(2, "remap: out of memory");
    for ( unsigned int s = 0; s < SLOTS; s++ )
    {
        struct tag *t = (struct tag *)(rm->slots + s * PAGE);

        t->magic = TAG_MAGIC;
        t->slot = s;
        t->gen = rm->gen[s] = 1;
    }

    for ( unsigned int i = 0; i < n; i++ )
    {
        struct reader *r = &rm->rd[i];
        int e;

        r->rm = rm;
        r->cpu = cpus[1 + i];
        e = pthread_create(&r->th, NULL, remap_reader, r);
        if ( e )
            die(2, "remap: cannot start a reader: %s", strerror(e));
    }
    await(&rm->started, n, "readers started", 0);
    for ( unsigned int i = 0; i < n; i++ )
        if ( rm->rd[i].err )
            die(2, "remap: cannot pin a reader to CPU %d: %s", rm->rd[i].cpu,
                strerror(-rm->rd[i].err));

    ipis0 = tlb_interrupts();
    start = rdtsc_ordered();
    for ( unsigned int i = 0; i < pf->flushes; i++ )
    {
        unsigned int s = i % SLOTS;
        uint32_t round = i + 1;
        volatile struct tag *t = (volatile struct tag *)(rm->slots + s * PAGE);
        volatile uint64_t *sp = (volatile uint64_t *)(sink + i * PAGE);
        uint64_t t0, t1;
        int rc;

        __atomic_store_n(&rm->round, round, __ATOMIC_RELEASE);
        if ( n )
            futex(&rm->round, FUTEX_WAKE_PRIVATE, INT_MAX);
        await(&rm->armed, n * round, "readers armed", round);
        /*
         * The flush-causing call: MADV_DONTNEED zaps the slot's page in
         * this address space and, before it returns, flushes it from
         * every CPU that runs the space and is not lazy (a shootdown,
         * tlb_finish_mmu() -> flush_tlb_mm_range()), then frees the
         * frame.  It takes mmap_lock for reading only, so a reader that
         * faults meanwhile does not sleep on the lock and stop being a
         * target; and it frees no page table (the other slots keep the
         * table in use), which would flush lazy CPUs too.  Unmapping
         * with munmap() or mmap(MAP_FIXED) holds mmap_lock for writing
         * and may free tables.  One page per call, like pages=1.
         */
        t0 = rdtsc_ordered();
        rc = madvise(rm->slots + s * PAGE, PAGE, MADV_DONTNEED);
        t1 = rdtsc_ordered();
        if ( rc )
            die(2, "remap: madvise(MADV_DONTNEED): %s", strerror(errno));
        lat[i] = t1 - t0;
        sp[0] = SINK_MAGIC;
        sp[1] = s;
        t->magic = TAG_MAGIC;
        t->slot = s;
        t->gen = rm->gen[s] + 1;
        __atomic_store_n(&rm->gen[s], rm->gen[s] + 1, __ATOMIC_RELEASE);
        __atomic_store_n(&rm->flushed, round, __ATOMIC_RELEASE);
        /* This CPU's own view after its own flush, so n = 0 checks too. */
        check_slots(rm, &self);
    }
    elapsed = rdtsc_ordered() - start;
    c->rep_fps[rep] = (uint64_t)pf->flushes * tsc_khz * 1000 /
                      (elapsed ? elapsed : 1);

    __atomic_store_n(&rm->stop, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&rm->round, pf->flushes + 1, __ATOMIC_RELEASE);
    futex(&rm->round, FUTEX_WAKE_PRIVATE, INT_MAX);
    for ( unsigned int i = 0; i < n; i++ )
    {
        struct reader *r = &rm->rd[i];

        pthread_join(r->th, NULL);
        if ( r->stale && !stale )
            printf("tlbpeer: remap n=%u rep %u: reader on CPU %d read slot "
                   "%" PRIu64 " as magic %#" PRIx64 " gen %" PRIu64
                   ", want gen %" PRIu64 "\n", n, rep, r->cpu, r->bad_slot,
                   r->bad_magic, r->bad_gen, r->bad_want);
        stale += r->stale;
        checked += r->checked;
    }
    c->rep_ipis[rep] = tlb_interrupts() - ipis0;
    if ( self.stale )
        printf("tlbpeer: remap n=%u rep %u: CPU %d read its own slot %"
               PRIu64 " as magic %#" PRIx64 " gen %" PRIu64 ", want gen %"
               PRIu64 "\n", n, rep, cpus[0], self.bad_slot, self.bad_magic,
               self.bad_gen, self.bad_want);
    stale += self.stale;
    checked += self.checked;

    {
        struct lat_summary ls;

        lat_summarize(lat, pf->flushes, &ls);
        c->rep_lat[rep] = (struct lat){ ls.p50, ls.p90, ls.p99, ls.max };
    }
    c->rep_ops[rep] = pf->flushes;
    c->ipis += c->rep_ipis[rep];
    c->stale += stale;
    c->checked += checked;
    munmap(sink, pf->flushes * PAGE);
    munmap(rm->slots, SLOTS * PAGE);
    munmap(rm, sizeof(*rm));
    free(lat);
}

/* --- churn: a thread per CPU maps, touches and unmaps --- */

/* Each thread's 2 MiB window: an anchor page, then its pages, a hole apart. */
#define WINDOW (2ul << 20)

struct churn
{
    unsigned char *arena;
    unsigned int nthreads, passes;
    uint32_t started;
    uint64_t deadline;          /* CLOCK_MONOTONIC ns */
    struct worker
    {
        pthread_t th;
        struct churn *ch;
        unsigned int me;
        int cpu, err;
        uint64_t ops, checked, stale, errors;
        uint64_t bad_va, bad_got, bad_want;
    } w[CHURN_THREADS];
};

static void churn_stale(struct worker *w, uintptr_t va, uint64_t got,
                        uint64_t want)
{
    if ( !w->stale++ )
    {
        w->bad_va = va;
        w->bad_got = got;
        w->bad_want = want;
    }
}

static void *churn_worker(void *arg)
{
    struct worker *w = arg;
    struct churn *ch = w->ch;
    unsigned char *win = ch->arena + w->me * WINDOW;
    unsigned int r;

    w->err = pin_to(w->cpu);
    /*
     * The window is part of a PROT_NONE reservation that keeps every
     * other mapping out; open holes in it for the anchor and the pages.
     * The anchor stays mapped for the whole block, so that the page
     * table under the window is never freed: every munmap() then flushes
     * one page from the CPUs running the space, as shimk's unmap does,
     * and never a freed table from every CPU (Linux flushes lazy CPUs
     * too for that).  The pages sit two apart, with the reservation
     * between them, so that each mmap() is a mapping of its own.
     */
    for ( unsigned int p = 0; !w->err && p < CHURN_PAGES; p++ )
        if ( munmap(win + (2 + 2 * p) * PAGE, PAGE) )
            w->err = -errno;
    if ( !w->err && (munmap(win, PAGE) ||
                     mmap(win, PAGE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                          -1, 0) != win) )
        w->err = -errno;
    __atomic_fetch_add(&ch->started, 1, __ATOMIC_RELEASE);
    if ( w->err )
        return NULL;
    *(volatile uint64_t *)win = w->me;
    /* Start together: the flush cost depends on who else is running. */
    while ( __atomic_load_n(&ch->started, __ATOMIC_ACQUIRE) < ch->nthreads &&
            now_ns() < ch->deadline )
        cpu_relax();
    for ( r = 0; r < ch->passes && now_ns() < ch->deadline; r++ )
    {
        unsigned int mapped = 0;

        for ( unsigned int p = 0; p < CHURN_PAGES; p++ )
        {
            unsigned char *va = win + (2 + 2 * p) * PAGE;
            volatile uint64_t *v = (volatile uint64_t *)va;
            void *got;

            got = mmap(va, PAGE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
            if ( got != va )
            {
                /* An old kernel may ignore NOREPLACE: give it back. */
                if ( got != MAP_FAILED )
                    munmap(got, PAGE);
                w->errors++;
                continue;
            }
            mapped |= 1u << p;
            /* A fresh anonymous page reads 0: anything else is stale. */
            w->checked++;
            if ( *v )
                churn_stale(w, (uintptr_t)va, *v, 0);
            *v = CHURN_TAG(w->me, r, p);
        }
        for ( unsigned int p = 0; p < CHURN_PAGES; p++ )
        {
            unsigned char *va = win + (2 + 2 * p) * PAGE;
            uint64_t got;

            if ( !(mapped >> p & 1) )
                continue;
            /* Its own tag until the unmap: else another CPU wrote it. */
            got = *(volatile uint64_t *)va;
            w->checked++;
            if ( got != CHURN_TAG(w->me, r, p) )
                churn_stale(w, (uintptr_t)va, got, CHURN_TAG(w->me, r, p));
            if ( munmap(va, PAGE) )
                w->errors++;
        }
    }
    w->ops = (uint64_t)r * CHURN_PAGES;
    munmap(win, PAGE);
    return NULL;
}

static void churn_block(struct cell *c, const struct profile *pf,
                        unsigned int rep)
{
    struct churn *ch = calloc(1, sizeof(*ch));
    uint64_t start, wall, ops = 0, errors = 0, stale = 0, checked = 0;
    uint64_t ipis0;
    unsigned int idle_threads = 0;
    void *res;

    if ( !ch )
        die(2, "churn: out of memory");
    /*
     * Reserve the windows, 2 MiB aligned, for the block: the threads
     * open holes in it and map there with MAP_FIXED_NOREPLACE, which
     * fails rather than replace anything (counted as errors).
     */
    res = mmap(NULL, (c->n + 1) * WINDOW, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if ( res == MAP_FAILED )
        die(2, "churn: cannot reserve %u windows: %s", c->n,
            strerror(errno));
    ch->arena = (unsigned char *)(((uintptr_t)res + WINDOW - 1) &
                                  ~(WINDOW - 1));
    ch->nthreads = c->n;
    ch->passes = pf->churn_passes;

    ipis0 = tlb_interrupts();
    start = now_ns();
    ch->deadline = start + CHURN_BLOCK_NS;
    for ( unsigned int i = 0; i < c->n; i++ )
    {
        struct worker *w = &ch->w[i];
        int e;

        w->ch = ch;
        w->me = i;
        w->cpu = cpus[i];
        e = pthread_create(&w->th, NULL, churn_worker, w);
        if ( e )
            die(2, "churn: cannot start a thread: %s", strerror(e));
    }
    for ( unsigned int i = 0; i < c->n; i++ )
        pthread_join(ch->w[i].th, NULL);
    wall = now_ns() - start;
    c->rep_ipis[rep] = tlb_interrupts() - ipis0;

    for ( unsigned int i = 0; i < c->n; i++ )
    {
        struct worker *w = &ch->w[i];

        if ( w->err )
            die(2, "churn: thread for CPU %d could not start: %s", w->cpu,
                strerror(-w->err));
        if ( w->stale && !stale )
            printf("tlbpeer: churn rep %u: thread %u on CPU %d read %#"
                   PRIx64 " at %#" PRIx64 ", want %#" PRIx64 "\n", rep, i,
                   w->cpu, w->bad_got, w->bad_va, w->bad_want);
        ops += w->ops;
        errors += w->errors;
        stale += w->stale;
        checked += w->checked;
        idle_threads += !w->ops;
    }
    if ( errors )
        printf("tlbpeer: churn rep %u: %" PRIu64 " mmap/munmap calls "
               "failed\n", rep, errors);
    /* No work measured nothing: its 0 ops/s would read as a figure. */
    if ( !ops || idle_threads || errors )
    {
        c->idle++;
        printf("tlbpeer: churn rep %u did no work: %" PRIu64 " ops, %u of "
               "%u threads did none, %" PRIu64 " failed calls\n", rep, ops,
               idle_threads, c->n, errors);
    }
    c->rep_ops[rep] = ops;
    c->rep_fps[rep] = (uint64_t)((unsigned __int128)ops * 1000000000ull /
                                 (wall ? wall : 1));
    c->ipis += c->rep_ipis[rep];
    c->stale += stale;
    c->checked += checked;
    munmap(res, (c->n + 1) * WINDOW);
    free(ch);
}

/* --- the run --- */

static struct cell *new_cell(unsigned int wl, unsigned int n)
{
    struct cell *c = &cells[nr_cells++];

    memset(c, 0, sizeof(*c));
    c->wl = wl;
    c->n = n;
    return c;
}

/*
 * The cell as the line writer shimk uses takes it (tlbb-line.c, linked
 * in): the same fields in the same order, and the peer's IPI counts.
 */
static void line_view(const struct cell *c, struct lat_summary *lat,
                      struct tlbb_cell *v)
{
    for ( unsigned int i = 0; i < c->reps; i++ )
        lat[i] = (struct lat_summary){
            .n = c->rep_ops[i], .p50 = c->rep_lat[i].p50,
            .p90 = c->rep_lat[i].p90, .p99 = c->rep_lat[i].p99,
            .max = c->rep_lat[i].max,
        };
    *v = (struct tlbb_cell){
        .prefix = prefix,
        .wl = c->wl == WL_CHURN ? "churn" : "remap",
        .mode = "linux",
        .throughput = c->wl == WL_CHURN,
        .n = c->n,
        .reps = c->reps,
        .idle = c->idle,
        .rep_lat = lat,
        .rep_fps = c->rep_fps,
        .rep_ipis = c->rep_ipis,
        .ipis = c->ipis,
        .checked = c->checked,
        .stale = c->stale,
        .tsc_khz = tsc_khz,
    };
}

static void print_block_lines(const struct cell *c)
{
    struct lat_summary lat[MAX_REPS];
    struct tlbb_cell v;
    char line[512];

    line_view(c, lat, &v);
    for ( unsigned int i = 0; i < c->reps; i++ )
    {
        tlbb_block_line(line, sizeof(line), &v, i);
        printf("%s\n", line);
    }
}

static void print_cell_line(const struct cell *c)
{
    struct lat_summary lat[MAX_REPS];
    struct tlbb_cell v;
    char line[512];

    line_view(c, lat, &v);
    tlbb_cell_line(line, sizeof(line), &v);
    printf("%s\n", line);
}

static const struct profile *profile_from_cmdline(void)
{
    FILE *f = fopen("/proc/cmdline", "r");
    char buf[4096], *w, *save;
    const struct profile *pf = &profiles[0];

    if ( !f )
        return pf;
    if ( fgets(buf, sizeof(buf), f) )
        for ( w = strtok_r(buf, " \t\n", &save); w;
              w = strtok_r(NULL, " \t\n", &save) )
        {
            if ( strncmp(w, "peer=", 5) )
                continue;
            pf = NULL;
            for ( unsigned int i = 0; i < 2; i++ )
                if ( !strcmp(w + 5, profiles[i].name) )
                    pf = &profiles[i];
            if ( !pf )
            {
                printf("tlbpeer: warning: unknown profile '%s' (use quick "
                       "or full); running quick\n", w + 5);
                pf = &profiles[0];
            }
        }
    fclose(f);
    return pf;
}

static int bench(const struct profile *pf)
{
    unsigned int order[MAX_CELLS * MAX_REPS], nr_order = 0, others, k;
    uint64_t rng, stale = 0, last;
    unsigned int bad = 0, idle = 0;
    const char *flush, *ipi;
    char l0[32];
    struct utsname u;
    uint32_t a, b, c, d;

    setvbuf(stdout, NULL, _IOLBF, 0);
    find_cpus();
    if ( pin_to(cpus[0]) )
        die(2, "cannot pin the initiator to CPU %d", cpus[0]);
    detect_hv();
    tsc_khz = calibrate_tsc();
    flush_path(&flush, &ipi, l0, sizeof(l0));
    uname(&u);
    snprintf(prefix, sizeof(prefix), "TLBB v=1 os=linux hv=%s cpus=%u "
             "tsc_khz=%" PRIu64, hv, nr_cpus, tsc_khz);
    __cpuid(1, a, b, c, d);
    /*
     * Linux's settings, for the start line: it turns global pages on
     * whenever the CPU has them, and has no TLB clock; assisted=1 when
     * it chose an L0 flush (KVM's or Hyper-V's); linux_hv= is the L0
     * interface Linux itself took, which may differ from hv= (shimk's
     * rule): under KVM with Hyper-V enlightenments Linux 6.1 takes KVM's.
     */
    printf("%s kind=start profile=%s role=peer kernel=%s pge=%d pcid=%d "
           "assisted=%d clock=0 linux_hv=%s flush=%s ipi=%s\n", prefix,
           pf->name, u.release, !!(d & 1u << 13), !!(c & 1u << 17),
           strcmp(flush, "kvm-pv") == 0 || strcmp(flush, "hyperv") == 0,
           l0, flush, ipi);

    /* Targets 0 (the call's own cost), 1, 2, 4, ... and all others. */
    others = nr_cpus - 1;
    new_cell(WL_REMAP, 0);
    for ( unsigned int n = 1; n < others; n *= 2 )
    {
        if ( !pf->all_counts && n > 1 )
            break;
        new_cell(WL_REMAP, n);
    }
    if ( others )
        new_cell(WL_REMAP, others);
    new_cell(WL_CHURN, nr_cpus < CHURN_THREADS ? nr_cpus
                                                        : CHURN_THREADS);

    /* One shuffled order of every block, so drifts spread over cells. */
    for ( unsigned int i = 0; i < nr_cells; i++ )
        for ( unsigned int r = 0;
              r < (cells[i].wl == WL_CHURN ? pf->churn_reps : pf->reps);
              r++ )
            order[nr_order++] = i;
    rng = rdtsc_ordered();
    shuffle_indices(order, nr_order, &rng);
    printf("tlbpeer: %u remap cells and churn, %u blocks in a shuffled "
           "order\n", nr_cells - 1, nr_order);
    last = now_ns();
    for ( k = 0; k < nr_order; k++ )
    {
        struct cell *cl = &cells[order[k]];

        if ( cl->wl == WL_CHURN )
            churn_block(cl, pf, cl->reps++);
        else
            remap_block(cl, pf, cl->reps++);
        /*
         * Between blocks, never inside one: a line now and then, so that
         * whoever watches this console (dom0, L1) sees progress and can
         * tell a long profile from a stopped guest.
         */
        if ( now_ns() - last > PROGRESS_NS && k + 1 < nr_order )
        {
            printf("tlbpeer: %u of %u blocks done\n", k + 1, nr_order);
            last = now_ns();
        }
    }

    for ( unsigned int i = 0; i < nr_cells; i++ )
        print_block_lines(&cells[i]);
    for ( unsigned int i = 0; i < nr_cells; i++ )
    {
        struct cell *cl = &cells[i];

        print_cell_line(cl);
        stale += cl->stale;
        if ( !cl->checked || cl->idle )
        {
            idle++;
            if ( cl->wl == WL_CHURN )
                printf("tlbpeer: churn did no work in %u of %u blocks\n",
                       cl->idle, cl->reps);
            else
                printf("tlbpeer: remap n=%u checked no read\n", cl->n);
        }
        bad += cl->stale != 0;
    }
    printf("TLBB-SUM v=1 os=linux hv=%s cpus=%u stale=%" PRIu64 "\n", hv,
           nr_cpus, stale);
    if ( stale )
        printf("tlbpeer: %" PRIu64 " stale reads in %u cells: these figures "
               "are invalid\n", stale, bad);
    if ( idle )
        printf("tlbpeer: %u workloads did no work: these figures are "
               "incomplete\n", idle);
    fflush(stdout);
    return stale || idle ? 1 : 0;
}

/* --- PID 1 of the peer's initramfs --- */

static void power_off(int code)
{
    printf("tlbpeer: exit %d\n", code);
    fflush(stdout);
    sync();
    reboot(RB_POWER_OFF);
    /* PID 1 must never exit: that is a kernel panic, not a verdict. */
    printf("tlbpeer: reboot(RB_POWER_OFF) failed: %s; halting here\n",
           strerror(errno));
    fflush(stdout);
    for ( ;; )
        pause();
}

static void init_main(void)
{
    const struct profile *pf;
    uint64_t start;
    pid_t pid;
    int status = 0, code;

    setvbuf(stdout, NULL, _IOLBF, 0);
    mkdir("/proc", 0555);
    if ( mount("proc", "/proc", "proc", 0, NULL) )
        printf("tlbpeer: warning: mount /proc: %s\n", strerror(errno));
    pf = profile_from_cmdline();
    printf("tlbpeer: init: profile %s, bound %u s\n", pf->name,
           pf->init_bound_s);
    fflush(stdout);
    /* The benchmark in a child: a crash there is a verdict, not a panic. */
    pid = fork();
    if ( pid < 0 )
    {
        printf("tlbpeer: error: fork: %s\n", strerror(errno));
        power_off(2);
    }
    if ( pid == 0 )
        _exit(bench(pf));
    start = now_ns();
    for ( ;; )
    {
        pid_t w = waitpid(pid, &status, WNOHANG);
        struct timespec ts = { 0, 100000000 };

        if ( w == pid )
            break;
        if ( w < 0 && errno != EINTR )
        {
            printf("tlbpeer: error: waitpid: %s\n", strerror(errno));
            power_off(2);
        }
        if ( now_ns() - start > pf->init_bound_s * 1000000000ull )
        {
            kill(pid, SIGKILL);
            printf("tlbpeer: error: the benchmark did not finish in %u s\n",
                   pf->init_bound_s);
            power_off(2);
        }
        nanosleep(&ts, NULL);
    }
    if ( WIFEXITED(status) )
        code = WEXITSTATUS(status);
    else
    {
        printf("tlbpeer: error: the benchmark was killed by signal %d\n",
               WTERMSIG(status));
        code = 2;
    }
    power_off(code);
}

int main(int argc, char **argv)
{
    const struct profile *pf = NULL;

    if ( getpid() == 1 )
        init_main();
    if ( argc > 2 )
    {
        fprintf(stderr, "usage: tlbpeer [quick|full]\n");
        return 2;
    }
    if ( argc == 2 )
    {
        for ( unsigned int i = 0; i < 2; i++ )
            if ( !strcmp(argv[1], profiles[i].name) )
                pf = &profiles[i];
        if ( !pf )
        {
            fprintf(stderr, "tlbpeer: unknown profile '%s' (use quick or "
                    "full)\n", argv[1]);
            return 2;
        }
    }
    else
        pf = profile_from_cmdline();
    return bench(pf);
}
