/* SPDX-License-Identifier: GPL-2.0-only */
/* xl's dom0: copy a domU's guest-physical memory out as a raw image. */

/*
 * usage: xl-memdump DOMID PAGES OUT
 *
 * Writes guest frame N of DOMID at offset N * 4096 of OUT (a block device
 * or a file), for N below PAGES, and prints on stdout:
 *   hole FIRST-LAST     frames Xen would not map (left unwritten)
 *   pages N holes M     at the end
 * Exit 0 when the copy is whole but for holes, 1 on an error.
 *
 * Why not `xl dump-core`: libxenguest's xc_domain_dumpcore() tries every
 * frame below the domain's highest, one privcmd map and unmap each
 * (tools/libs/guest/xg_core.c, xg_core_x86.c); a PVH domU's special pages
 * sit just below 4 GiB, so that is nearly a million calls whatever its
 * size. Under QEMU TCG it had not finished a 16 MiB domU after 346 s.
 * Here the domU's RAM alone is copied, a batch of frames mapped with one
 * IOCTL_PRIVCMD_MMAPBATCH_V2 (Linux include/uapi/xen/privcmd.h,
 * drivers/xen/privcmd.c) and written with one pwrite per run of mapped
 * frames: 7-11 s for 128 MiB under TCG.
 *
 * Built static by tools/xl-dom0 with the host's compiler; dom0 has no
 * libc but busybox's.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE_SIZE   4096UL
/* Frames per batch: 4 MiB of mapping at a time. */
#define BATCH       1024UL

/*
 * struct privcmd_mmapbatch_v2 and its ioctl number, as Linux's UAPI header
 * <xen/privcmd.h> defines them; declared here because that header needs
 * the kernel-internal <xen/interface/xen.h> (xen_pfn_t is an unsigned
 * long and domid_t a uint16_t on x86-64: xen/include/public/xen.h).
 */
struct mmapbatch_v2
{
    unsigned int num;
    uint16_t dom;
    uint64_t addr;
    const unsigned long *arr;
    int *err;
};
#define IOCTL_PRIVCMD_MMAPBATCH_V2 \
    _IOC(_IOC_NONE, 'P', 4, sizeof(struct mmapbatch_v2))

static unsigned long holes;
static long hole_start = -1;

static void hole_end(unsigned long pfn)
{
    if ( hole_start >= 0 )
        printf("hole %#lx-%#lx\n", (unsigned long)hole_start, pfn - 1);
    hole_start = -1;
}

int main(int argc, char **argv)
{
    unsigned long pages, base, i;
    unsigned long pfns[BATCH];
    int errs[BATCH];
    char *end;
    int priv, out;
    long dom;

    if ( argc != 4 )
    {
        fprintf(stderr, "usage: xl-memdump DOMID PAGES OUT\n");
        return 1;
    }
    dom = strtol(argv[1], &end, 0);
    if ( *end || dom <= 0 || dom >= 0x7ff0 )
    {
        fprintf(stderr, "xl-memdump: bad domain id '%s'\n", argv[1]);
        return 1;
    }
    pages = strtoul(argv[2], &end, 0);
    if ( *end || !pages )
    {
        fprintf(stderr, "xl-memdump: bad page count '%s'\n", argv[2]);
        return 1;
    }
    priv = open("/dev/xen/privcmd", O_RDWR | O_CLOEXEC);
    if ( priv < 0 )
    {
        fprintf(stderr, "xl-memdump: /dev/xen/privcmd: %s\n",
                strerror(errno));
        return 1;
    }
    out = open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if ( out < 0 )
    {
        fprintf(stderr, "xl-memdump: %s: %s\n", argv[3], strerror(errno));
        return 1;
    }

    for ( base = 0; base < pages; base += BATCH )
    {
        unsigned long n = pages - base < BATCH ? pages - base : BATCH;
        struct mmapbatch_v2 b;
        char *va;

        /* privcmd maps foreign frames only into a VMA of its own. */
        va = mmap(NULL, n * PAGE_SIZE, PROT_READ, MAP_SHARED, priv, 0);
        if ( va == MAP_FAILED )
        {
            fprintf(stderr, "xl-memdump: mmap of privcmd: %s\n",
                    strerror(errno));
            return 1;
        }
        for ( i = 0; i < n; i++ )
        {
            pfns[i] = base + i;
            errs[i] = 0;
        }
        b.num = n;
        b.dom = dom;
        b.addr = (uintptr_t)va;
        b.arr = pfns;
        b.err = errs;
        /* Per-frame failures come back in errs; -ENOENT: some paged. */
        if ( ioctl(priv, IOCTL_PRIVCMD_MMAPBATCH_V2, &b) < 0 &&
             errno != ENOENT )
        {
            fprintf(stderr, "xl-memdump: MMAPBATCH_V2 of d%ld frames "
                    "%#lx-%#lx: %s\n", dom, base, base + n - 1,
                    strerror(errno));
            return 1;
        }
        for ( i = 0; i < n; )
        {
            unsigned long run = i;
            ssize_t len, done;

            if ( errs[i] )
            {
                if ( hole_start < 0 )
                    hole_start = base + i;
                holes++;
                i++;
                continue;
            }
            hole_end(base + i);
            while ( run < n && !errs[run] )
                run++;
            len = (run - i) * PAGE_SIZE;
            done = pwrite(out, va + i * PAGE_SIZE, len,
                          (off_t)(base + i) * PAGE_SIZE);
            if ( done != len )
            {
                fprintf(stderr, "xl-memdump: write at %#lx: %s\n",
                        (base + i) * PAGE_SIZE,
                        done < 0 ? strerror(errno) : "short write");
                return 1;
            }
            i = run;
        }
        munmap(va, n * PAGE_SIZE);
    }
    hole_end(pages);
    if ( fsync(out) < 0 && errno != EINVAL )
    {
        fprintf(stderr, "xl-memdump: fsync: %s\n", strerror(errno));
        return 1;
    }
    printf("pages %lu holes %lu\n", pages, holes);
    return 0;
}
