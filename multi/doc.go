// Package multi plans several models that run on one device in one
// arena: a product's wake-word pipeline, an audio preprocessor feeding a
// keyword spotter, a detector and a classifier on one camera.
//
// Combine builds one problem over the models: each model's buffers on its
// own time span of a Schedule (serial stages one after another, the
// models of a stage concurrently, on the product of their time lines as
// the model-graph front end does, so that concurrent models never share a
// byte while each keeps its own reuse), handoffs (one model's output read
// in place as a later model's input) joined into one buffer, and, for
// targets that keep weights in planned memory, the weights resident with
// byte-identical ones stored once. Split gives each model its part of a
// plan, relative to the shared arena.
//
// SolveTFLM plans the models for TFLite Micro's multi-tenant use (several
// MicroInterpreters on one MicroAllocator): each model is planned by the
// runtime on its own, from the arena's start, its kernel scratch placed
// around its own tensors; the head reserved is the largest model's, and
// every model's persistent tail stays, one after another from the arena's
// end. A TFLite Micro arena never holds weights.
package multi
