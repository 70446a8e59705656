/* SPDX-License-Identifier: GPL-2.0-only */
/* SPIN model of shimk's TLB shootdown protocol (docs/model.md). */

/*
 * One virtual address va, mapped by a sequence of instances 1, 2, ...
 * (a new instance at every remap or map), so "stale" is "older than the
 * instance last published".  Each vCPU has a one-entry TLB for va (with
 * the global bit), a one-entry paging-structure cache (the table that
 * maps va), the flush vector's IRR bit, IF, an in-handler flag, its
 * flush_from mask and its own request slot (pending, the request's
 * kind), its TLB-clock stamp, tlb_clean, whether the space's root is
 * loaded and, under KVM, whether it runs and its steal-time byte.
 *
 * Configuration (spin -D..., tools/model sets them from
 * tests/model/configs.ini):
 *   NCPU    vCPUs, 2 to 4
 *   CLKBITS the TLB clock's width (2, wrapping every 3 ticks, or 3)
 *   HOOK    the L0 flush hook: 0 none (IPIs), 1 Xen, 2 KVM, 3 Hyper-V
 *   SCEN    1 remap, 2 a global kernel page, 3 deferred free and reuse
 *           through the TLB clock, 4 a page-table free under an IRQs-off
 *           walker, 5 lazy unmap then map
 *   BUG     the injected bug (table below); 0 none
 *   ROUNDS  remaps, unmaps or frees by each initiator
 *   INIT2   CPU1 initiates too (two initiators at once)
 *   CSW     CPUs 1.. leave and join the space (CR3 loads), CSWMAX times
 *   SPEC    speculative refills: the hardware fills the TLB and the
 *           paging-structure cache at any step the root is loaded
 *   NOFAIL  the L0's flush call never fails
 *   NOADAPT a plain flush never goes by IPIs while the hook is on
 *           (flush-adapt=0, include/asm/flush-adapt.h); without it a
 *           flush the hook may take may also take IPIs instead
 *   LIVE    at most LIVE reads per CPU, so that every run ends (below)
 *   REALC   the clock, the filter, the lazy record, the flush kind and
 *           the KVM flag step come from the kernel's own C (realc.c)
 *
 * The bugs: 1-8 are the kernel's tlb-inject= classes, numbered as enum
 * tlb_inject (include/asm/flush-inject.h); the rest have no runtime
 * class.  tests/unit/test-model.py holds the two lists together.
 *   BUG 1: skip-remote
 *   BUG 2: skip-cpu
 *   BUG 3: wrong-page
 *   BUG 4: nonglobal
 *   BUG 5: clock-off-by-one
 *   BUG 6: l0-lie
 *   BUG 7: ignore-no-assist
 *   BUG 8: lazy-map
 *   BUG 9: kvm-store (the preempted flag by load and plain store)
 *   BUG 10: ack-early (the handler acknowledges before it flushes)
 *   BUG 11: tick-after (the clock ticked after the flush)
 *   BUG 12: stamp-before (the stamp written before the flush)
 *   BUG 13: wrap-noflush (a wrap restarts the clock without a flush)
 *   BUG 14: lazy-gen (lazy_map_flushed ignores the generation)
 *   BUG 15: clean-early (tlb_clean set before the kernel root is loaded)
 *   BUG 16: mask-late (the space bit set after the root is loaded)
 *   BUG 17: xen-upto-after (Xen: the newest number read after the call)
 *   BUG 18: xen-plain-inc (Xen: the request numbered by load and store)
 *   BUG 19: ipi-before-mark (the IPI sent before flush_from is marked)
 */

#ifndef NCPU
#define NCPU 2
#endif
#ifndef HOOK
#define HOOK 0
#endif
#ifndef SCEN
#define SCEN 1
#endif
#ifndef BUG
#define BUG 0
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef CSWMAX
#define CSWMAX 2
#endif
#ifndef PREEMPTS
#define PREEMPTS 2
#endif

#define ALLCPUS ((1 << NCPU) - 1)
#define BIT(c) (1 << (c))
/* A 2-bit clock wraps every 3 ticks; CLKBITS=3 (stress) every 7. */
#ifndef CLKBITS
#define CLKBITS 2
#endif
#define CLKMASK ((1 << CLKBITS) - 1)
/* tlb-inject-cpu: skip-cpu's victim */
#define INJCPU 1

