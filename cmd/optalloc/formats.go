package main

// The model-file front ends register their suffixes with formats.Load.
import (
	_ "github.com/optalloc/optalloc/formats/events"
	_ "github.com/optalloc/optalloc/formats/graph"
	_ "github.com/optalloc/optalloc/formats/onnx"
	_ "github.com/optalloc/optalloc/formats/tflite"
)
