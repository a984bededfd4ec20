package viewer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// DefaultPort is the viewer's port when none is configured: 20000 plus the
// user id modulo 10000, so that users sharing a machine do not collide, and
// below Linux's ephemeral range (32768+). Without user ids (Windows): 28765.
func DefaultPort() int {
	uid := os.Getuid()
	if uid < 0 {
		return 28765
	}
	return 20000 + uid%10000
}

// Listen opens the viewer's loopback listener on 127.0.0.1:port. The viewer
// serves people on this machine only; nothing here binds another address.
func Listen(port int) (net.Listener, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("invalid port %d: accepted 1 to 65535", port)
	}
	return net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
}

// Serve serves h on ln until ctx is done, then lets requests in flight finish
// for a few seconds. Event streams never finish by themselves: shutting down
// cancels their requests' context.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	srv.RegisterOnShutdown(cancelBase)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutCtx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