/* Request kinds (the flag word, reduced to what the protocol reads). */
#define K_VA 1          /* FLUSH_TLB | FLUSH_ORDER(0): INVLPG of va */
#define K_ALL 2         /* FLUSH_TLB: every non-global entry */
#define K_GLOBAL 4      /* FLUSH_TLB_GLOBAL: global entries too */
#define K_NA 8          /* FLUSH_NO_ASSIST */
#define K_WRONGVA 16    /* wrong-page: INVLPG of the next page */

/* What a local flush drops (flush_local_kind()'s primitive). */
#define E_NONE 0
#define E_INVLPG 1
#define E_NONGLOBAL 2
#define E_ALL 3

/* KVM steal-time preempted byte (Documentation/virt/kvm/msr.rst). */
#define ST_PREEMPTED 1
#define ST_FLUSH 2

/* --- state --- */
byte pte = 1;           /* instance mapped at va; 0 not present */
bool pteg;              /* the mapping is global (SCEN 2) */
byte nexti = 1;         /* last instance made */
byte pub = 1;           /* every read must see an instance >= pub */
byte l2 = 1;            /* the page table that maps va (SCEN 4) */
byte ntab = 1;
bool tfreed[ROUNDS + 2];

byte tlb[NCPU];         /* cached instance for va; 0 none */
bool tlbg[NCPU];        /* that entry is global */
byte psc[NCPU];         /* paging-structure cache: the table for va */
bool irr[NCPU];         /* INVALIDATE_VECTOR pending */
bool ifl[NCPU];         /* RFLAGS.IF */
bool inh[NCPU];         /* in the flush handler (interrupt gate: IF 0) */
byte from[NCPU];        /* cpu_info.flush_from */
byte pend[NCPU];        /* cpu_info.flush_req.pending */
byte rkind[NCPU];       /* cpu_info.flush_req.flags */
byte stamp[NCPU];       /* cpu_info.tlbflush_time */
bool clean[NCPU];       /* cpu_info.tlb_clean */
bool wrapp[NCPU];       /* cpu_info.tlb_wrap_pending */
bool insp[NCPU];        /* the space's root is in CR3 */
bool vrun[NCPU];         /* KVM: the vCPU runs */
byte st[NCPU];          /* KVM: steal-time preempted byte */
byte spc = ALLCPUS;     /* as->cpus */
byte clk = 1;           /* tlbflush_clock */
byte nsw;               /* CR3 switches made (CSW) */
byte npre;              /* preemptions made (KVM) */

/* the lazy-unmap record (struct lazy_unmaps) */
byte lzcpus;
byte lztime;
byte lzgen;
/* the deferred frame's stamp (frame_free_deferred) */
byte lastuse;

/* Xen's shared-call numbering (guest/xen/xen.c) */
byte xreq;
byte xcov;
bool xbusy;

/*
 * Marks on the steps a clean "holds" must have run to mean something
 * (tools/model's REACH=): a hidden store, so no new state.
 */
hidden byte hmark;
#define REACH(r) hmark = r
#define R_SKIP 1        /* the clock filter drops a CPU stamped since */
#define R_CLEAN 2       /* the clock filter drops a clean CPU */
#define R_WRAP 3        /* a tick wraps the clock to 0 */
#define R_WRAPDONE 4    /* the wrap's leader restarts the clock at 1 */

/* scratch for the C calls: not state, used inside one d_step only */
hidden int ha, hb, hc, hd, he, hf, hg, hr;

#define FLAGGED(j) (HOOK == 2 && !vrun[j] && (st[j] & ST_FLUSH))
/* j holds an instance older than lim, and may still read through it */
#define STALE(j, lim) (tlb[j] != 0 && tlb[j] < lim && !FLAGGED(j))
#define HOLDS(j, i) (tlb[j] == i && !FLAGGED(j))

/* --- the TLB clock (arch/x86/flush/flushtlb.c: pre_flush, post_flush) --- */

inline clock_next(t, n)
{
#ifdef REALC
    d_step { ha = t; c_code { hr = m_clock_next(ha, CLKMASK); }; n = hr }
#else
    n = (t + 1) & CLKMASK
#endif
}

