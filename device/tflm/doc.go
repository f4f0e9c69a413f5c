// Package tflm is TensorFlow Lite Micro as a runtime back end
// (device.Runtime): a TFLite model, its arena (tensors, then the kernels'
// scratch buffers, which TFLite Micro places online around the offline
// plan) and the model the plan is written back into.
package tflm
