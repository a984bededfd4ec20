package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestUpdateMemoryWithEventWritesBothOrNeither(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("You MUST run gofmt before committing.", "global", memory.TypePreference), nil)

	got, eventID, err := db.UpdateMemoryWithEvent(ctx, m.ID, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		before := m.Confidence
		m.Confidence = 0.4
		return &memory.ValidationEvent{EventType: memory.EventSucceeded, ConfidenceBefore: before, ConfidenceAfter: 0.4}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Confidence != 0.4 || eventID == 0 {
		t.Fatalf("confidence %v, event id %d; want 0.4 and an event", got.Confidence, eventID)
	}
	events, err := db.Events(ctx, m.ID, "", 0)
	if err != nil || len(events) != 1 || events[0].ID != eventID || events[0].ConfidenceAfter != 0.4 {
		t.Fatalf("events %+v, err %v; want the one succeeded event", events, err)
	}

	// An event the store refuses rolls the confidence change back with it.
	_, _, err = db.UpdateMemoryWithEvent(ctx, m.ID, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		m.Confidence = 0.9
		return &memory.ValidationEvent{EventType: "promoted"}, nil, nil
	})
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("bad event type: err %v, want ErrInvalid", err)
	}
	again, err := db.GetMemory(ctx, m.ID)
	if err != nil || again.Confidence != 0.4 {
		t.Fatalf("after a refused event confidence is %v (err %v), want 0.4 unchanged", again.Confidence, err)
	}
	if events, _ := db.Events(ctx, m.ID, "", 0); len(events) != 1 {
		t.Fatalf("after a refused event there are %d events, want 1", len(events))
	}
}

// The golden-rule check of a protected delete is made by the delete itself, so a
// memory promoted after the caller read it is still kept.
func TestDeleteMemoryKeepsGoldenRules(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("You MUST NOT force-push to main.", "global", memory.TypePreference), nil)
	if _, err := db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error {
		m.Type = memory.TypeGoldenRule // promoted by another process meanwhile
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteMemory(ctx, m.ID, true); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("protected delete of a golden rule: %v, want ErrProtected", err)
	}
	if _, err := db.GetMemory(ctx, m.ID); err != nil {
		t.Fatalf("the golden rule must survive: %v", err)
	}
	if err := db.DeleteMemory(ctx, m.ID, false); err != nil {
		t.Fatalf("forced delete: %v", err)
	}
	if err := db.DeleteMemory(ctx, m.ID, true); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("delete of a deleted memory: %v, want ErrNotFound", err)
	}
}
