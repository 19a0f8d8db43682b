#ifndef LODESTONE_CFUZZERDRIVER_H
#define LODESTONE_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, FuzzerDriver.cpp; linked by -sanitize=fuzzer): runs the fuzzing loop, or the
/// inputs named in argv, on `callback`, with libFuzzer's command line in `argc`/`argv`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
