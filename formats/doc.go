// Package formats chooses the reader of a problem file: by suffix, with the
// registered front ends first (the longest suffix wins, ".graph.json" over
// ".json"), then ".json" (formats/jsonfmt) and CSV otherwise (formats/csv);
// on standard input, by content.
//
// The readers and writers live one package per format below it:
//
//	formats/csv      MiniMalloc CSV problems and plans
//	formats/jsonfmt  the JSON problem and plan formats
//	formats/plan     reads a CSV or JSON plan against a problem
//	formats/graph    model graphs (.graph.json)
//	formats/tflite   TFLite models (.tflite)
//	formats/onnx     ONNX models (.onnx)
//	formats/events   allocation traces (.events)
//
// A front end registers its suffix with Register in an init function, so a
// program that imports it (even blank) makes Load read that format.
package formats