/* model: pre_flush() */
inline pre_flush(c, t)
{
#if HOOK != 0
    t = 0   /* hypervisor_setup() turned the clock off */
#else
    t = clk;
    do
    :: t == 0 -> break     /* another CPU leads a wrap: no tick */
    :: else ->
        clock_next(t, n);
        /* __atomic_compare_exchange_n(&tlbflush_clock, &t, n) */
        atomic {
            if
            :: clk == t -> clk = n; t = n; cas = 1
            :: else -> t = clk; cas = 0
            fi
        };
        if
        :: cas ->
            if
            :: t == 0 -> wrapp[c] = 1; REACH(R_WRAP)
            :: else
            fi;
            break
        :: else
        fi
    od
#endif
}

/* model: post_flush() */
inline post_flush(c, t)
{
#if HOOK == 0
    stamp[c] = t
#else
    skip
#endif
}

/* model: flush_local_kind() */
inline local_effect(k, e)
{
#ifdef REALC
    d_step { ha = k; c_code { hr = m_local_effect(ha); }; e = hr }
#else
    if
    :: k & (K_VA | K_WRONGVA) -> e = E_INVLPG
    :: else ->
        if
        :: k & K_GLOBAL -> e = E_ALL
        :: k & K_ALL -> e = E_NONGLOBAL
        :: else -> e = E_NONE
        fi
    fi
#endif
}

/* The flush instruction itself on CPU c. */
inline tlb_drop(c, k, e)
{
    if
    :: e == E_INVLPG ->
        /* INVLPG empties every paging-structure cache (SDM 4.10.4.1) */
        atomic {
            if
            :: !(k & K_WRONGVA) -> tlb[c] = 0
            :: else
            fi;
            psc[c] = 0
        }
    :: e == E_NONGLOBAL ->
        atomic {
            if
            :: !tlbg[c] -> tlb[c] = 0
            :: else
            fi;
            psc[c] = 0
        }
    :: e == E_ALL -> atomic { tlb[c] = 0; psc[c] = 0 }
    :: e == E_NONE
    fi
}

/*
 * model: flush_area_local().  IRQs off around it (local_irq_save);
 * in the handler they are off already.
 */
inline flush_local(c, k, e, t)
{
    local_effect(k, e);
    if
    :: e == E_INVLPG || e == E_NONE -> tlb_drop(c, k, e)
    :: else ->
#if BUG == 11
        tlb_drop(c, k, e);
        pre_flush(c, t);
        post_flush(c, t)
#elif BUG == 12
        pre_flush(c, t);
        post_flush(c, t);
        tlb_drop(c, k, e)
#else
        pre_flush(c, t);
        tlb_drop(c, k, e);
        post_flush(c, t)
#endif
    fi
}

/* --- the L0 hooks --- */

/* model: xen_flush_tlb(): HVMOP_flush_tlbs flushes every vCPU. */
inline xen_hook(rc)
{
#if BUG == 18
    mine = xreq;
    mine++;
    xreq = mine;
#else
    atomic { xreq++; mine = xreq }
#endif
    rc = 0;
    do
    :: xcov >= mine -> break
    :: else ->
        if
        :: atomic { !xbusy -> xbusy = 1 } ->
#if BUG != 17
            upto = xreq;
#endif
            if
            :: atomic {
                   j = 0;
                   do
                   :: j < NCPU -> tlb[j] = 0; psc[j] = 0; j++
                   :: else -> break
                   od;
                   j = 0
               }
#ifndef NOFAIL
            :: rc = 1
#endif
            fi;
#if BUG == 17
            upto = xreq;
#endif
            if
            :: rc == 0 -> xcov = upto
            :: else
            fi;
            upto = 0;
            xbusy = 0;
            if
            :: rc -> break
            :: else
            fi
        :: xcov >= mine -> break
#ifndef NOFAIL
        /*
         * model: flush_wait_late(): a waiter's bound runs out while
         * another CPU holds the call; it gives up and sends IPIs.
         */
        :: xbusy && xcov < mine -> rc = 1; break
#endif
        fi
    od;
    mine = 0
}

/*
 * model: kvm_flag_preempted().  One target at a time: the load, then
 * the compare-and-swap against the loaded byte (or, with BUG 9, a plain
 * store).
 */
