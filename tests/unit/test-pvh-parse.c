/* SPDX-License-Identifier: GPL-2.0-only */
/* arch/x86/boot/pvh-parse.c on Xen's hvm_start_info, good and bad. */

#include <shimk/boot-info.h>
#include <shimk/errno.h>
#include <shimk/printk.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fake-phys.h"
#include "printk-capture.h"

/*
 * Fake memory layout: start info, module list, memory map, command
 * line; sized for the biggest plausible tables.
 */
#define MEM_SIZE    0x10000
#define SI_PA       (FAKE_PHYS_BASE + 0x0000)
#define MODLIST_PA  (FAKE_PHYS_BASE + 0x0100)
#define CMDLINE_PA  (FAKE_PHYS_BASE + 0x0a00)
#define MEMMAP_PA   (FAKE_PHYS_BASE + 0x8000)
#define OUTSIDE_PA  0x200000ull     /* past the fake range */

#define V0_SIZE offsetof(struct hvm_start_info, memmap_paddr)

static struct boot_info bi;
static struct hvm_start_info *si;

static const struct hvm_memmap_table_entry qemu_map[] = {
    { .addr = 0, .size = 0x9fc00, .type = XEN_HVM_MEMMAP_TYPE_RAM },
    { .addr = 0x9fc00, .size = 0x400, .type = XEN_HVM_MEMMAP_TYPE_RESERVED },
    { .addr = 0xf0000, .size = 0x10000,
      .type = XEN_HVM_MEMMAP_TYPE_RESERVED },
    { .addr = 0x100000, .size = 0x7ee0000, .type = XEN_HVM_MEMMAP_TYPE_RAM },
    { .addr = 0xfffc0000, .size = 0x40000,
      .type = XEN_HVM_MEMMAP_TYPE_RESERVED },
};

static void set_cmdline(const char *s)
{
    strcpy(fake_phys_ptr(CMDLINE_PA), s);
    si->cmdline_paddr = CMDLINE_PA;
}

static void set_memmap(const struct hvm_memmap_table_entry *e, uint32_t n)
{
    memcpy(fake_phys_ptr(MEMMAP_PA), e, n * sizeof(*e));
    si->memmap_paddr = MEMMAP_PA;
    si->memmap_entries = n;
}

static void set_modules(uint32_t n)
{
    struct hvm_modlist_entry *m = fake_phys_ptr(MODLIST_PA);

    for ( uint32_t i = 0; i < n; i++ )
        m[i] = (struct hvm_modlist_entry){
            .paddr = 0x1000000 + i * 0x100000ull,
            .size = 0x1234 + i,
            .cmdline_paddr = 0xdead0000,
        };
    si->modlist_paddr = MODLIST_PA;
    si->nr_modules = n;
}

/* A version 1 start info as QEMU's -kernel builds it, with two modules. */
static int setup(void **state)
{
    fake_phys_init(MEM_SIZE);
    capture_reset();
    memset(&bi, 0xa5, sizeof(bi));
    si = fake_phys_ptr(SI_PA);
    si->magic = XEN_HVM_START_MAGIC_VALUE;
    si->version = 1;
    si->flags = 0;
    si->rsdp_paddr = 0xf5a40;
    set_cmdline("console=ttyS0 ktest=all");
    set_modules(2);
    set_memmap(qemu_map, ARRAY_SIZE(qemu_map));
    return 0;
}

static int teardown(void **state)
{
    fake_phys_fini();
    return 0;
}

static int parse(void)
{
    return pvh_parse(&bi, SI_PA, fake_phys_map);
}

static void expect_ok(void)
{
    int rc = parse();

    if ( rc )
        capture_dump();
    assert_int_equal(rc, 0);
    assert_int_equal(bi.protocol, BOOT_PVH);
}

static void expect_error(int rc, const char *why)
{
    int got = parse();

    if ( got != rc || !capture_has(why) )
        capture_dump();
    assert_int_equal(got, rc);
    assert_int_equal(bi.protocol, BOOT_PVH);
    assert_int_equal(capture_level_count(LOGLEVEL_ERR), 1);
    assert_true(capture_has(why));
}

static void assert_reserved(unsigned int i, paddr_t base, uint64_t len)
{
    assert_true(i < bi.nr_reserved);
    assert_int_equal(bi.reserved[i].base, base);
    assert_int_equal(bi.reserved[i].len, len);
}

static void assert_qemu_map(void)
{
    assert_int_equal(bi.nr_mmap, ARRAY_SIZE(qemu_map));
    for ( unsigned int i = 0; i < ARRAY_SIZE(qemu_map); i++ )
    {
        assert_int_equal(bi.mmap[i].base, qemu_map[i].addr);
        assert_int_equal(bi.mmap[i].len, qemu_map[i].size);
        assert_int_equal(bi.mmap[i].type, qemu_map[i].type);
    }
}

