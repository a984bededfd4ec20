package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrBusy means another process is updating the index.
var ErrBusy = errors.New("another recall process is updating the history index")

// Lock is the right to update the index, held by one process at a time. It
// is an advisory lock (flock) on a file beside the index: the kernel releases
// it when the process ends, however it ends, so a crashed indexer never
// leaves a stale lock behind.
type Lock struct{ f *os.File }

// TryLock takes the update lock of the index at indexPath without waiting;
// ErrBusy when another process holds it.
func TryLock(indexPath string) (*Lock, error) { return tryLock(indexPath + ".lock") }

// TryEmbedLock takes the right to embed the index's messages, apart from the
// update lock: embedding takes minutes (Ollama), and meanwhile a search must
// still be able to read the newest messages into the index (CatchUp).
func TryEmbedLock(indexPath string) (*Lock, error) { return tryLock(indexPath + ".embed.lock") }

func tryLock(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create history index directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open history index lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("lock history index: %w", err)
	}
	return &Lock{f: f}, nil
}

// WaitLock takes the update lock, waiting for another process to finish
// until ctx ends.
func WaitLock(ctx context.Context, indexPath string) (*Lock, error) {
	return wait(ctx, func() (*Lock, error) { return TryLock(indexPath) })
}

// WaitEmbedLock takes the embedding lock, waiting until ctx ends.
func WaitEmbedLock(ctx context.Context, indexPath string) (*Lock, error) {
	return wait(ctx, func() (*Lock, error) { return TryEmbedLock(indexPath) })
}

func wait(ctx context.Context, try func() (*Lock, error)) (*Lock, error) {
	for {
		l, err := try()
		if !errors.Is(err, ErrBusy) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (waited until %v)", ErrBusy, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return l.f.Close() }
