// Package cmsisnn computes the scratch buffer sizes of Arm's CMSIS-NN
// library (its arm_*_get_buffer_size functions, CMSIS-NN 4ab83cc3 as
// TFLite Micro 90b983c2 pins it; sources in
// ../shared/tflm-cortexm/tflm-cortexm-src.tar.xz), for each of the three
// code paths the library compiles: plain C (Cortex-M0, M3), DSP (Cortex-M4,
// M7, M33) and MVE/Helium (Cortex-M55, M85). The path is chosen as CMSIS-NN
// chooses it from the compiler's architecture flags (__ARM_FEATURE_DSP,
// __ARM_FEATURE_MVE).
//
// Two sizes depend on the compiler; both follow GCC (arm-none-eabi-gcc),
// the compiler TFLite Micro's Makefile and ../shared/tflm-cortexm use:
//   - arm_convolve_1x1_s8_fast_get_buffer_size on the DSP path asks for
//     2·C int16s only under Arm Compiler 6 (__ARMCC_VERSION); with GCC it
//     asks for nothing.
//   - CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD, the
//     output channel count above which the MVE path turns a depthwise
//     convolution of one input channel into a convolution, is 8 under Arm
//     Compiler 6 and 1 with GCC.
//
// Every function computes in int64, saturating at Saturated instead of
// overflowing, and the caller checks the result against
// int32 (the C functions return int32_t).
package cmsisnn
