package migrations_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/recall-mcp/recall/internal/migrations"
)

func TestLoadOrdersByVersion(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_two.sql": {Data: []byte("two")},
		"m/0001_one.sql": {Data: []byte("one")},
	}
	ms, err := migrations.Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "one" || ms[1].Name != "0002_two.sql" {
		t.Fatalf("got %+v", ms)
	}
}

func TestLoadRefusesGapsAndBadNames(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"expected version 2":               {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"must start with a version number": {"m/first.sql": {}},
	} {
		if _, err := migrations.Load(fsys, "m"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("want an error saying %q, got %v", name, err)
		}
	}
}

// Version counts the folder's files without reading them: a store's
// embedded migrations load without error, so it is their number.
func TestVersionIsTheNumberOfMigrations(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0001_one.sql":   {Data: []byte("one")},
		"m/0002_two.sql":   {Data: []byte("two")},
		"m/0003_three.sql": {Data: []byte("three")},
	}
	d := migrations.Dir{FS: fsys, Path: "m"}
	ms, err := d.Load()
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Version(); v != 3 || v != len(ms) {
		t.Errorf("Version() = %d for %d migrations", v, len(ms))
	}
}
