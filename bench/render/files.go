package render

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// WriteJSON writes v as indented JSON, ending in a newline so that result
// files diff cleanly.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteSVG writes a rendered plot as NAME.svg in dir.
func WriteSVG(dir, name, svg string) error {
	return os.WriteFile(filepath.Join(dir, name+".svg"), []byte(svg), 0o644)
}
