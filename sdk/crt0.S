/* SPDX-License-Identifier: GPL-2.0-only */
/* _start of a static shimk program: main(argc, argv), then exit with its value. */

#include <shimk/syscall-abi.h>

/*
 * The kernel enters here in ring 3 with RSP at argc, as the x86-64
 * psABI's process initialization lays the stack out (section 3.4):
 * argc, argv[], NULL, envp[] (empty), NULL, auxv.  RSP is 16-byte
 * aligned, which is what a call needs before it pushes the return.
 */
        .section .text.start, "ax", @progbits
        .globl  _start
        .type   _start, @function
_start:
        xorl    %ebp, %ebp              /* the outermost frame, for GDB */
        movq    (%rsp), %rdi            /* argc */
        leaq    8(%rsp), %rsi           /* argv */
        leaq    16(%rsp, %rdi, 8), %rdx /* envp */
        call    main
        movl    %eax, %edi
        movl    $SYS_EXIT, %eax
        syscall
        ud2                             /* SYS_EXIT does not return */
        .size   _start, . - _start

        .section .note.GNU-stack, "", @progbits
