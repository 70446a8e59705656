/* SPDX-License-Identifier: GPL-2.0-only */
/* Each CPU's GDT, IDT, TSS and root against their boot copies. */

#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/selfcheck.h>
#include <shimk/string.h>
#include <shimk/time.h>
#include <asm/guarded.h>
#include <asm/page.h>
#include <asm/paging.h>
#include <asm/percpu.h>
#include <asm/processor.h>

/* The layout the memory reader relies on (shimk/selfcheck.h). */
BUILD_BUG_ON(sizeof(struct selfcheck_cpu) % 8);
BUILD_BUG_ON(sizeof(struct selfcheck_ref) % 8);
BUILD_BUG_ON(sizeof(struct tss64) != SELFCHECK_TSS_BYTES);
BUILD_BUG_ON(__builtin_offsetof(struct tss64, rsp) != SELFCHECK_TSS_RSP0_OFF);

struct selfcheck_ref selfcheck_ref;

__used const uint64_t selfcheck_layout[SCL_NR] = {
    [SCL_MAGIC] = SELFCHECK_MAGIC,
    [SCL_VERSION] = SELFCHECK_VERSION,
    [SCL_REF_SIZE] = sizeof(struct selfcheck_ref),
    [SCL_CPU_OFFSET] = __builtin_offsetof(struct selfcheck_ref, cpu),
    [SCL_CPU_SIZE] = sizeof(struct selfcheck_cpu),
    [SCL_NR_CPUS] = CONFIG_NR_CPUS,
    [SCL_GDT_ENTRIES] = GDT_ENTRIES,
    [SCL_TSS_BYTES] = SELFCHECK_TSS_BYTES,
};

/* What the last check found first, for the ktest (tests/ktest/selfcheck.c). */
struct selfcheck_finding selfcheck_last;

static uint64_t last_check[CONFIG_NR_CPUS];

struct desc_ptr
{
    uint16_t limit;
    uint64_t base;
} __packed;

static void read_gdtr(struct desc_ptr *p)
{
    __asm__ __volatile__("sgdt %0" : "=m"(*p));
}

static void read_idtr(struct desc_ptr *p)
{
    __asm__ __volatile__("sidt %0" : "=m"(*p));
}

#define WORDS_BEFORE(type, field) \
    (__builtin_offsetof(type, field) / sizeof(uint64_t))

static uint64_t shared_sum(const struct selfcheck_ref *r)
{
    return selfcheck_sum(&r->magic, WORDS_BEFORE(struct selfcheck_ref, sum));
}

static uint64_t cpu_sum(const struct selfcheck_cpu *c)
{
    return selfcheck_sum(&c->valid, WORDS_BEFORE(struct selfcheck_cpu, sum));
}

void selfcheck_record_shared(void)
{
    struct selfcheck_ref *r = &selfcheck_ref;
    struct desc_ptr idtr;

    read_idtr(&idtr);
    r->magic = SELFCHECK_MAGIC;
    r->version = SELFCHECK_VERSION;
    r->nr_cpus = CONFIG_NR_CPUS;
    r->idt_base = idtr.base;
    r->idt_limit = idtr.limit;
    r->kernel_root = kernel_root;
    r->stack_area[0] = STACKS_BASE;
    r->stack_area[1] = STACKS_BASE + STACKS_SIZE;
    memcpy(r->root_half, (uint64_t *)phys_to_virt(kernel_root) + 256,
           sizeof(r->root_half));
    memcpy(r->idt, (const void *)idtr.base,
           MIN(sizeof(r->idt), (size_t)idtr.limit + 1));
    r->sum = shared_sum(r);
}

void selfcheck_record_cpu(struct cpu_info *ci)
{
    struct selfcheck_cpu *c = &selfcheck_ref.cpu[ci->cpu];
    struct desc_ptr gdtr;

    read_gdtr(&gdtr);
    c->valid = 1;
    c->cpu_info = (uint64_t)ci;
    c->apic_id = ci->apic_id;
    c->gdt_base = gdtr.base;
    c->gdt_limit = gdtr.limit;
    memcpy(c->gdt, (const void *)gdtr.base,
           MIN(sizeof(c->gdt), (size_t)gdtr.limit + 1));
    c->tss_base = (uint64_t)&ci->tss;
    memcpy(c->tss, &ci->tss, sizeof(c->tss));
    c->stacks[SELFCHECK_STACK_CPU][0] = (uint64_t)ci->stack_base;
    c->stacks[SELFCHECK_STACK_CPU][1] = (uint64_t)ci->stack_base +
                                        KERNEL_STACK_SIZE;
    for ( unsigned int i = 0; i < 3; i++ )
    {
        c->stacks[SELFCHECK_STACK_NMI + i][0] = (uint64_t)ci->ist_stacks[i];
        c->stacks[SELFCHECK_STACK_NMI + i][1] = (uint64_t)ci->ist_stacks[i] +
                                                IST_STACK_SIZE;
    }
    c->sum = cpu_sum(c);
}

