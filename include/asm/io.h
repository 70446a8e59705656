/* SPDX-License-Identifier: GPL-2.0-only */
/* Port I/O and MMIO accessors. */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <shimk/types.h>

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ __volatile__("outb %0, %1" :: "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ __volatile__("outw %0, %1" :: "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ __volatile__("outl %0, %1" :: "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;

    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;

    __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;

    __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t mmio_read32(const volatile void *p)
{
    return *(const volatile uint32_t *)p;
}

static inline void mmio_write32(volatile void *p, uint32_t v)
{
    *(volatile uint32_t *)p = v;
}

#endif /* ASM_IO_H */
