/* SPDX-License-Identifier: GPL-2.0-only */
/* ktest: in-kernel test cases, registered in a linker section. */
#ifndef SHIMK_KTEST_H
#define SHIMK_KTEST_H

#include <shimk/compiler.h>
#include <shimk/types.h>

struct ktest
{
    bool failed;
    bool skipped;
    char why[160];
};

struct ktest_case
{
    const char *suite;
    const char *name;
    void (*fn)(struct ktest *t);
    unsigned int flags;
};

/* Runs only when its suite is named in ktest=, never under ktest=all. */
#define KTEST_EXPLICIT 0x1

/*
 * KTEST(suite, name) { body } defines one case.  Identifiers become
 * the names shown in TAP, with '_' turned into '-':
 * KTEST(selftest_panic, page_fault) is "selftest-panic: page-fault".
 */
#define KTEST_FLAGS(suite_, name_, flags_)                               \
    static void ktest_##suite_##__##name_(struct ktest *t);              \
    static const struct ktest_case ktest_case_##suite_##__##name_        \
        __used __section(".ktest") __aligned(8) = {                      \
            .suite = #suite_, .name = #name_,                            \
            .fn = ktest_##suite_##__##name_, .flags = (flags_) };        \
    static void ktest_##suite_##__##name_(struct ktest *t)

#define KTEST(suite_, name_) KTEST_FLAGS(suite_, name_, 0)

__printf(4, 5) void ktest_fail(struct ktest *t, const char *file, int line,
                               const char *fmt, ...);
__printf(2, 3) void ktest_skip(struct ktest *t, const char *fmt, ...);

/* A "# ..." diagnostic line in the TAP stream. */
__printf(1, 2) void ktest_note(const char *fmt, ...);

/* Fail and leave the case when cond is false. */
#define KT_ASSERT(t, cond)                                               \
    do                                                                   \
    {                                                                    \
        if ( !(cond) )                                                   \
        {                                                                \
            ktest_fail(t, __FILE__, __LINE__, "%s", #cond);              \
            return;                                                      \
        }                                                                \
    } while ( 0 )

/* The same, with a message saying what went wrong. */
#define KT_ASSERTF(t, cond, fmt, ...)                                    \
    do                                                                   \
    {                                                                    \
        if ( !(cond) )                                                   \
        {                                                                \
            ktest_fail(t, __FILE__, __LINE__, fmt, ##__VA_ARGS__);       \
            return;                                                      \
        }                                                                \
    } while ( 0 )

/* Fail unless a == b (as unsigned 64-bit), showing both values. */
#define KT_EQ(t, a, b)                                                   \
    do                                                                   \
    {                                                                    \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                 \
        if ( a_ != b_ )                                                  \
        {                                                                \
            ktest_fail(t, __FILE__, __LINE__, "%s == %#lx, want %s == "  \
                       "%#lx", #a, (unsigned long)a_, #b,                \
                       (unsigned long)b_);                               \
            return;                                                      \
        }                                                                \
    } while ( 0 )

#define KT_SKIP(t, ...)                                                  \
    do                                                                   \
    {                                                                    \
        ktest_skip(t, __VA_ARGS__);                                      \
        return;                                                          \
    } while ( 0 )

/*
 * Run the cases selected by the ktest= list ("all" or suite names),
 * print TAP between the KTEST BEGIN and END lines
 * (docs/design.md#in-kernel-tests), and return the exit code for the
 * verdict.
 */
int ktest_run(const char *selection, const char *env_facts);

/* Is ktest= set?  (Its value, else "".) */
const char *ktest_selection(void);

#endif /* SHIMK_KTEST_H */
