// Package tflmrun runs TensorFlow Lite Micro's host runtime, tflm_run
// (../shared/tflm beside the repository; see its README), on a model and
// reads what it reports: the arena head the device uses, whether the
// offline plan was honoured, the output checksums. Tests and the results
// command use it as the ground truth for what optalloc states about TFLite
// Micro.
package tflmrun
