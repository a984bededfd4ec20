package embedding

import "strings"

// Instructions are the prefixes an embedding model was trained to see before a
// search query and before a stored passage. Models trained this way rank far
// better when given them; models without them get none.
type Instructions struct {
	Query    string
	Document string
}

// instructions by model name without tag, from each model's card.
var instructions = map[string]Instructions{
	"mxbai-embed-large":       {Query: "Represent this sentence for searching relevant passages: "},
	"snowflake-arctic-embed":  {Query: "Represent this sentence for searching relevant passages: "},
	"nomic-embed-text":        {Query: "search_query: ", Document: "search_document: "},
	"nomic-embed-text-v2-moe": {Query: "search_query: ", Document: "search_document: "},
	"embeddinggemma":          {Query: "task: search result | query: ", Document: "title: none | text: "},
}

// InstructionsFor returns the prefixes of a model ("mxbai-embed-large",
// "nomic-embed-text:v1.5", "library/mxbai-embed-large:latest"), or none for a
// model not in the table.
func InstructionsFor(model string) Instructions {
	name := model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name, _, _ = strings.Cut(name, ":")
	return instructions[strings.ToLower(name)]
}
