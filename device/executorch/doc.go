// Package executorch is ExecuTorch's memory planning as a runtime back end
// (device.Runtime), in Go: the rules ExecuTorch's MemoryPlanningPass puts
// on a planner, over the specs of a specs file (formats/executorch).
//
//   - A spec's size is its allocated_memory after realign(alignment); its
//     inclusive lifetime [first, last] is planned as [first, last+1).
//   - mem_id None means 1; each mem_id is an arena planned on its own,
//     starting at input_mem_buffer_sizes[k] when the graph gives it.
//   - A view (a spec with storage_base) is not placed on its own: it takes
//     its base's mem_id and mem_obj_id at the base's offset plus
//     storage_base_offset; the base is live over its own and its views'
//     lifetimes.
//   - Specs whose byte ranges overlap in a mem_id share a mem_obj_id (the
//     rule of ExecuTorch's Verifier.verify_storage_reuse: storage overlap
//     requires the same mem_obj_id, whatever the lifetimes).
//   - bufsizes[0] is 0; each used entry is its arena's end plus
//     extra_padding.
//   - No arena is larger than the one ExecuTorch's default greedy
//     (Greedy, a port of exir/memory_planning.py's greedy) makes: where
//     the greedy's is smaller, its layout is kept.
//
// Runtime.Solve plans; Runtime.Placements gives ExecuTorch's figures of a
// plan; Runtime.WriteBack writes them as the specs file with the
// placements filled in. The front door (package optalloc) loads a specs
// file with this runtime as its back end, as it loads a .tflite model
// with TFLite Micro's.
package executorch
