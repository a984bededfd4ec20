package jobs

import (
	"testing"
	"time"
)

func TestRetryDelayDoublesUpToAnHour(t *testing.T) {
	for attempts, want := range map[int]time.Duration{
		0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute,
		8: time.Hour, 1000: time.Hour,
	} {
		if got := RetryDelay(attempts); got != want {
			t.Errorf("RetryDelay(%d) = %v, want %v", attempts, got, want)
		}
	}
}
