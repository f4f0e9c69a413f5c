// Package executorch reads and writes ExecuTorch's memory-planning specs
// as JSON: what ExecuTorch's MemoryPlanningPass hands a planner (the
// tensor specs, the alignment, the extra padding, the graph's
// input_mem_buffer_sizes), and the placements a planner gives back.
//
//	{"executorch": {"alignment": 16, "extra_padding": 0, "input_mem_buffer_sizes": [0, 64],
//	  "specs": [{"id": "x", "size": 64, "lifetime": [0, 3], "mem_id": 1},
//	            {"id": "v", "size": 16, "lifetime": [2, 5], "storage_base": "x", "storage_base_offset": 32}]}}
//
// A spec's size is its allocated_memory after realign(alignment) (Read
// rounds it up to the alignment again, which changes nothing for a
// realigned size); its lifetime [first, last] is inclusive, as ExecuTorch's;
// mem_id null or absent means 1. A spec with a storage_base lives inside
// that spec's bytes at storage_base_offset: it is not placed on its own.
// A written plan is the same object with "bufsizes" and each spec's
// "mem_id", "mem_obj_id" and "mem_offset" filled in; Read reads it back as
// the same specs with that plan (File.Plan), which device/executorch.Check
// checks against ExecuTorch's rules (optalloc verify out.json).
//
// File.Arena is the memory problem of the specs: one buffer per spec that
// is not a view (its lifetime [first, last+1), widened over its views'),
// one pool per mem_id. The runtime's rules (grouping, the greedy planner,
// bufsizes) are package device/executorch.
//
// Read registers a sniffer with formats.RegisterSniffer (standard input
// and formats.LoadBytes) and a JSON sniffer (formats.Load of a .json
// file): an object whose first key is "executorch" is a specs file.
package executorch
