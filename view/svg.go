package view

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/fwsim/fwsim/bus"
)

// WriteSVG draws res as SVG: its DOT (WriteDOT) piped through Graphviz's
// dot -Tsvg, dot being the path of that program.
func WriteSVG(w io.Writer, res *bus.Result, dot string) error {
	var graph, stderr bytes.Buffer
	if err := WriteDOT(&graph, res); err != nil {
		return err
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &graph, w, &stderr
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg != "" {
			return fmt.Errorf("%s: %w: %s", dot, err, msg)
		}
		return fmt.Errorf("%s: %w", dot, err)
	}
	return nil
}
