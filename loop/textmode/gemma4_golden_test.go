package textmode_test

import "github.com/toolstream/toolstream/loop/detect"

// Gemma 4 has a golden prompt and feedback like every text_format.
func init() { formats = append(formats, detect.Gemma4) }
