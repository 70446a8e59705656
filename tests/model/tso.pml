/* SPDX-License-Identifier: GPL-2.0-only */
/* x86-TSO litmus tests of the store-then-load pairs the protocol needs. */

/*
 * shootdown.pml assumes sequential consistency.  Under x86-TSO (SDM
 * Vol. 3A, 9.2.2: a load may pass an earlier store to another address
 * still in the store buffer; locked instructions and MFENCE drain it)
 * that assumption holds only where each pair of "store, then load of
 * another variable" that the argument needs is fenced.  These are the
 * pairs, each as a store-buffering litmus test between the two CPUs
 * whose stores and loads meet, with a two-entry FIFO store buffer per
 * CPU (a thread makes at most two stores before its load) drained, oldest
 * first, at any time:
 *
 * LITMUS 1, the space mask (I8; aspace_remap/aspace_unmap_lazy against
 *   aspace_switch): CPU0 exchanges the PTE, then reads as->cpus; CPU1
 *   sets its bit in as->cpus, then loads the root and walks the PTE.
 *   Bad: CPU0 misses CPU1's bit and CPU1 walks the old PTE.
 *   F0: the PTE exchange is locked (xchg); F1: the bit set is locked.
 * LITMUS 2, tlb_clean (I3; frame_alloc_user's filter against
 *   aspace_switch): CPU0 exchanges the PTE (the unmap), then reads CPU1's
 *   tlb_clean; CPU1 clears tlb_clean, sets its mask bit, then walks.
 *   Bad: CPU0 sees CPU1 clean (skips it) and CPU1 walks the old PTE.
 *   F1: the tlb_clean store is SEQ_CST (xchg); F2: the bit set is
 *   locked; F0: the PTE exchange is locked.
 * LITMUS 3, the TLB clock (I3; frame_free_deferred against pre_flush):
 *   CPU0 exchanges the PTE, then reads the clock as the frame's last
 *   use; CPU1 ticks the clock (compare-and-swap), flushes, then refills
 *   from the PTE.  Bad: CPU0 reads the clock from before the tick (so
 *   CPU1's newer stamp lets the filter skip it) and CPU1 refills the old
 *   PTE.  F0: the PTE exchange is locked; F1: the tick is locked.
 */

#ifndef LITMUS
#define LITMUS 1
#endif
#ifndef F0
#define F0 1
#endif
#ifndef F1
#define F1 1
#endif
#ifndef F2
#define F2 1
#endif

#define PTE 0
#define SPC 1
#define CLEAN 2
#define CLK 3
#define NADDR 4

byte mem[NADDR];

/* the store buffers: CPU t's entries at 2t (oldest) and 2t + 1 */
byte nbuf[2];
byte badr[4];
byte bval[4];

byte r0, r1;
byte done;

/* a plain store: into the buffer (waits while it is full) */
inline store(t, a, v)
{
    atomic {
        nbuf[t] < 2 -> badr[2 * t + nbuf[t]] = a; bval[2 * t + nbuf[t]] = v;
        nbuf[t]++
    }
}

/* a locked instruction or a SEQ_CST store: the buffer drains first */
inline locked_store(t, a, v)
{
    atomic { nbuf[t] == 0 -> mem[a] = v }
}

inline store_f(t, a, v, fenced)
{
    if
    :: fenced -> locked_store(t, a, v)
    :: else -> store(t, a, v)
    fi
}

/* a load: this CPU's newest buffered store to a first (forwarding) */
inline load(t, a, r)
{
    atomic {
        if
        :: nbuf[t] == 2 && badr[2 * t + 1] == a -> r = bval[2 * t + 1]
        :: else ->
            if
            :: nbuf[t] >= 1 && badr[2 * t] == a -> r = bval[2 * t]
            :: else -> r = mem[a]
            fi
        fi
    }
}

proctype Drain(byte t)
{
end:
    do
    :: atomic {
           nbuf[t] > 0 -> mem[badr[2 * t]] = bval[2 * t];
           badr[2 * t] = badr[2 * t + 1]; bval[2 * t] = bval[2 * t + 1];
           badr[2 * t + 1] = 0; bval[2 * t + 1] = 0;
           nbuf[t]--
       }
    od
}

proctype Cpu0()
{
    /* every litmus: the PTE goes from 1 (old) to 2 or 0 */
#if LITMUS == 1
    store_f(0, PTE, 2, F0);
    load(0, SPC, r0);
#elif LITMUS == 2
    store_f(0, PTE, 0, F0);
    load(0, CLEAN, r0);
#else
    store_f(0, PTE, 0, F0);
    load(0, CLK, r0);
#endif
    done++
}

proctype Cpu1()
{
#if LITMUS == 1
    store_f(1, SPC, 1, F1);
    load(1, PTE, r1);
#elif LITMUS == 2
    store_f(1, CLEAN, 0, F1);
    store_f(1, SPC, 1, F2);
    load(1, PTE, r1);
#else
    store_f(1, CLK, 2, F1);
    load(1, PTE, r1);
#endif
    done++
}

init
{
    atomic {
        mem[PTE] = 1;
        mem[CLEAN] = 1;
        mem[CLK] = 1;
        run Drain(0);
        run Drain(1);
        run Cpu0();
        run Cpu1()
    };
    done == 2;
#if LITMUS == 1
    /* CPU0 missed CPU1's bit: CPU1 must have walked the new PTE */
    assert(!(r0 == 0 && r1 == 1));
#elif LITMUS == 2
    /* CPU0 saw CPU1 clean: CPU1 must have walked the new PTE */
    assert(!(r0 == 1 && r1 == 1));
#else
    /* CPU0's last use predates CPU1's tick: CPU1 refilled the new PTE */
    assert(!(r0 == 1 && r1 == 1));
#endif
}
