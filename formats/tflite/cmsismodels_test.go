package tflite

// cmsisModels are small models that take each branch of the CMSIS-NN
// kernels' scratch requests.
func cmsisModels() map[string][]gspec {
	return map[string][]gspec{}
}