/*
 * One difference: remembered for the ktest, printed, and with panic_on
 * the reason for the panic.  The bytes shown start at the first that
 * changed.
 */
static void found(enum selfcheck_mode mode, unsigned int cpu, const char *what,
                  uint64_t at, long off, const void *live, const void *boot,
                  size_t avail)
{
    const unsigned char *l = live, *b = boot;
    char now[3 * 8 + 1] = "", was[3 * 8 + 1] = "";
    size_t n = MIN(avail, (size_t)8);

    for ( size_t i = 0; i < n; i++ )
    {
        ksnprintf(now + 3 * i, sizeof(now) - 3 * i, "%02x ", l[i]);
        ksnprintf(was + 3 * i, sizeof(was) - 3 * i, "%02x ", b[i]);
    }
    if ( n )
    {
        now[3 * n - 1] = '\0';
        was[3 * n - 1] = '\0';
    }
    selfcheck_last.cpu = cpu;
    selfcheck_last.what = what;
    selfcheck_last.offset = off;
    if ( mode == SELFCHECK_PANIC )
        panic("self-check: CPU%u's %s at %#lx changed at +%#lx: now %s, "
              "at boot %s", cpu, what, (unsigned long)at,
              (unsigned long)off, now, was);
    if ( mode == SELFCHECK_REPORT )
        pr_err("self-check: CPU%u's %s at %#lx changed at +%#lx: now %s, at "
           "boot %s\n", cpu, what, (unsigned long)at, (unsigned long)off,
           now, was);
}

/* A register that does not point where it did at boot. */
static void moved(enum selfcheck_mode mode, unsigned int cpu, const char *what,
                  uint64_t now, uint64_t boot)
{
    selfcheck_last.cpu = cpu;
    selfcheck_last.what = what;
    selfcheck_last.offset = -1;
    if ( mode == SELFCHECK_PANIC )
        panic("self-check: CPU%u's %s is %#lx, at boot %#lx", cpu, what,
              (unsigned long)now, (unsigned long)boot);
    if ( mode == SELFCHECK_REPORT )
        pr_err("self-check: CPU%u's %s is %#lx, at boot %#lx\n", cpu,
               what, (unsigned long)now, (unsigned long)boot);
}

static unsigned int compare(enum selfcheck_mode mode, unsigned int cpu,
                            const char *what, uint64_t at, const void *boot,
                            size_t len, size_t skip, size_t skip_len)
{
    const unsigned char *live = (const void *)at;
    long off = selfcheck_first_diff(live, boot, len, skip, skip_len);

    if ( off < 0 )
        return 0;
    found(mode, cpu, what, at, off, live + off,
          (const unsigned char *)boot + off, len - off);
    return 1;
}

/*
 * PML4 entries: the CPU sets their Accessed bit as it walks through them
 * (SDM Vol. 3A, 4.8), so that bit alone is no change.
 */
static unsigned int compare_root(enum selfcheck_mode mode, unsigned int cpu,
                                 const char *what, paddr_t root)
{
    const uint64_t *live = (const uint64_t *)phys_to_virt(root) + 256;
    const uint64_t *boot = selfcheck_ref.root_half;

    for ( unsigned int i = 0; i < 256; i++ )
        if ( (READ_ONCE(live[i]) ^ boot[i]) & ~PTE_A )
        {
            found(mode, cpu, what, (uint64_t)live, i * sizeof(*live),
                  &live[i], &boot[i], (256 - i) * sizeof(*live));
            return 1;
        }
    return 0;
}

/*
 * RSP0 follows the running thread (kernel/sched/sched.c switch_arch()), so it
 * is not in the copy; it must be the top of a live kernel stack.
 */
static unsigned int check_rsp0(enum selfcheck_mode mode, unsigned int cpu,
                               const struct tss64 *tss)
{
    uint64_t rsp0;
    struct guarded_hit hit;

    memcpy(&rsp0, (const char *)tss + SELFCHECK_TSS_RSP0_OFF, sizeof(rsp0));
    guarded_lookup(rsp0 - 1, &hit);
    if ( hit.where == GUARDED_IN_AREA && hit.hi == rsp0 &&
         (hit.kind == GUARDED_THREAD || hit.kind == GUARDED_CPU_STACK) )
        return 0;
    moved(mode, cpu, "TSS RSP0 (not the top of a kernel stack)", rsp0,
          selfcheck_ref.cpu[cpu].stacks[SELFCHECK_STACK_CPU][1]);
    return 1;
}