inline kvm_hook(rc)
{
    j = 0;
    do
    :: j < NCPU ->
        if
        :: rem & BIT(j) ->
#ifdef REALC
            /* the load and the cmpxchg of kvm_flag_preempted(), one step */
            d_step {
                ha = st[j];
                c_code { hb = 0; hr = m_kvm_flag(&ha, &hb); };
                st[j] = ha;
                if
                :: hr -> rem = rem & ~BIT(j)
                :: else
                fi
            }
#else
            s = st[j];
            if
            :: s & ST_PREEMPTED ->
#if BUG == 9
                st[j] = s | ST_FLUSH;
                rem = rem & ~BIT(j)
#else
                atomic {
                    if
                    :: st[j] == s -> st[j] = s | ST_FLUSH; rem = rem & ~BIT(j)
                    :: else
                    fi
                }
#endif
            :: else
            fi;
            s = 0
#endif
        :: else
        fi;
        j++
    :: else -> break
    od;
    j = 0;
    rc = (rem != 0)     /* -EAGAIN: IPIs for the rest */
}

/*
 * model: hyperv_flush_tlb().  HvCallFlushVirtualAddressList/Space on
 * the targets, effective when the call returns (TLFS 12.4); a call may
 * fail after some of a list's pages were done.
 */
inline hyperv_hook(k, rc)
{
    if
    :: atomic {
           local_effect(k, e);
           j = 0;
           do
           :: j < NCPU ->
               if
               :: rem & BIT(j) -> tlb_drop(j, k, e)
               :: else
               fi;
               j++
           :: else -> break
           od;
           j = 0;
           rc = 0
       }
#ifndef NOFAIL
    :: rc = 1
    :: atomic {
           j = 0;
           do
           :: j < NCPU ->
               if
               :: rem & BIT(j) -> tlb_drop(j, k, E_INVLPG)
               :: skip
               fi;
               j++
           :: else -> break
           od;
           j = 0;
           rc = 1
       }
#endif
    fi
}

/* model: hypervisor_flush_tlb() */
inline l0_hook(k, rc)
{
#if BUG == 6
    rc = 0      /* l0-lie: says done, flushes nothing */
#elif HOOK == 1
    xen_hook(rc)
#elif HOOK == 2
    kvm_hook(rc)
#elif HOOK == 3
    hyperv_hook(k, rc)
#else
    rc = 1
#endif
}

/* model: flush_may_assist() */
inline may_assist(k, ok)
{
#ifdef REALC
    d_step { ha = k; c_code { hr = m_may_assist(ha); }; ok = hr }
#else
    ok = !(k & K_NA)
#endif
}

/*
 * model: flush_area_mask() up to its tlb_clock_maybe_wrap().  msk and
 * k are read once; rem, fk, rc, ok, e, t, n, cas, j are the caller's.
 */
inline flush_core(c, msk, k)
{
    fk = k;
#if BUG == 3
    if
    :: fk & K_VA -> fk = (fk & ~K_VA) | K_WRONGVA
    :: else
    fi;
#elif BUG == 4
    if
    :: fk & K_GLOBAL -> fk = (fk & ~K_GLOBAL) | K_ALL
    :: else
    fi;
#elif BUG == 7
    fk = fk & ~K_NA;
#endif
    if
    :: msk & BIT(c) ->
        ifl[c] = 0;
        flush_local(c, fk, e, t);
        ifl[c] = 1
    :: else
    fi;
    rem = msk & ALLCPUS & ~BIT(c);
    if
    :: rem != 0 ->
#if BUG == 1
        rem = 0;
#elif BUG == 2
        rem = rem & ~BIT(INJCPU);
#endif
#if HOOK != 0
        may_assist(fk, ok);
        if
        :: rem != 0 && ok ->
            l0_hook(fk, rc);
            if
            :: rc == 0 -> rem = 0
            :: else
            fi
#ifndef NOADAPT
        :: rem != 0 && ok -> skip   /* flush-adapt chose IPIs */
#endif
        :: else
        fi;
        ok = 0;
        rc = 0;
#endif
        if
        :: rem != 0 ->
            /* the request in our slot, then the marks, then the IPIs */
            atomic { rkind[c] = fk; pend[c] = rem };
#if BUG == 19
            atomic {
                j = 0;
                do
                :: j < NCPU ->
                    if
                    :: rem & BIT(j) -> irr[j] = 1
                    :: else
                    fi;
                    j++
                :: else -> break
                od;
                j = 0
            };
            atomic {
                j = 0;
                do
                :: j < NCPU ->
                    if
                    :: rem & BIT(j) -> from[j] = from[j] | BIT(c)
                    :: else
                    fi;
                    j++
                :: else -> break
                od;
                j = 0
            };
#else
            atomic {
                j = 0;
                do
                :: j < NCPU ->
                    if
                    :: rem & BIT(j) -> from[j] = from[j] | BIT(c)
                    :: else
                    fi;
                    j++
                :: else -> break
                od;
                j = 0
            };
            atomic {
                j = 0;
                do
                :: j < NCPU ->
                    if
                    :: rem & BIT(j) -> irr[j] = 1
                    :: else
                    fi;
                    j++
                :: else -> break
                od;
                j = 0
            };
#endif
            /* model: wait_acks(), IRQs on: our own handler may run */
            pend[c] == 0;
            rkind[c] = 0
        :: else
        fi
    :: else
    fi;
    rem = 0;
    fk = 0;
    e = 0
}

