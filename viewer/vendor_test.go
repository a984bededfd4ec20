package viewer

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// vendoredFile is one line of static/vendor/manifest.txt.
type vendoredFile struct{ pkg, version, file, sha256 string }

func readManifest(t *testing.T) []vendoredFile {
	t.Helper()
	f, err := os.Open("static/vendor/manifest.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vendoredFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 {
			t.Fatalf("manifest line %q: want package, version, file, sha256", line)
		}
		out = append(out, vendoredFile{fields[0], fields[1], fields[2], fields[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVendoredWebLibraries checks the browser libraries the page embeds
// against what scripts/vendor-web.sh copied from npm: every file as the
// manifest hashed it (a hand edit fails), nothing in the folder the manifest
// does not list, each version the lockfile's (a changed package.json without a
// re-run fails), exact pins in package.json, and a licence with every package.
func TestVendoredWebLibraries(t *testing.T) {
	manifest := readManifest(t)

	var pkgJSON struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for file, v := range map[string]any{"web/package.json": &pkgJSON, "web/package-lock.json": &lock} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}

	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for pkg, want := range pkgJSON.Dependencies {
		if !exact.MatchString(want) {
			t.Errorf("package.json pins %s as %q: pin an exact version (npm install --save-exact)", pkg, want)
		}
		if got := lock.Packages["node_modules/"+pkg].Version; got != want {
			t.Errorf("%s: package.json says %s, package-lock.json %q: run npm install --package-lock-only in viewer/web", pkg, want, got)
		}
	}

	listed := map[string]bool{}
	licensed := map[string]bool{}
	for _, v := range manifest {
		listed[v.file] = true
		if _, ok := pkgJSON.Dependencies[v.pkg]; !ok {
			t.Errorf("manifest lists %s of %s, which package.json does not depend on: run scripts/vendor-web.sh", v.file, v.pkg)
		}
		if got := lock.Packages["node_modules/"+v.pkg].Version; got != v.version {
			t.Errorf("%s is %s in the manifest, %q in package-lock.json: run scripts/vendor-web.sh", v.pkg, v.version, got)
		}
		if !strings.HasPrefix(v.file, v.pkg+"/") {
			t.Errorf("manifest puts %s outside its package's folder %s/", v.file, v.pkg)
		}
		if strings.HasPrefix(strings.ToUpper(path.Base(v.file)), "LICENSE") {
			licensed[v.pkg] = true
		}
		b, err := os.ReadFile("static/vendor/" + v.file)
		if err != nil {
			t.Errorf("vendored file missing: %v", err)
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != v.sha256 {
			t.Errorf("static/vendor/%s differs from the copy npm installed (sha256 %x, manifest %s): do not edit vendored files, run scripts/vendor-web.sh", v.file, sum, v.sha256)
		}
	}
	for pkg := range pkgJSON.Dependencies {
		if !licensed[pkg] {
			t.Errorf("%s has no LICENSE in static/vendor/%s: run scripts/vendor-web.sh", pkg, pkg)
		}
	}

	err := fs.WalkDir(os.DirFS("static/vendor"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "manifest.txt" {
			return err
		}
		if !listed[p] {
			t.Errorf("static/vendor/%s is not in the manifest: vendored files come from scripts/vendor-web.sh only", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