static unsigned int check_sums(enum selfcheck_mode mode, unsigned int cpu)
{
    const struct selfcheck_cpu *c = &selfcheck_ref.cpu[cpu];
    unsigned int n = 0;

    if ( shared_sum(&selfcheck_ref) != selfcheck_ref.sum )
    {
        moved(mode, cpu, "boot copies' sum (IDT, root)",
              shared_sum(&selfcheck_ref), selfcheck_ref.sum);
        n++;
    }
    if ( cpu_sum(c) != c->sum )
    {
        moved(mode, cpu, "boot copies' sum (GDT, TSS)", cpu_sum(c),
              c->sum);
        n++;
    }
    return n;
}

unsigned int selfcheck_this_cpu(enum selfcheck_mode mode)
{
    struct cpu_info *ci = this_cpu();
    unsigned int cpu = ci->cpu, n;
    const struct selfcheck_cpu *c = &selfcheck_ref.cpu[cpu];
    const struct selfcheck_ref *r = &selfcheck_ref;
    struct desc_ptr gdtr, idtr;
    paddr_t root;

    if ( r->magic != SELFCHECK_MAGIC || !c->valid )
        return 0;
    n = check_sums(mode, cpu);
    if ( n )
        return n;   /* the copies themselves are not to be trusted */

    read_gdtr(&gdtr);
    if ( gdtr.base != c->gdt_base || gdtr.limit != c->gdt_limit )
        moved(mode, cpu, "GDTR", gdtr.base, c->gdt_base), n++;
    else
        n += compare(mode, cpu, "GDT", c->gdt_base, c->gdt,
                     sizeof(c->gdt), 0, 0);
    read_idtr(&idtr);
    if ( idtr.base != r->idt_base || idtr.limit != r->idt_limit )
        moved(mode, cpu, "IDTR", idtr.base, r->idt_base), n++;
    else
        n += compare(mode, cpu, "IDT", r->idt_base, r->idt,
                     sizeof(r->idt), 0, 0);
    if ( (uint64_t)&ci->tss != c->tss_base )
        moved(mode, cpu, "TSS address", (uint64_t)&ci->tss, c->tss_base),
            n++;
    else
        n += compare(mode, cpu, "TSS", c->tss_base, c->tss,
                     sizeof(c->tss), SELFCHECK_TSS_RSP0_OFF,
                     SELFCHECK_TSS_RSP0_LEN) +
             check_rsp0(mode, cpu, &ci->tss);
    root = read_cr3() & X86_CR3_ADDR_MASK;
    n += compare_root(mode, cpu, "root's kernel half", root);
    return n;
}

void selfcheck_tick(void)
{
    unsigned int cpu = smp_processor_id();
    uint64_t now = rdtsc();

    if ( now - last_check[cpu] < ms_to_cycles(SELFCHECK_PERIOD_MS) )
        return;
    last_check[cpu] = now;
    selfcheck_this_cpu(SELFCHECK_PANIC);
}

/*
 * From a panic: every CPU's tables as memory holds them now, printed and
 * never a panic of its own.  Addresses come from the copies, and only
 * from copies whose sums hold, so a trampled copy is not followed.
 */
#define REPORT SELFCHECK_REPORT

void selfcheck_report_all(void)
{
    const struct selfcheck_ref *r = &selfcheck_ref;
    unsigned int n = 0, cpus = 0;

    if ( r->magic != SELFCHECK_MAGIC )
        return;
    if ( shared_sum(r) != r->sum )
    {
        printk(KERN_EMERG "self-check: the boot copies of the IDT and the "
               "kernel root are themselves changed\n");
        return;
    }
    n += compare(REPORT, 0, "IDT", r->idt_base, r->idt, sizeof(r->idt), 0, 0);
    n += compare_root(REPORT, 0, "kernel root's kernel half",
                      r->kernel_root);
    for ( unsigned int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++ )
    {
        const struct selfcheck_cpu *c = &r->cpu[cpu];
        const struct cpu_info *ci = (const void *)c->cpu_info;

        if ( !c->valid )
            continue;
        cpus++;
        if ( cpu_sum(c) != c->sum )
        {
            printk(KERN_EMERG "self-check: CPU%u's boot copies are "
                   "themselves changed\n", cpu);
            n++;
            continue;
        }
        n += compare(REPORT, cpu, "GDT", c->gdt_base, c->gdt,
                     sizeof(c->gdt), 0, 0);
        n += compare(REPORT, cpu, "TSS", c->tss_base, c->tss, sizeof(c->tss),
                     SELFCHECK_TSS_RSP0_OFF, SELFCHECK_TSS_RSP0_LEN);
        n += check_rsp0(REPORT, cpu, (const struct tss64 *)c->tss_base);
        /* The root it loaded last (0: the kernel's own). */
        if ( READ_ONCE(cpu_infos[cpu]) == ci && ci->root )
            n += compare_root(REPORT, cpu, "loaded root's kernel half",
                              ci->root);
    }
    if ( !n )
        printk(KERN_EMERG "self-check: the GDT, TSS and root of all %u CPUs "
               "and the IDT match their boot copies\n", cpus);
}
