package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// writeJSON writes v as indented JSON, ending in a newline so that result
// files diff cleanly.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// write writes a scenario's results as NAME.json (v) and NAME.md (md) in the
// output directory, and logs the Markdown.
func (o Options) write(name, md string, v any) error {
	if err := writeJSON(filepath.Join(o.OutDir, name+".json"), v); err != nil {
		return err
	}
	o.Log("\n" + md)
	return os.WriteFile(filepath.Join(o.OutDir, name+".md"), []byte(md), 0o644)
}

// svg writes a rendered plot as NAME.svg in the output directory.
func (o Options) svg(name, svg string) error {
	return os.WriteFile(filepath.Join(o.OutDir, name+".svg"), []byte(svg), 0o644)
}
