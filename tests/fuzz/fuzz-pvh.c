/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz arch/x86/boot/pvh-parse.c: the input is low memory, start info first. */

#include <shimk/boot-info.h>

#include <string.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

#include "fuzz-boot-info.h"
#include "fake-phys.h"
#include "printk-capture.h"

#define MEM 0x10000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct boot_info bi;
    struct hvm_start_info *si;

    fake_phys_init(MEM);
    memcpy(fake_phys_ptr(FAKE_PHYS_BASE), data, size < MEM ? size : MEM);
    /*
     * Mostly a valid magic, so the fuzzer spends its time past it: the
     * first input byte's low bit keeps the fuzzer's own magic instead.
     */
    si = fake_phys_ptr(FAKE_PHYS_BASE);
    if ( !size || !(data[0] & 1) )
        si->magic = XEN_HVM_START_MAGIC_VALUE;
    capture_reset();
    if ( pvh_parse(&bi, FAKE_PHYS_BASE, fake_phys_map) == 0 )
    {
        check_boot_info(&bi);
        mmap_sanitize(bi.mmap, &bi.nr_mmap);
    }
    fake_phys_fini();
    return 0;
}
