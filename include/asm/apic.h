/* SPDX-License-Identifier: GPL-2.0-only */
/* Local APIC in xAPIC (MMIO) or x2APIC (MSR) mode (SDM Vol. 3A, ch. 11). */
#ifndef ASM_APIC_H
#define ASM_APIC_H

#include <shimk/types.h>

/* Register offsets in the xAPIC page; x2APIC MSR = 0x800 + (off >> 4). */
#define APIC_ID         0x020
#define APIC_VERSION    0x030
#define APIC_TPR        0x080
#define APIC_EOI        0x0b0
#define APIC_LDR        0x0d0
#define APIC_DFR        0x0e0
#define APIC_SVR        0x0f0
#define APIC_ISR        0x100   /* 8 registers, 32 vectors each */
#define APIC_IRR        0x200
#define APIC_ESR        0x280
#define APIC_ICR_LO     0x300
#define APIC_ICR_HI     0x310
#define APIC_LVT_TIMER  0x320
#define APIC_LVT_THERM  0x330
#define APIC_LVT_PERF   0x340
#define APIC_LVT_LINT0  0x350
#define APIC_LVT_LINT1  0x360
#define APIC_LVT_ERROR  0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR  0x390
#define APIC_TIMER_DIV  0x3e0

#define APIC_SVR_ENABLE   (1u << 8)
#define APIC_LVT_MASKED   (1u << 16)
#define APIC_LVT_PERIODIC (1u << 17)
#define APIC_LVT_TSC_DEADLINE (2u << 17)   /* timer mode, bits 18:17 */

/* ICR low word (SDM Vol. 3A, 11.6.1). */
#define APIC_DM_FIXED     (0u << 8)
#define APIC_DM_NMI       (4u << 8)
#define APIC_DM_INIT      (5u << 8)
#define APIC_DM_STARTUP   (6u << 8)
#define APIC_ICR_BUSY     (1u << 12)    /* xAPIC delivery status */
#define APIC_LEVEL_ASSERT (1u << 14)
#define APIC_TRIGGER_LEVEL (1u << 15)
#define APIC_DEST_SELF    (1u << 18)
#define APIC_DEST_ALL     (2u << 18)
#define APIC_DEST_ALLBUT  (3u << 18)

#define MSR_X2APIC_BASE   0x800
#define MSR_X2APIC_SELF_IPI 0x83f
#define APIC_BASE_ENABLE  (1ull << 11)
#define APIC_BASE_X2APIC  (1ull << 10)
#define APIC_BASE_BSP     (1ull << 8)

/*
 * Vectors shimk owns, highest priority first (the priority class is
 * vector >> 4).  Devices are not used, so everything is an IPI or the
 * local timer.
 */
#define SPURIOUS_VECTOR    0xff
#define ERROR_VECTOR       0xfe
#define TIMER_VECTOR       0xfd
#define RESCHEDULE_VECTOR  0xfc
#define INVALIDATE_VECTOR  0xfb
#define CALL_VECTOR        0xfa
#define TEST_VECTOR        0xf0     /* ktest IPI counting and ping-pong */
#define TEST_VECTOR2       0xf1     /* ping-pong replies */
#define MEASURE_VECTOR     0xf2     /* arch/x86/flush/tlb-measure.c */
#define MEASURE_VECTOR2    0xf3
#define MEASURE_VECTOR3    0xf4
#define ENTRY_TEST_VECTOR  0xf5     /* ktest entry: an IRQ on the user's GS */
#define XEN_UPCALL_VECTOR  0xf6     /* Xen event channels (guest/xen/evtchn-ipi.c) */
#define FIRST_IPI_VECTOR   0xf0

/* true when running x2APIC (decided once on the boot CPU). */
extern bool x2apic_enabled;

/* Decide the mode (x2apic= option, CPU support) and enable the BSP's. */
void apic_init_bsp(void);

/* Enable this AP's local APIC in the boot CPU's mode. */
void apic_init_ap(void);

uint32_t apic_read(unsigned int reg);
void apic_write(unsigned int reg, uint32_t v);

/* This CPU's APIC ID (8 bits in xAPIC mode, 32 in x2APIC mode). */
uint32_t apic_id(void);

static inline void apic_eoi(void)
{
    apic_write(APIC_EOI, 0);
}

/*
 * Write the ICR: lo holds vector, delivery mode and shorthand; dest is
 * an APIC ID (ignored with a shorthand).  Waits, bounded, for an xAPIC
 * to accept the previous IPI.  Returns 0 or -ETIMEDOUT.
 */
int apic_icr_write(uint32_t lo, uint32_t dest);

/* --- the local APIC timer (arch/x86/apic-timer.c) --- */

struct oneshot;

/* Ticks per millisecond at divide-by-1, and the bound on its error. */
extern uint32_t apic_timer_khz;
extern uint32_t apic_timer_err_ppm;

/* Armed by IA32_TSC_DEADLINE (else a one-shot count); boot CPU decides. */
extern bool apic_timer_tsc_deadline;

/*
 * Boot CPU, once tsc_khz is known: measure the timer's rate, choose its
 * mode (tsc-deadline=), and set this CPU's timer up.
 */
void apic_timer_calibrate(void);

/*
 * Measure the rate again as the calibration does (this CPU, its LVT
 * masked meanwhile, up to 570 ms with interrupts off) and compare it
 * with the one in use: kept when both bounds overlap (0), else taken
 * and said (1); -EIO when no round gave a rate.  why names the caller
 * in its line ("resume").  The timer is set up again but not armed:
 * whatever was armed must be written again (sched_timer_rewrite_here).
 */
int apic_timer_recheck(const char *why);

/*
 * This CPU's divider, LVT mode and vector, written once: writing them
 * again would cancel an expiry not yet delivered (QEMU, Xen).  Before
 * apic_timer_calibrate() the LVT stays masked.
 */
void apic_timer_setup_cpu(void);

/*
 * Program an expiry for TSC deadline (an interrupt on TIMER_VECTOR) with
 * one register write, and say in *o what was armed and by when the
 * hardware expires.  hardware false: write nothing (stop the count),
 * as if the L0 never delivered it (ktest).  IRQs off.
 */
void apic_timer_program(uint64_t deadline, bool hardware, struct oneshot *o);

/* Is the last expiry still ahead in the hardware's own clock? */
bool apic_timer_counting(void);
/* The timer's registers and its vector's IRR and ISR bits, as text. */
void apic_timer_describe(char *buf, size_t size);
/* The same, as oneshot_lost_by_l0() (shimk/timer-oneshot.h) reads it. */
struct apic_timer_state;
void apic_timer_read_state(struct apic_timer_state *s);

#endif /* ASM_APIC_H */
