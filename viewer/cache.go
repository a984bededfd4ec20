package viewer

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

// The page's files are embedded, so they carry no modification time and a
// browser could not ask whether its copy is current: it fetched every module
// on every load. Each file gets an ETag (its content hash) and "no-cache": the
// browser keeps its copy and revalidates it, and an unchanged file costs a
// 304 without a body. A new binary has new hashes, so an upgrade is never
// shown half old, half new.

// fileETags hashes every file of fsys once, by path.
func fileETags(fsys fs.FS) map[string]string {
	tags := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[path] = `"` + hex.EncodeToString(sum[:12]) + `"`
		return nil
	})
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return tags
}

// revalidated serves file (a path in the embedded tree; "" for the request's
// path) with its ETag and Cache-Control: no-cache. The file server answers
// If-None-Match with 304 when the ETag header is set.
func revalidated(tags map[string]string, file string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := file
		if name == "" {
			name = strings.TrimPrefix(r.URL.Path, "/")
		}
		if tag, ok := tags[name]; ok {
			w.Header().Set("ETag", tag)
			w.Header().Set("Cache-Control", "no-cache")
		}
		next.ServeHTTP(w, r)
	})
}
