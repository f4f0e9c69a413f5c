// Package plan reads a plan for a given problem from a CSV file (columns id
// and offset, optionally pool and granted) or a JSON plan: Read marks the
// buffers the file does not mention with model.MissingOffset so that the
// verifier reports them.
package plan