static void valid_v1(void **state)
{
    expect_ok();
    assert_string_equal(capture_text(), "");
    assert_int_equal(bi.pvh_version, 1);
    assert_string_equal(bi.cmdline, "console=ttyS0 ktest=all");
    assert_false(bi.cmdline_truncated);
    assert_int_equal(bi.rsdp_pa, 0xf5a40);
    assert_int_equal(bi.rsdp_copy_len, 0);
    assert_string_equal(bi.loader, "");
    assert_false(bi.mmap_from_hypervisor);

    assert_int_equal(bi.nr_modules, 2);
    assert_int_equal(bi.modules[0].base, 0x1000000);
    assert_int_equal(bi.modules[0].size, 0x1234);
    assert_int_equal(bi.modules[1].base, 0x1100000);
    assert_int_equal(bi.modules[1].size, 0x1235);

    assert_qemu_map();

    /*
     * The start info, module list, modules and memory map are loader
     * data; the command line is copied, so it need not be kept.
     */
    assert_int_equal(bi.nr_reserved, 5);
    assert_reserved(0, SI_PA, sizeof(struct hvm_start_info));
    assert_reserved(1, MODLIST_PA, 2 * sizeof(struct hvm_modlist_entry));
    assert_reserved(2, 0x1000000, 0x1234);
    assert_reserved(3, 0x1100000, 0x1235);
    assert_reserved(4, MEMMAP_PA, ARRAY_SIZE(qemu_map) *
                                  sizeof(struct hvm_memmap_table_entry));
}

/*
 * Version 0 ends at rsdp_paddr.  Put it at the very end of memory so
 * that reading a version 1 field would leave the mapped range.
 */
static void v0_has_no_memmap(void **state)
{
    paddr_t pa = FAKE_PHYS_BASE + MEM_SIZE - V0_SIZE;
    struct hvm_start_info *v0 = fake_phys_ptr(pa);

    memcpy(v0, si, V0_SIZE);
    v0->version = 0;
    assert_int_equal(pvh_parse(&bi, pa, fake_phys_map), 0);
    assert_string_equal(capture_text(), "");
    assert_int_equal(bi.pvh_version, 0);
    assert_int_equal(bi.nr_mmap, 0);
    assert_string_equal(bi.cmdline, "console=ttyS0 ktest=all");
    assert_int_equal(bi.rsdp_pa, 0xf5a40);
    assert_int_equal(bi.nr_modules, 2);
    assert_reserved(0, pa, V0_SIZE);
    assert_int_equal(bi.nr_reserved, 4);
}

/* Version 0 fields that happen to sit where v1 keeps the map: ignored. */
static void v0_ignores_memmap_fields(void **state)
{
    si->version = 0;
    expect_ok();
    assert_int_equal(bi.nr_mmap, 0);
    assert_int_equal(bi.nr_reserved, 4);
    assert_reserved(0, SI_PA, V0_SIZE);
}

/* Xen 4.17 gives a PVH dom0 version 1 with no map: not an error. */
static void v1_without_memmap(void **state)
{
    si->memmap_entries = 0;
    si->memmap_paddr = 0;
    expect_ok();
    assert_string_equal(capture_text(), "");
    assert_int_equal(bi.nr_mmap, 0);
    assert_int_equal(bi.nr_reserved, 4);
}

static void v2_parsed_as_v1(void **state)
{
    si->version = 2;
    expect_ok();
    assert_int_equal(capture_lines(), 1);
    assert_string_equal(capture_line(0), "shimk: warning: pvh: start info "
                        "version 2, parsing it as version 1");
    assert_int_equal(bi.pvh_version, 2);
    assert_qemu_map();
    assert_reserved(0, SI_PA, sizeof(struct hvm_start_info));
}

static void bad_magic(void **state)
{
    si->magic = 0x2badb002;     /* multiboot1's */
    expect_error(-EINVAL, "pvh: bad start info magic 0x2badb002 (want "
                          "0x336ec578)");
    assert_int_equal(bi.nr_mmap, 0);
}

static void start_info_unreachable(void **state)
{
    assert_int_equal(pvh_parse(&bi, OUTSIDE_PA, fake_phys_map), -EFAULT);
    assert_true(capture_has("pvh: start info at 0x200000 is out of reach"));
}

/* A v1 header whose v1 part lies past the end of reachable memory. */
static void v1_start_info_truncated(void **state)
{
    paddr_t pa = FAKE_PHYS_BASE + MEM_SIZE - V0_SIZE;

    memcpy(fake_phys_ptr(pa), si, V0_SIZE);
    assert_int_equal(pvh_parse(&bi, pa, fake_phys_map), -EFAULT);
    assert_true(capture_has("pvh: version 1 start info is truncated"));
}

static void no_cmdline(void **state)
{
    si->cmdline_paddr = 0;
    expect_ok();
    assert_string_equal(bi.cmdline, "");
    assert_false(bi.cmdline_truncated);
}

/* The same as multiboot2's: a long option goes, the rest stays. */
static void cmdline_too_long(void **state)
{
    char *line = fake_phys_ptr(CMDLINE_PA);

    memset(line, 'c', 6000);
    strcpy(line + 6000, " ktest=all");
    expect_ok();
    assert_true(bi.cmdline_truncated);
    assert_int_equal(bi.cmdline_dropped, 1);
    assert_int_equal(bi.cmdline_len, 6010);
    assert_string_equal(bi.cmdline, "ktest=all");
}

