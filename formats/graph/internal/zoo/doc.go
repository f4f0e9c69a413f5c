// Package zoo generates the example model graphs of examples/ from the
// published layer definitions: every shape is computed from the layer
// parameters, nothing is typed by hand. Run
//
//	OPTALLOC_GEN_EXAMPLES=1 go test ./formats/graph/ -run TestGenerateExamples
//
// to rewrite examples/*.graph.json; TestExamplesUpToDate fails when a
// shipped file differs from its generator.
package zoo