/* model: tlb_clock_maybe_wrap() (flush_area_mask's tail, the scheduler) */
inline maybe_wrap(c)
{
    if
    :: wrapp[c] ->
        wrapp[c] = 0;
#if BUG != 13
        flush_core(c, ALLCPUS & ~BIT(c), K_ALL | K_NA);
#endif
        assert(clk == 0);
        clk = 1;
        REACH(R_WRAPDONE)
    :: else
    fi
}

inline flush_area_mask(c, msk, k)
{
    flush_core(c, msk, k);
    maybe_wrap(c)
}

/* No CPU may read through an instance older than lim any more. */
inline assert_none_stale(lim)
{
    atomic {
        j = 0;
        do
        :: j < NCPU -> assert(!STALE(j, lim)); j++
        :: else -> break
        od;
        j = 0
    }
}

inline assert_none_holds(i)
{
    atomic {
        j = 0;
        do
        :: j < NCPU -> assert(!HOLDS(j, i)); j++
        :: else -> break
        od;
        j = 0
    }
}

/* --- the TLB clock filter (tlb_clock_filter(), stamp_of()) --- */

/* m: the mask to filter; lu: the last use; clock read here */
inline clock_filter(m, lu)
{
#ifdef REALC
    d_step {
        ha = m; hb = lu; hc = (HOOK == 0 -> clk : 0); hd = (BUG == 5);
        c_code {
            int sts[NCPU], cl[NCPU];

            for ( int i = 0; i < NCPU; i++ )
            {
                sts[i] = now.stamp[i];
                cl[i] = now.clean[i];
            }
            hr = m_filter(ha, hc, hb, sts, cl, CLKMASK, hd);
        };
        m = hr
    }
#else
    atomic {
        now_ = (HOOK == 0 -> clk : 0);
        if
        :: now_ != 0 ->
            j = 0;
            do
            :: j < NCPU ->
                if
                :: m & BIT(j) ->
                    /*
                     * stamp_of(): a clean CPU counts as newer than any
                     * last use (UINT32_MAX), so tlb_need_flush() says no
                     */
                    if
                    :: clean[j] -> m = m & ~BIT(j); REACH(R_CLEAN)
                    :: else ->
#if BUG == 5
                        if
                        :: stamp[j] < CLKMASK -> sj = stamp[j] + 1
                        :: else -> sj = stamp[j]
                        fi;
#else
                        sj = stamp[j];
#endif
                        /* tlb_need_flush() */
                        if
                        :: !(sj <= lu && lu <= now_) ->
                            m = m & ~BIT(j);
                            REACH(R_SKIP)
                        :: else
                        fi
                    fi
                :: else
                fi;
                j++
            :: else -> break
            od;
            j = 0;
            sj = 0
        :: else
        fi;
        now_ = 0
    }
#endif
}

/* --- the lazy-unmap record (kernel/mm/lazy-unmap.c), under as->lock --- */

