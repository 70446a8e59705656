/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC: mode choice, enable, ICR writes (SDM Vol. 3A, ch. 11). */

#include <shimk/cmdline.h>
#include <shimk/errno.h>
#include <shimk/panic.h>
#include <shimk/printk.h>
#include <shimk/time.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/io.h>
#include <asm/msr.h>
#include <asm/paging.h>
#include <asm/processor.h>
#include <asm/traps.h>

bool x2apic_enabled __read_mostly;
static volatile uint8_t *xapic_mmio;

static bool opt_x2apic = true;
boolean_param("x2apic", opt_x2apic);

uint32_t apic_read(unsigned int reg)
{
    if ( x2apic_enabled )
        return (uint32_t)rdmsr(MSR_X2APIC_BASE + (reg >> 4));
    return mmio_read32(xapic_mmio + reg);
}

void apic_write(unsigned int reg, uint32_t v)
{
    if ( x2apic_enabled )
        wrmsr(MSR_X2APIC_BASE + (reg >> 4), v);
    else
        mmio_write32(xapic_mmio + reg, v);
}

uint32_t apic_id(void)
{
    uint32_t id = apic_read(APIC_ID);

    return x2apic_enabled ? id : id >> 24;
}

int apic_icr_write(uint32_t lo, uint32_t dest)
{
    if ( x2apic_enabled )
    {
        /*
         * One WRMSR, no busy bit (SDM 11.12.9).  WRMSR to x2APIC MSRs is
         * not serializing, so fence earlier stores (an IPI often
         * publishes data the target then reads).
         */
        __asm__ __volatile__("mfence" ::: "memory");
        wrmsr(MSR_X2APIC_BASE + (APIC_ICR_LO >> 4),
              ((uint64_t)dest << 32) | lo);
        return 0;
    }
    else
    {
        uint64_t start = rdtsc(), bound = ms_to_cycles(100);
        unsigned long f = local_irq_save();

        /* ICR_HI then ICR_LO must not be split by another sender here. */
        while ( mmio_read32(xapic_mmio + APIC_ICR_LO) & APIC_ICR_BUSY )
        {
            if ( rdtsc() - start > bound )
            {
                local_irq_restore(f);
                return -ETIMEDOUT;
            }
            cpu_relax();
        }
        mmio_write32(xapic_mmio + APIC_ICR_HI, dest << 24);
        mmio_write32(xapic_mmio + APIC_ICR_LO, lo);
        local_irq_restore(f);
        return 0;
    }
}

static void spurious_interrupt(struct cpu_regs *regs)
{
    /* SDM 11.9: no EOI for the spurious vector. */
}

static void error_interrupt(struct cpu_regs *regs)
{
    uint32_t esr;

    apic_write(APIC_ESR, 0);
    esr = apic_read(APIC_ESR);
    apic_eoi();
    pr_warn("apic: error interrupt, ESR %#x\n", esr);
}

/* Enable this CPU's APIC in the chosen mode, everything masked. */
static void apic_enable_local(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);

    if ( x2apic_enabled )
    {
        /* xAPIC -> x2APIC goes through EN=1 first (SDM 11.12.5). */
        base |= APIC_BASE_ENABLE;
        wrmsr(MSR_APIC_BASE, base);
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_X2APIC);
    }
    else
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);

    apic_write(APIC_TPR, 0);
    apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED | TIMER_VECTOR);
    apic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
    apic_write(APIC_LVT_LINT1, APIC_LVT_MASKED);
    apic_write(APIC_LVT_ERROR, ERROR_VECTOR);
    apic_write(APIC_ESR, 0);
    apic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
    apic_eoi();
    /* Mode, divider and vector: once per CPU (arch/x86/apic-timer.c). */
    apic_timer_setup_cpu();
}

/* The legacy PICs would deliver stray interrupts on vectors 8-15. */
static void mask_8259(void)
{
    outb(0x21, 0xff);
    outb(0xa1, 0xff);
}

void apic_init_bsp(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);
    bool firmware_x2apic = base & APIC_BASE_X2APIC;

    if ( !boot_cpu.apic_present )
        panic("no local APIC (CPUID.1:EDX[9] clear)");

    x2apic_enabled = boot_cpu.x2apic && opt_x2apic;
    if ( firmware_x2apic && !x2apic_enabled )
    {
        /* Leaving x2APIC needs the APIC disabled first: not worth it. */
        pr_warn("cmdline: x2apic: firmware already enabled x2APIC "
                "(kept 1)\n");
        x2apic_enabled = true;
    }
    if ( opt_x2apic && !boot_cpu.x2apic )
        pr_info("apic: CPU has no x2APIC, using xAPIC\n");

    if ( !x2apic_enabled )
    {
        paddr_t pa = base & ~0xfffull;

        xapic_mmio = ioremap(pa, PAGE_SIZE);
        if ( !xapic_mmio )
            panic("apic: cannot map the xAPIC page at %#lx",
                  (unsigned long)pa);
    }

    mask_8259();
    set_vector_handler(SPURIOUS_VECTOR, spurious_interrupt);
    set_vector_handler(ERROR_VECTOR, error_interrupt);
    apic_enable_local();
}

void apic_init_ap(void)
{
    apic_enable_local();
}
