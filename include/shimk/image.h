/* SPDX-License-Identifier: GPL-2.0-only */
/* Symbols the linker script defines around the kernel image. */
#ifndef SHIMK_IMAGE_H
#define SHIMK_IMAGE_H

extern char __image_start_phys[], __image_end_phys[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_start[], __bss_end[], __image_end[];

#endif /* SHIMK_IMAGE_H */
