package harness

import (
	"os"
	"path/filepath"

	"github.com/roomlease/roomlease/bench/render"
)

// Write writes a run's results as NAME.json (v) and NAME.md (md) in the
// output directory, and logs the Markdown.
func (o Options) Write(name, md string, v any) error {
	if err := render.WriteJSON(filepath.Join(o.OutDir, name+".json"), v); err != nil {
		return err
	}
	o.Log("\n" + md)
	return os.WriteFile(filepath.Join(o.OutDir, name+".md"), []byte(md), 0o644)
}

// SVG writes a rendered plot as NAME.svg in the output directory.
func (o Options) SVG(name, svg string) error {
	return render.WriteSVG(o.OutDir, name, svg)
}