/* model: lazy_unmap_note() */
inline lazy_note(holders, tnow)
{
#ifdef REALC
    d_step {
        ha = lzcpus; hb = lztime; hc = lzgen; hd = holders; he = tnow;
        c_code { m_lazy_note(&ha, &hb, &hc, hd, he); };
        lzcpus = ha; lztime = hb; lzgen = hc
    }
#else
    if
    :: holders != 0 -> lzcpus = lzcpus | holders; lztime = tnow; lzgen++
    :: else
    fi
#endif
}

/* model: lazy_map_targets() with tlb_clock_filter(): targets, gen out */
inline lazy_targets(targets, gen)
{
#ifdef REALC
    d_step {
        ha = lzcpus; hb = lztime; hc = lzgen; hd = spc;
        he = (HOOK == 0 -> clk : 0); hf = (BUG == 5);
        c_code {
            int sts[NCPU], cl[NCPU];

            for ( int i = 0; i < NCPU; i++ )
            {
                sts[i] = now.stamp[i];
                cl[i] = now.clean[i];
            }
            m_lazy_targets(&ha, hb, hc, hd, he, sts, cl, CLKMASK, hf, &hg,
                           &hr);
        };
        lzcpus = ha; targets = hg; gen = hr
    }
#else
    atomic {
        gen = lzgen;
        lzcpus = lzcpus & spc;
        targets = lzcpus
    };
    if
    :: targets != 0 ->
        clock_filter(targets, lztime);
        if
        :: targets != lzcpus -> lzcpus = targets
        :: else
        fi
    :: else
    fi
#endif
}

/* model: lazy_map_flushed() */
inline lazy_flushed(flushed, gen)
{
#ifdef REALC
    d_step {
        ha = lzcpus; hb = lzgen; hc = gen; hd = flushed; he = (BUG == 14);
        c_code { m_lazy_flushed(&ha, hb, hc, hd, he); };
        lzcpus = ha
    }
#else
#if BUG == 14
    lzcpus = lzcpus & ~flushed
#else
    if
    :: lzgen == gen -> lzcpus = lzcpus & ~flushed
    :: else
    fi
#endif
#endif
}

/* --- address-space switches (arch/x86/mm/aspace.c: aspace_switch) --- */

/* MOV to CR3 without PCIDs: non-global entries and PSCs go (SDM 4.10.4.1) */
inline cr3_load(c, in)
{
    atomic {
        insp[c] = in;
        if
        :: !tlbg[c] -> tlb[c] = 0
        :: else
        fi;
        psc[c] = 0
    }
}

/* model: switch_cr3(), with the clock's tick before and stamp after */
inline switch_cr3(c, in)
{
    ifl[c] = 0;
#if BUG == 11
    cr3_load(c, in);
    pre_flush(c, t);
    post_flush(c, t);
#elif BUG == 12
    pre_flush(c, t);
    post_flush(c, t);
    cr3_load(c, in);
#else
    pre_flush(c, t);
    cr3_load(c, in);
    post_flush(c, t);
#endif
    ifl[c] = 1
}

/* model: aspace_switch(NULL): to the kernel's root */
inline leave_space(c)
{
#if BUG == 15
    clean[c] = 1;
#endif
    switch_cr3(c, 0);
    spc = spc & ~BIT(c);
#if BUG != 15
    clean[c] = 1;
#endif
    maybe_wrap(c)
}

/* model: aspace_switch(as) */
inline join_space(c)
{
    clean[c] = 0;
#if BUG != 16
    spc = spc | BIT(c);
#endif
    switch_cr3(c, 1);
#if BUG == 16
    spc = spc | BIT(c);
#endif
    maybe_wrap(c)
}

/*
 * LIVE=n: each CPU makes at most n reads (and walks), so every run
 * ends; a run that ends with a CPU still waiting is then an invalid end
 * state (a lost request or a wait that never ends), which pan reports.
 */
#ifdef LIVE
#define BUDGET budget > 0 &&
#define SPEND budget--;
#else
#define BUDGET
#define SPEND
#endif

/* --- the processes --- */

/*
 * model: invalidate_interrupt().  Entered when the vector is pending and
 * IF is set; the interrupt gate clears IF, so the thread (suspended by
 * its provided clause) and a second entry wait until it returns.
 */
