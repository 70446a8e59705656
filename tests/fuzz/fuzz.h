/* SPDX-License-Identifier: GPL-2.0-only */
/* What every libFuzzer target of tests/fuzz shares: a loud promise check. */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * A broken promise is a finding like a crash: print it and abort, so
 * libFuzzer saves the input (crash-*) and `make fuzz` reports it.
 */
#define PROMISE(cond, ...)                                                 \
    do                                                                     \
    {                                                                      \
        if ( !(cond) )                                                     \
        {                                                                  \
            fprintf(stderr, "broken promise at %s:%d: %s: ", __FILE__,     \
                    __LINE__, #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            abort();                                                       \
        }                                                                  \
    } while ( 0 )

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_FUZZ_H */
