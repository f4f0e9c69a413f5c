// Package events is optalloc's front end for allocation traces: a
// sequence of alloc and free events, such as a malloc/free log of a
// runtime, turned into buffers with lifetimes.
//
// # The .events format
//
// One event per line; blank lines and lines starting with # are ignored:
//
//	alloc ID SIZE [align=A]   (also: malloc)
//	free ID
//
// Event k (counting from 0) happens at time step k. A buffer allocated at
// step s and freed at step e lives on [s, e): memory freed by one event can
// be reused by the next allocation, as a heap would. A buffer never freed
// lives to the end of the trace. IDs are any token without spaces — a
// name, or a pointer value such as 0x7f3a10: an ID allocated again after
// it was freed is a new buffer, named ID#2, ID#3, ... SIZE is in bytes;
// align=A requires offsets that are multiples of A.
//
// Errors name the line: a free of an ID that is not allocated, an alloc of
// an ID that is still allocated, a bad size or alignment, an unknown event.
//
// Importing the package registers the ".events" suffix with
// formats.Register, and Sniff with formats.RegisterSniffer so that a trace
// on standard input is recognised.
package events