proctype Irq(byte c) provided (vrun[c])
{
    byte f, k, e, t, n, cas;

end:
    do
    :: atomic { irr[c] && ifl[c] && !inh[c] -> irr[c] = 0; inh[c] = 1 };
        f = 0;
        do
        :: f < NCPU ->
            if
            :: atomic {
                   from[c] & BIT(f) -> from[c] = from[c] & ~BIT(f);
                   k = rkind[f]
               };
#if BUG == 10
                pend[f] = pend[f] & ~BIT(c);
                flush_local(c, k, e, t)
#else
                flush_local(c, k, e, t);
                pend[f] = pend[f] & ~BIT(c)
#endif
            :: else
            fi;
            f++
        :: else -> break
        od;
        atomic { f = 0; k = 0; e = 0; t = 0; n = 0; cas = 0; inh[c] = 0 }
    od
}

/* The hardware: speculative fills whenever the root is loaded. */
proctype Spec(byte c) provided (vrun[c])
{
end:
    do
    :: atomic {
           SCEN != 4 && insp[c] && pte != 0 && tlb[c] == 0 ->
           tlb[c] = pte; tlbg[c] = pteg
       }
    :: atomic {
           SCEN == 4 && insp[c] && l2 != 0 && psc[c] == 0 -> psc[c] = l2
       }
    od
}

/* model: the KVM host's preemption and its entry path (record_steal_time) */
inline kvm_resume(j)
{
    atomic {
        !vrun[j] ->
        if
        :: st[j] & ST_FLUSH -> tlb[j] = 0; psc[j] = 0
        :: else
        fi;
        st[j] = 0;
        vrun[j] = 1
    }
}

inline kvm_preempt(j)
{
    atomic {
        npre < PREEMPTS && vrun[j] -> vrun[j] = 0; st[j] = ST_PREEMPTED; npre++
    }
}

proctype Host()
{
end:
    do
    :: kvm_preempt(1)
    :: kvm_resume(1)
#if NCPU > 2
    :: kvm_preempt(2)
    :: kvm_resume(2)
#endif
#if NCPU > 3
    :: kvm_preempt(3)
    :: kvm_resume(3)
#endif
    od
}

#ifdef INIT2
#define INITIATOR(c) ((c) == 0 || (c) == 1)
#else
#define INITIATOR(c) ((c) == 0)
#endif

/* as->lock */
bool lk;
#define LOCK() atomic { !lk -> lk = 1 }
#define UNLOCK() lk = 0