static void cmdline_exactly_limit(void **state)
{
    char *line = fake_phys_ptr(CMDLINE_PA);

    memset(line, 'c', CMDLINE_MAX);
    line[CMDLINE_MAX] = '\0';
    expect_ok();
    assert_false(bi.cmdline_truncated);
    assert_string_equal(bi.cmdline, line);
}

static void cmdline_unreachable(void **state)
{
    si->cmdline_paddr = OUTSIDE_PA;
    expect_error(-EFAULT, "pvh: command line at 0x200000 is out of reach");
}

/* A string running off the end of memory before its terminator. */
static void cmdline_runs_off_memory(void **state)
{
    paddr_t pa = FAKE_PHYS_BASE + MEM_SIZE - 10;

    memset(fake_phys_ptr(pa), 'x', 10);
    si->cmdline_paddr = pa;
    expect_error(-EFAULT, "is out of reach");
}

/* Up to 64 modules is plausible; only 8 are kept. */
static void many_modules(void **state)
{
    set_modules(64);
    expect_ok();
    assert_int_equal(bi.nr_modules, BOOT_MODULES_MAX);
    assert_int_equal(bi.modules[7].base, 0x1700000);
    assert_true(capture_has("shimk: warning: pvh: more than 8 modules, "
                            "ignoring the rest"));
    assert_int_equal(bi.nr_reserved, 3 + BOOT_MODULES_MAX);
    assert_reserved(1, MODLIST_PA, 64 * sizeof(struct hvm_modlist_entry));
}

static void implausible_module_count(void **state)
{
    si->nr_modules = 65;
    expect_error(-EINVAL, "pvh: 65 modules is not plausible");
    /* A count like this must not turn into a huge mapping request. */
    capture_reset();
    si->nr_modules = UINT32_MAX;
    expect_error(-EINVAL, "pvh: 4294967295 modules is not plausible");
}

static void modlist_unreachable(void **state)
{
    si->modlist_paddr = OUTSIDE_PA;
    expect_error(-EFAULT, "pvh: module list at 0x200000 is out of reach");
}

/* A list that starts in memory and runs past its end. */
static void modlist_partly_unreachable(void **state)
{
    si->modlist_paddr = FAKE_PHYS_BASE + MEM_SIZE - 32;
    si->nr_modules = 2;
    expect_error(-EFAULT, "module list at");
}

static void module_of_zero_bytes(void **state)
{
    struct hvm_modlist_entry *m = fake_phys_ptr(MODLIST_PA);

    m[1].size = 0;
    expect_ok();
    assert_int_equal(bi.nr_modules, 2);
    assert_int_equal(bi.modules[1].size, 0);
    /* Nothing to reserve for it. */
    assert_int_equal(bi.nr_reserved, 4);
}

/* 1024 entries is plausible; only 128 fit in boot_info. */
static void many_memmap_entries(void **state)
{
    struct hvm_memmap_table_entry *e = fake_phys_ptr(MEMMAP_PA);

    assert_true(1024 * sizeof(*e) <= MEM_SIZE - (MEMMAP_PA - SI_PA));
    for ( unsigned int i = 0; i < 1024; i++ )
        e[i] = (struct hvm_memmap_table_entry){ i * 0x2000ull, 0x1000,
                                                XEN_HVM_MEMMAP_TYPE_RAM, 0 };
    si->memmap_entries = 1024;
    expect_ok();
    assert_int_equal(bi.nr_mmap, BOOT_MMAP_MAX);
    assert_int_equal(bi.mmap[127].base, 127 * 0x2000ull);
    assert_int_equal(capture_count("more than 128 memory map entries"), 1);
    assert_reserved(4, MEMMAP_PA, 1024 * sizeof(*e));
}

static void implausible_memmap_count(void **state)
{
    si->memmap_entries = 1025;
    expect_error(-EINVAL, "pvh: 1025 memory map entries is not plausible");
    capture_reset();
    si->memmap_entries = UINT32_MAX;
    expect_error(-EINVAL, "pvh: 4294967295 memory map entries is not "
                          "plausible");
}

static void memmap_unreachable(void **state)
{
    si->memmap_paddr = OUTSIDE_PA;
    expect_error(-EFAULT, "pvh: memory map at 0x200000 is out of reach");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(valid_v1),
        T(v0_has_no_memmap),
        T(v0_ignores_memmap_fields),
        T(v1_without_memmap),
        T(v2_parsed_as_v1),
        T(bad_magic),
        T(start_info_unreachable),
        T(v1_start_info_truncated),
        T(no_cmdline),
        T(cmdline_too_long),
        T(cmdline_exactly_limit),
        T(cmdline_unreachable),
        T(cmdline_runs_off_memory),
        T(many_modules),
        T(implausible_module_count),
        T(modlist_unreachable),
        T(modlist_partly_unreachable),
        T(module_of_zero_bytes),
        T(many_memmap_entries),
        T(implausible_memmap_count),
        T(memmap_unreachable),
    };
#undef T

    return cmocka_run_group_tests_name("pvh-parse", tests, NULL, NULL);
}
