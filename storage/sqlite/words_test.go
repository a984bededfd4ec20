package sqlite

import (
	"math/rand/v2"
	"strings"
)

// words is a small vocabulary of what coding notes talk about; sentences drawn
// from it give FTS5 realistic term frequencies.
var words = strings.Fields(`the a to of and in for is on with that this use when not be by from
	build test tests run go module package function method error errors return value type struct
	interface file files path config configuration database sqlite query index table column row
	migration schema transaction commit rollback lock write read cache memory server client request
	response handler http json api endpoint timeout retry context cancel deadline goroutine channel
	mutex race deploy release version tag branch merge rebase review pull docker container image
	kubernetes service log logging metrics trace debug panic stack frame slice map string byte
	buffer stream parse format encode decode token auth user session cookie header flag option
	default prefer always never avoid should must instead because fix bug issue regression flaky
	slow fast performance benchmark profile allocation heap pointer nil empty check validate input
	output stdout stderr signal shutdown graceful worker pool queue job batch embed vector search
	keyword rank score hybrid model prompt ollama python typescript rust linter gofmt vet ci pipeline`)

func randomSentence(r *rand.Rand, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, " ")
}