proctype Cpu(byte c) provided (vrun[c] && !inh[c])
{
    byte r, old, newi, kk, m, hold, tg, gen, w;
    byte fk, rem, e, t, n, j, s, mine, upto, now_, sj, tn;
    bool cas, ok, rc;
#ifdef LIVE
    byte budget = LIVE;
#endif

    if
    :: !INITIATOR(c) -> goto reader
    :: else
    fi;
    r = 0;
    do
    :: r < ROUNDS ->
#if SCEN == 1 || SCEN == 2
        /* aspace_remap(): the PTE exchange, then the flush of as->cpus */
        atomic { nexti++; old = pte; pte = nexti; newi = nexti };
#if SCEN == 1
        if
        :: kk = K_VA
        :: kk = K_ALL
        fi;
        flush_area_mask(c, spc, kk);
#else
        /* a kernel page: every CPU, globals too */
        flush_area_mask(c, ALLCPUS, K_GLOBAL);
#endif
        assert_none_stale(newi);
        atomic {
            if
            :: newi > pub -> pub = newi
            :: else
            fi;
            old = 0; kk = 0
        };
#elif SCEN == 3
        /* aspace_unmap_lazy() */
        LOCK();
        atomic { old = pte; pte = 0 };
        hold = spc;
        ifl[c] = 0;
        flush_local(c, K_VA, e, t);
        ifl[c] = 1;
        hold = hold & ~BIT(c);
        tn = (HOOK == 0 -> clk : 0);
        lazy_note(hold, tn);
        UNLOCK();
        /* frame_free_deferred(): the clock read after the PTE store */
        lastuse = (HOOK == 0 -> clk : 0);
        /* frame_alloc_user(): that frame comes back */
        m = ALLCPUS;
        clock_filter(m, lastuse);
        if
        :: m != 0 -> flush_area_mask(c, m, K_ALL | K_NA)
        :: else
        fi;
        assert_none_holds(old);
        /* aspace_map() of the reused frame */
        LOCK();
        atomic { nexti++; pte = nexti; newi = nexti };
        lazy_targets(tg, gen);
        UNLOCK();
        if
        :: tg != 0 && BUG != 8 ->
            flush_area_mask(c, tg, K_ALL);
            LOCK();
            lazy_flushed(tg, gen);
            UNLOCK()
        :: else
        fi;
        atomic { pub = newi; old = 0; hold = 0; m = 0; tg = 0; gen = 0 };
#elif SCEN == 4
        /* aspace_unmap() of a table's last entry: take_empty_table() */
        atomic { old = l2; l2 = 0 };
        flush_area_mask(c, spc, K_ALL | K_NA);
        tfreed[old] = 1;
        atomic {
            j = 0;
            do
            :: j < NCPU -> assert(psc[j] != old || FLAGGED(j)); j++
            :: else -> break
            od;
            j = 0
        };
        /* a later map allocates a new table */
        atomic { ntab++; l2 = ntab; old = 0 };
#elif SCEN == 5
#ifdef INIT2
        if
        :: c == 0 -> goto lazyunmap
        :: else -> goto lazymap
        fi;
#endif
lazyunmap:
        LOCK();
        if
        :: pte == 0 -> UNLOCK(); goto lazydone
        :: else
        fi;
        atomic { old = pte; pte = 0 };
        hold = spc;
        ifl[c] = 0;
        flush_local(c, K_VA, e, t);
        ifl[c] = 1;
        hold = hold & ~BIT(c);
        tn = (HOOK == 0 -> clk : 0);
        lazy_note(hold, tn);
        UNLOCK();
#ifdef INIT2
        goto lazydone;
#endif
lazymap:
        LOCK();
        if
        :: pte != 0 -> UNLOCK(); goto lazydone
        :: else
        fi;
        atomic { nexti++; pte = nexti; newi = nexti };
        lazy_targets(tg, gen);
        UNLOCK();
        if
        :: tg != 0 && BUG != 8 ->
            flush_area_mask(c, tg, K_ALL);
            LOCK();
            lazy_flushed(tg, gen);
            UNLOCK()
        :: else
        fi;
        atomic {
            if
            :: newi > pub -> pub = newi
            :: else
            fi;
            old = 0; hold = 0; tg = 0; gen = 0
        };
lazydone:
        skip;
#endif
        r++
    :: else -> break
    od;
    r = 0;

reader:
end:
    do
    /* a read of va: a hit, or a walk that fills the TLB */
    :: atomic {
           BUDGET SCEN != 4 && (SCEN == 2 || insp[c]) &&
           (tlb[c] != 0 || pte != 0) ->
           SPEND
           if
           :: tlb[c] == 0 -> tlb[c] = pte; tlbg[c] = pteg
           :: else
           fi;
           assert(tlb[c] >= pub)
       }
#ifdef CSW
    :: atomic { c != 0 && nsw < CSWMAX && insp[c] -> nsw++ };
        leave_space(c)
    :: atomic { c != 0 && nsw < CSWMAX && !insp[c] -> nsw++ };
        join_space(c)
#endif
#if SCEN == 4
    /* model: aspace_user_range_ok(): a software walk with IRQs off */
    :: atomic { BUDGET c != 0 && insp[c] -> SPEND ifl[c] = 0 };
        w = l2;
        if
        :: w != 0 -> assert(!tfreed[w])
        :: else
        fi;
        atomic { w = 0; ifl[c] = 1 }
#endif
    /* the scheduler's tlb_clock_maybe_wrap() */
    :: wrapp[c] -> maybe_wrap(c)
    od
}

init
{
    byte j;

    atomic {
        j = 0;
        do
        :: j < NCPU ->
            ifl[j] = 1; vrun[j] = 1; insp[j] = 1; stamp[j] = 1;
            j++
        :: else -> break
        od;
        pteg = (SCEN == 2);
        j = 0;
        do
        :: j < NCPU ->
            run Cpu(j);
            run Irq(j);
#ifdef SPEC
            run Spec(j);
#endif
            j++
        :: else -> break
        od;
#if HOOK == 2
        run Host();
#endif
        j = 0
    }
}
