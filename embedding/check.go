package embedding

import (
	"context"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Status is what `recall doctor` reports about Ollama.
type Status struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	Version   string `json:"version,omitempty"`
	// EmbedModel and ChatModel are the configured models; the Pulled fields say
	// whether Ollama has them.
	EmbedModel       string `json:"embed_model"`
	EmbedModelPulled bool   `json:"embed_model_pulled"`
	ChatModel        string `json:"chat_model"`
	ChatModelPulled  bool   `json:"chat_model_pulled"`
	// EmbedInfo and ChatInfo are what /api/show says of each pulled model
	// (capabilities, context length); zero when not pulled or not answered.
	EmbedInfo ModelInfo `json:"embed_model_info,omitzero"`
	ChatInfo  ModelInfo `json:"chat_model_info,omitzero"`
	// Models lists every model Ollama has.
	Models []string `json:"models,omitempty"`
}

// EmbedCapable and ChatCapable say whether the configured models can do their
// job by Ollama's own account (a model Ollama reports nothing for is trusted).
func (st Status) EmbedCapable() bool {
	return st.EmbedModelPulled && st.EmbedInfo.Can(model.CapabilityEmbedding)
}

func (st Status) ChatCapable() bool {
	return st.ChatModelPulled && st.ChatInfo.Can(model.CapabilityCompletion)
}

// Check asks Ollama for its version, its models and what the configured ones
// can do (/api/show). The error is nil when Ollama
// answered, even if a model is missing (the Status says which); otherwise it is an
// *Error as for any call, and Status says Reachable false.
func (c *Client) Check(ctx context.Context) (Status, error) {
	st := Status{Host: c.host, EmbedModel: c.embedModel, ChatModel: c.chatModel}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	version, err := c.api.Version(callCtx)
	if err != nil {
		return st, c.classify(ctx, err, "")
	}
	st.Reachable, st.Version = true, version

	list, err := c.api.List(callCtx)
	if err != nil {
		return st, c.classify(ctx, err, "")
	}
	for _, m := range list.Models {
		st.Models = append(st.Models, m.Name)
		st.EmbedModelPulled = st.EmbedModelPulled || sameModel(m, c.embedModel)
		st.ChatModelPulled = st.ChatModelPulled || sameModel(m, c.chatModel)
	}
	if st.EmbedModelPulled {
		if st.EmbedInfo, err = c.Show(ctx, c.embedModel); err != nil {
			return st, err
		}
	}
	if st.ChatModelPulled {
		if st.ChatInfo, err = c.Show(ctx, c.chatModel); err != nil {
			return st, err
		}
	}
	return st, nil
}

// sameModel compares names as Ollama does: no tag means ":latest".
func sameModel(m api.ListModelResponse, name string) bool {
	want := withTag(name)
	return withTag(m.Name) == want || withTag(m.Model) == want
}

func withTag(name string) string {
	if i := strings.LastIndex(name, ":"); i < 0 || strings.Contains(name[i:], "/") {
		return name + ":latest"
	}
	return name
}
