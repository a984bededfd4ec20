package main

import (
	"fmt"
	"io"

	"github.com/recall-mcp/recall/config"
)

// printConfigHelp lists the RECALL_* variables with their defaults and meanings.
func printConfigHelp(w io.Writer) {
	fmt.Fprint(w, "Configuration (environment variables):\n\n", config.Describe())
}
