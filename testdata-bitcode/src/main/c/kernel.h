/*
 * Common declarations for the Packetizer test kernels.
 *
 * The kernels are compiled with -nostdlibinc (see BundledClang.KERNEL_FLAGS), so no system header
 * is read: only clang's own freestanding headers from the LLVM jar (stdint.h, stdbool.h, ...) and
 * the prototypes below. With -fno-math-errno clang turns these libm calls into LLVM intrinsics
 * (llvm.sin.f32, llvm.sqrt.f32, ...); fmodf becomes an frem instruction.
 */
#ifndef PACKETIZER_KERNEL_H
#define PACKETIZER_KERNEL_H

#include <stdint.h>
#include <stdbool.h>

float sqrtf(float);
float sinf(float);
float cosf(float);
float tanf(float);
float expf(float);
float exp2f(float);
float logf(float);
float log2f(float);
float powf(float, float);
float fabsf(float);
float floorf(float);
float ceilf(float);
float roundf(float);
float truncf(float);
float fminf(float, float);
float fmaxf(float, float);
float fmodf(float, float);
float copysignf(float, float);

double sqrt(double);
double sin(double);
double cos(double);
double exp(double);
double log(double);
double pow(double, double);
double fabs(double);
double floor(double);

/* Keep a helper an out-of-line call in the optimised bitcode. */
#define NOINLINE __attribute__((noinline))

#endif
