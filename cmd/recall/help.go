package main

import (
	"github.com/recall-mcp/recall/config"
)

// configHelp lists the RECALL_* variables with their defaults and meanings.
func configHelp() string { return config.Describe() }
