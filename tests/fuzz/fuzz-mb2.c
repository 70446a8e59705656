/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz arch/x86/boot/mb2-parse.c: the input is the multiboot2 information. */

#include <shimk/boot-info.h>

#include <string.h>

#include "fuzz-boot-info.h"
#include "fake-phys.h"
#include "printk-capture.h"

#define MEM 0x10000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct boot_info bi;

    fake_phys_init(MEM);
    memcpy(fake_phys_ptr(FAKE_PHYS_BASE), data, size < MEM ? size : MEM);
    capture_reset();
    if ( mb2_parse(&bi, FAKE_PHYS_BASE, fake_phys_map) == 0 )
    {
        check_boot_info(&bi);
        mmap_sanitize(bi.mmap, &bi.nr_mmap);
    }
    fake_phys_fini();
    return 0;
}
