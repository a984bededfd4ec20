package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kelseyhightower/envconfig"

	"github.com/recall-mcp/recall/config"
)

// configTable lists the RECALL_* variables with their defaults and meanings,
// read from the Config struct's tags so it cannot drift from what is loaded.
const configTable = "VARIABLE\tDEFAULT\tMEANING\n" +
	"{{range .}}{{usage_key .}}\t{{usage_default .}}\t{{usage_description .}}\n{{end}}"

func printConfigHelp(w io.Writer) {
	fmt.Fprint(w, "Configuration (environment variables):\n\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if err := envconfig.Usagef(config.Prefix, &config.Config{}, tw, configTable); err != nil {
		fmt.Fprintf(w, "(configuration table unavailable: %v)\n", err)
		return
	}
	tw.Flush()
}
