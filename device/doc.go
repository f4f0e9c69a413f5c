// Package device plans the arena a runtime really uses when the runtime
// adds buffers of its own around an offline plan.
//
// TFLite Micro takes the tensors' offsets from a model's offline plan and
// places the kernels' scratch buffers itself, online, with its greedy
// planner around the fixed tensors. The arena the device needs is the head
// after that placement, not the peak of a plan of tensors and scratch
// together. SolveTFLM plans the tensors and scratch together (package
// solve), then replays TFLite Micro's greedy placement of the scratch
// around several candidate tensor layouts — the joint plan, its mirror
// image, and TFLite Micro's own plan, then, while the head stays above the
// lower bound, every heuristic planner's layout — and keeps the one with
// the smallest head: the plan it returns has every buffer where the device puts it, its
// peak is the device's head, and its lower bound is the joint problem's
// (no placement of tensors and scratch beats it). When TFLite Micro's own
// planner gives a smaller head than every optalloc layout, its tensor
// offsets are kept and Outcome.Fallback says so.
//
// Simulate is the replay alone: offline buffers at a plan's offsets,
// online ones by heuristics.TFLMGreedy.
//
// Runtime is the small interface the front door (package optalloc) plans
// and writes through: which buffers the runtime places itself, a replay of
// its placement around a plan, its own plan, the device's arena, and the
// plan written back into the runtime's file. device/tflm's Runtime (a
// TFLite model and its arena, written back as the model's
// OfflineMemoryAllocation metadata) is the first implementation; Greedy is
// the same runtime given only by its online buffers, without a file.
package device
