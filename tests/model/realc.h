/* SPDX-License-Identifier: GPL-2.0-only */
/* The REALC glue's interface, force-included into SPIN's pan.c. */
#ifndef MODEL_REALC_H
#define MODEL_REALC_H

/*
 * Plain ints only: pan.c must not see the kernel's headers (they clash
 * with the C library's), and SPIN's own cpp pass must not either.
 */
int m_clock_next(int now, int mask);
int m_filter(int bits, int now, int lastuse, const int *stamps,
             const int *clean, int mask, int obo);
void m_lazy_note(int *cpus, int *time, int *gen, int holders, int now);
void m_lazy_targets(int *cpus, int time, int gen, int space, int now,
                    const int *stamps, const int *clean, int mask, int obo,
                    int *targets, int *gen_out);
void m_lazy_flushed(int *cpus, int rec_gen, int gen, int flushed,
                    int ignore_gen);
int m_local_effect(int kind);
int m_may_assist(int kind);
int m_kvm_flag(int *st, int *unused);

#endif /* MODEL_REALC_H */
