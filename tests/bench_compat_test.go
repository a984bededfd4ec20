package tests

import "github.com/recall-mcp/recall/memory"

// seedRecords is what the hook figures import to seed a database.
// scripts/bench-hooks.sh copies the benchmark files into an older tree and
// writes this file there with the type that tree has.
type seedRecords = memory.Records
